import IPP

/// The captured fixtures in `Fixtures/ipp/` (see tools/capture-ipp-fixtures.sh).
enum Fixtures {
    /// Repository root: this file is Tests/IPPTests/Fixtures.swift.
    static let directory: String = {
        var path = #filePath
        for _ in 0..<3 {
            if let slash = path.lastIndex(of: "/") { path = String(path[..<slash]) }
        }
        return path + "/Fixtures/ipp"
    }()

    /// Names of every `*.ipp` fixture, sorted.
    static let names: [String] = listDirectory(directory).filter { $0.hasSuffix(".ipp") }.sorted()

    static func bytes(_ name: String) -> [UInt8] {
        readFile(directory + "/" + name) ?? []
    }

    static let printerAttributesResponse = "get-printer-attributes-01-get-printer-attributes-response.ipp"
    static let printerAttributesRequest = "get-printer-attributes-01-get-printer-attributes-request.ipp"
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// File access without Foundation, matching the module's own dependency-free style.
func readFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        result.append(contentsOf: buffer[0..<count])
    }
    return result
}

func listDirectory(_ path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}
