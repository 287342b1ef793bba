import Foundation

/// Where the repository and the built `workbench` binary are, for tests that read fixtures or run the binary.
public enum Repository {
    /// The repository's root directory (this file is `Tests/TestSupport/Repository.swift`).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A path under `Fixtures/`.
    public static func fixture(_ path: String) -> String { root.appendingPathComponent("Fixtures/\(path)").path }

    /// The `workbench` executable SwiftPM built next to the test bundle.
    public static let workbenchBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("workbench")
}

/// Runs the built `workbench` binary.
public enum WorkbenchBinary {
    /// Runs `workbench ARGUMENTS` in the repository to completion (killed after `timeout` seconds), with `input` on
    /// its standard input.
    public static func run(_ arguments: [String], input: String? = nil, timeout: TimeInterval = 300) throws -> ExternalProcess.Result {
        try ExternalProcess.run(
            Repository.workbenchBinary.path, arguments, input: input.map { Data($0.utf8) },
            currentDirectory: Repository.root.path, timeout: timeout)
    }

    /// Starts `workbench serve ARGUMENTS` in the repository and returns once `ready` holds for what it printed on
    /// standard output (its `listening …` and `note …` lines); see ``ServedProcess`` for the time limits.
    public static func serve(
        _ arguments: [String], until ready: @escaping @Sendable (String) -> Bool,
        readyWithin: TimeInterval = 120
    ) throws -> ServedProcess {
        try ServedProcess.start(
            Repository.workbenchBinary.path, ["serve"] + arguments, currentDirectory: Repository.root.path,
            until: .output(ready), readyWithin: readyWithin)
    }
}
