import Foundation

/// Finds the repository's `Fixtures/` folder (test certificates, documents) from the working directory or
/// from the `workbench` executable's location (`.build/<config>/workbench`), so actors that need key
/// material start from anywhere in a checkout.
enum Fixtures {
    static var directory: String? {
        var candidates = [FileManager.default.currentDirectoryPath]
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(folder.path)
            folder = folder.deletingLastPathComponent()
        }
        if let environment = ProcessInfo.processInfo.environment["WORKBENCH_FIXTURES"] { candidates.insert(environment, at: 0) }
        return candidates.lazy.map { $0.hasSuffix("/Fixtures") ? $0 : "\($0)/Fixtures" }
            .first { FileManager.default.fileExists(atPath: "\($0)/tls/ca.pem") }
    }

    /// The path of `relative` inside Fixtures/, or an error that says where it was looked for.
    static func path(_ relative: String) throws -> String {
        guard let directory else {
            throw CatalogError("cannot find the Fixtures/ folder (with tls/ca.pem): run from the repository, or set WORKBENCH_FIXTURES")
        }
        return "\(directory)/\(relative)"
    }
}
