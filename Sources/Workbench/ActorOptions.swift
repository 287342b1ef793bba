import Foundation

// Parsing of the `OPTION=VALUE` words after `start KIND` (and `serve --set KIND.OPTION=VALUE`), shared by
// every system's actor kinds so the same kind of value is checked, and refused, in the same words.

/// A port number 0…65535.
func parsePort(_ text: String, _ option: String) throws -> Int {
    guard let value = Int(text), (0...65_535).contains(value) else {
        throw CatalogError("option \(option)=\(text): expected a port number 0…65535")
    }
    return value
}

/// A port number, or nil when the option is absent or `none`.
func parseOptionalPort(_ text: String?, _ option: String) throws -> Int? {
    guard let text, text != "none" else { return nil }
    return try parsePort(text, option)
}

/// `true`/`yes` or `false`/`no`; absent is false.
func parseFlag(_ text: String?, _ option: String) throws -> Bool {
    switch text {
    case nil, "false", "no": return false
    case "true", "yes": return true
    case let other?: throw CatalogError("option \(option)=\(other): expected true or false")
    }
}

/// A whole number above zero.
func parsePositive(_ text: String, _ option: String) throws -> Int {
    guard let value = Int(text), value > 0 else { throw CatalogError("option \(option)=\(text): expected a positive whole number") }
    return value
}

/// Creates the folder a `database=FILE` option's SQLite file goes in, so a fresh state folder works.
func createParentDirectory(of path: String) throws {
    try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
}
