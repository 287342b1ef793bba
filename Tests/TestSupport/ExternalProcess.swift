import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A test's failure to run a program: missing, hung (killed by the watchdog) or not ready in time.
public struct ProcessFailure: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Runs a real program (curl, ipptool, ssh, qpdf, `workbench run`…) to completion under a watchdog, collecting its
/// output. A program that is missing is a failure that says so (tools/setup.sh installs them all); one that has not
/// exited after `timeout` seconds is killed (SIGKILL) and the run throws, so a hung child fails its test instead of
/// hanging the whole test run.
public enum ExternalProcess {
    public struct Result: Sendable {
        /// The exit status (for a program killed by a signal, the signal number).
        public let status: Int32
        /// Standard output and error as bytes.
        public let stdoutBytes: [UInt8], stderrBytes: [UInt8]
        // Lossy on purpose: tools print binary (a PDF's comment line) and we still want the text around it.
        public var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
        public var stderr: String { String(decoding: stderrBytes, as: UTF8.self) }
        /// Standard output followed by standard error.
        public var output: String { stdout + stderr }
    }

    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:],
        currentDirectory: String? = nil, timeout: TimeInterval = 120
    ) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ProcessFailure("\(executable) is not installed; tools/setup.sh installs it (see tools/apt-packages.txt)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Files, not pipes: a program that writes a lot to one stream never blocks on the other, and writing its input
        // never blocks on a program that does not read it.
        let inURL = directory.appendingPathComponent("in")
        let outURL = directory.appendingPathComponent("out")
        let errURL = directory.appendingPathComponent("err")
        try (input ?? Data()).write(to: inURL)
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let stdin = try FileHandle(forReadingFrom: inURL)
        let stdout = try FileHandle(forWritingTo: outURL)
        let stderr = try FileHandle(forWritingTo: errURL)
        defer {
            try? stdin.close()
            try? stdout.close()
            try? stderr.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let partial =
                String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
                + String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
            throw ProcessFailure(
                "\(executable) \(arguments.joined(separator: " ")) did not finish within \(Int(timeout)) s and was killed; "
                    + "it printed:\n\(partial)")
        }
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdoutBytes: Array((try? Data(contentsOf: outURL)) ?? Data()),
            stderrBytes: Array((try? Data(contentsOf: errURL)) ?? Data()))
    }
}
