import Foundation
import Scenario

// Parsing of the `OPTION=VALUE` words after `start KIND` (and `serve --set KIND.OPTION=VALUE`), shared by
// every system's actor kinds so the same kind of value is checked, and refused, in the same words.

/// A port number 0…65535.
package func parsePort(_ text: String, _ option: String) throws -> Int {
    guard let value = Int(text), (0...65_535).contains(value) else {
        throw WorkbenchError("option \(option)=\(text): expected a port number 0…65535")
    }
    return value
}

/// A port number, or nil when the option is absent or `none`.
package func parseOptionalPort(_ text: String?, _ option: String) throws -> Int? {
    guard let text, text != "none" else { return nil }
    return try parsePort(text, option)
}

/// `true`/`yes` or `false`/`no`; absent is false.
package func parseFlag(_ text: String?, _ option: String) throws -> Bool {
    switch text {
    case nil, "false", "no": return false
    case "true", "yes": return true
    case let other?: throw WorkbenchError("option \(option)=\(other): expected true or false")
    }
}

/// A whole number within `range`, or an error naming the option and the range.
package func parseBounded(_ text: String, _ option: String, _ range: ClosedRange<Int>) throws -> Int {
    guard let value = Int(text), range.contains(value) else {
        throw WorkbenchError("option \(option)=\(text): expected a whole number \(range.lowerBound)…\(range.upperBound)")
    }
    return value
}

/// A shared secret: 16 to 256 printable ASCII characters, no spaces (it travels in an HTTP header).
package func parseSecret(_ text: String, _ option: String) throws -> String {
    guard (16...256).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
        throw WorkbenchError("option \(option): expected a secret of 16 to 256 printable characters without spaces")
    }
    return text
}

/// `HOST:PORT` with a port 1…65535.
package func parseEndpoint(_ text: String, _ option: String) throws -> (host: String, port: Int) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65_535).contains(port) else {
        throw WorkbenchError("option \(option)=\(text): expected HOST:PORT with a port 1…65535")
    }
    return (parts[0], port)
}

/// Creates the folder a `database=FILE` option's SQLite file goes in, so a fresh state folder works.
package func createParentDirectory(of path: String) throws {
    try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
}

// The declarations of the options (`ActorKind.options`): each checks a value with the same parser the actor's start
// uses, so a scenario line is refused when it is read, in the words the start would use.
extension ActorOption {
    /// A port number; `orNone`: or `none` for no listener.
    package static func port(_ name: String, _ meaning: String, orNone: Bool = false) -> ActorOption {
        ActorOption(name, meaning, value: .port(orNone: orNone)) { value in
            refusal { _ = orNone ? try parseOptionalPort(value, name) : try parsePort(value, name) }
        }
    }

    /// `true`/`yes` or `false`/`no`.
    package static func flag(_ name: String, _ meaning: String) -> ActorOption {
        ActorOption(name, meaning, value: .flag) { value in refusal { _ = try parseFlag(value, name) } }
    }

    /// A whole number within `range`.
    package static func number(_ name: String, _ meaning: String, _ range: ClosedRange<Int>) -> ActorOption {
        ActorOption(name, meaning, value: .integer) { value in refusal { _ = try parseBounded(value, name, range) } }
    }

    /// One of `values`.
    package static func choice(_ name: String, _ meaning: String, _ values: [String]) -> ActorOption {
        ActorOption(name, meaning) { value in
            values.contains(value) ? nil : "option \(name)=\(value): expected \(values.joined(separator: ", "))\(didYouMean(value, among: values))"
        }
    }

    /// A shared secret (see ``parseSecret(_:_:)``).
    package static func secret(_ name: String, _ meaning: String) -> ActorOption {
        ActorOption(name, meaning) { value in refusal { _ = try parseSecret(value, name) } }
    }

    /// `HOST:PORT`.
    package static func endpoint(_ name: String, _ meaning: String) -> ActorOption {
        ActorOption(name, meaning) { value in refusal { _ = try parseEndpoint(value, name) } }
    }

    /// Any text that is not empty.
    package static func text(_ name: String, _ meaning: String) -> ActorOption {
        ActorOption(name, meaning) { value in value.isEmpty ? "option \(name): expected a value, found nothing" : nil }
    }

    /// A file that must exist and be readable: a path, or `Fixtures/…` found from anywhere in a checkout.
    package static func existingFile(_ name: String, _ meaning: String) -> ActorOption {
        ActorOption(name, meaning) { value in refusal { _ = try readableFile(value, name) } }
    }

    /// A file or folder the actor creates (an SQLite database, a spool): it must not be something else already, and
    /// the nearest folder that exists above it must be one the workbench can write in.
    package static func creatable(_ name: String, _ meaning: String) -> ActorOption {
        ActorOption(name, meaning) { value in refusal { try checkCreatable(value, name) } }
    }

    /// A value checked by `parse`, the parser the actor's start uses for it.
    package static func parsed(_ name: String, _ meaning: String, _ parse: @escaping @Sendable (String) throws -> Void) -> ActorOption {
        ActorOption(name, meaning) { value in refusal { try parse(value) } }
    }
}

/// What `body` throws, as text; nil when it throws nothing.
private func refusal(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch { return "\(error)" }
}

/// The path of a file an option names, checked to be readable: as given, or `Fixtures/…` inside the checkout's Fixtures.
package func readableFile(_ path: String, _ option: String) throws -> String {
    let resolved = try Fixtures.resolve(path)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), !isDirectory.boolValue,
        FileManager.default.isReadableFile(atPath: resolved)
    else {
        let absolute = URL(fileURLWithPath: resolved).standardizedFileURL.path
        throw WorkbenchError(
            "option \(option)=\(path): no readable file at \(absolute) (a relative path is taken from the current folder, \(FileManager.default.currentDirectoryPath))"
        )
    }
    return resolved
}

/// Refuses a path the actor could not create: empty, an existing thing of the other kind, or under a folder it cannot write.
package func checkCreatable(_ path: String, _ option: String) throws {
    guard !path.isEmpty else { throw WorkbenchError("option \(option): expected a path, found nothing") }
    let url = URL(fileURLWithPath: path).standardizedFileURL
    var folder = url.deletingLastPathComponent()
    var isDirectory: ObjCBool = false
    while !FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) { folder = folder.deletingLastPathComponent() }
    guard isDirectory.boolValue else { throw WorkbenchError("option \(option)=\(path): \(folder.path) is a file, not a folder") }
    guard FileManager.default.isWritableFile(atPath: folder.path) else {
        throw WorkbenchError("option \(option)=\(path): cannot create it, \(folder.path) is not writable")
    }
}
