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

/// A whole number within `range`, or an error naming the option and the range.
func parseBounded(_ text: String, _ option: String, _ range: ClosedRange<Int>) throws -> Int {
    guard let value = Int(text), range.contains(value) else {
        throw CatalogError("option \(option)=\(text): expected a whole number \(range.lowerBound)…\(range.upperBound)")
    }
    return value
}

/// A shared secret: 16 to 256 printable ASCII characters, no spaces (it travels in an HTTP header).
func parseSecret(_ text: String, _ option: String) throws -> String {
    guard (16...256).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
        throw CatalogError("option \(option): expected a secret of 16 to 256 printable characters without spaces")
    }
    return text
}

/// `HOST:PORT` with a port 1…65535.
func parseEndpoint(_ text: String, _ option: String) throws -> (host: String, port: Int) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65_535).contains(port) else {
        throw CatalogError("option \(option)=\(text): expected HOST:PORT with a port 1…65535")
    }
    return (parts[0], port)
}

/// Creates the folder a `database=FILE` option's SQLite file goes in, so a fresh state folder works.
func createParentDirectory(of path: String) throws {
    try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
}
