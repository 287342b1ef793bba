import Foundation

/// Runs a real third-party program (ssh, sftp, scp, curl, qpdf…) to completion with a time limit, collecting its
/// output. A missing program is a failure that says which package provides it: tools/setup.sh installs them all.
enum ExternalTool {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        var output: String { stdout + stderr }
    }

    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    static func run(_ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:],
                    timeout: TimeInterval = 60) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw Missing(description: "\(executable) is not installed; tools/setup.sh installs it (see tools/apt-packages.txt)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Files, not pipes: a tool that writes a lot to one stream can never block on the other.
        let outURL = directory.appendingPathComponent("out"), errURL = directory.appendingPathComponent("err")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try? stdin.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Missing(description: "\(executable) \(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s")
        }
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      // Lossy on purpose: tools print binary (a PDF's comment line) and we still want the text around it.
                      stdout: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
                      stderr: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self))
    }
}
