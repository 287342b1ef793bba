import Foundation

/// Finds the repository's `Fixtures/` folder (test certificates, documents): `WORKBENCH_FIXTURES`, then the
/// working directory, then the folders above the `workbench` executable (`.build/<config>/workbench`), then the
/// checkout the workbench was built from, so actors that need key material start from anywhere — a scenario run from
/// `Simulations/`, a console started in `/tmp`, a test suite that links the workbench as a library.
package enum Fixtures {
    /// Found once per process: every actor start and every client with a certificate asks, and a swarm starts
    /// thousands (the search reads /proc and probes folders).
    package static let directory: String? = {
        var candidates = [FileManager.default.currentDirectoryPath]
        // /proc/self/exe names the binary however it was started (through PATH, a symlink, a relative path).
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(folder.path)
            folder = folder.deletingLastPathComponent()
        }
        if let environment = ProcessInfo.processInfo.environment["WORKBENCH_FIXTURES"] { candidates.insert(environment, at: 0) }
        // Last, the checkout this file was compiled from: a test suite that links the workbench as a library (WorkbenchKit)
        // runs from its own package's folder, far from the workbench's.
        candidates.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path)
        // Absolute (WORKBENCH_FIXTURES may be relative): the paths end up in notes a user pastes into another shell.
        return candidates.lazy.map { URL(fileURLWithPath: $0.hasSuffix("/Fixtures") ? $0 : "\($0)/Fixtures").standardizedFileURL.path }
            .first { FileManager.default.fileExists(atPath: "\($0)/tls/ca.pem") }
    }()

    /// The absolute path of `relative` inside Fixtures/ for a note `serve` prints (a command to paste into any
    /// shell); the relative path only when the folder cannot be found, and then no actor that uses it starts.
    package static func notePath(_ relative: String) -> String { (try? path(relative)) ?? "Fixtures/\(relative)" }

    /// The absolute path of `relative` inside Fixtures/, or an error that says where it was looked for.
    /// A path an option names: as given, or, when nothing is there and it starts with `Fixtures/`, that path inside the
    /// checkout's Fixtures (so `Fixtures/…` works from any folder).
    package static func resolve(_ path: String) throws -> String {
        guard !FileManager.default.fileExists(atPath: path), path.hasPrefix("Fixtures/") else { return path }
        return try Fixtures.path(String(path.dropFirst("Fixtures/".count)))
    }

    package static func path(_ relative: String) throws -> String {
        guard let directory else {
            throw WorkbenchError("cannot find the Fixtures/ folder (with tls/ca.pem): run from the repository, or set WORKBENCH_FIXTURES")
        }
        return "\(directory)/\(relative)"
    }
}
