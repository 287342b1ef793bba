import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A long-running child a test talks to (`workbench serve`, nginx, ippeveprinter, a private D-Bus), started and
/// waited for with time limits, and never left behind:
///
/// - ``start(_:_:environment:currentDirectory:until:readyWithin:lifetime:)`` returns once the child is ready (it
///   printed what the test waits for, it accepts connections, or a file appeared); a child that exits first, or
///   is not ready within `readyWithin` seconds, is killed and the start throws with what it printed.
/// - A watchdog kills (SIGKILL) a child still running `lifetime` seconds after it started, so a test that hangs
///   talking to it cannot keep it alive; so does dropping the last reference.
/// - ``stop(grace:)`` asks it to stop (SIGTERM) and reports how it ended, killing it if it has not stopped within
///   `grace` seconds; ``kill()`` is the crash (`kill -9`).
///
/// Standard output and error go to files, so a chatty child never blocks on a full pipe.
public final class ServedProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is only signalled and waited for; the files are only read; `watchdog` is set once.

    /// What makes the child ready.
    public enum Readiness: Sendable {
        /// As soon as it is running.
        case immediately
        /// Once its standard output so far satisfies the condition.
        case output(@Sendable (String) -> Bool)
        /// Once something accepts TCP connections on 127.0.0.1:`port`.
        case acceptsConnections(port: Int)
        /// Once the file exists (a socket, a pid file).
        case fileExists(String)
    }

    /// How the child ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    public let process: Process
    /// The command line, for messages.
    public let name: String
    private let directory: URL
    private let watchdog: DispatchWorkItem

    private init(process: Process, name: String, directory: URL, watchdog: DispatchWorkItem) {
        self.process = process
        self.name = name
        self.directory = directory
        self.watchdog = watchdog
    }

    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        currentDirectory: String? = nil, until readiness: Readiness = .immediately,
        readyWithin: TimeInterval = 60, lifetime: TimeInterval = 600
    ) throws -> ServedProcess {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ProcessFailure("\(executable) is not installed; tools/setup.sh installs it (see tools/apt-packages.txt)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("served-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let outURL = directory.appendingPathComponent("out")
        let errURL = directory.appendingPathComponent("err")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        let stdout = try FileHandle(forWritingTo: outURL)
        let stderr = try FileHandle(forWritingTo: errURL)
        defer {
            // The child has its own descriptors.
            try? stdout.close()
            try? stderr.close()
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        let name = ([executable] + arguments).joined(separator: " ")
        try process.run()
        let watchdog = DispatchWorkItem {
            if process.isRunning { sendSignal(process, SIGKILL) }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + lifetime, execute: watchdog)
        let served = ServedProcess(process: process, name: name, directory: directory, watchdog: watchdog)
        try served.waitUntilReady(readiness, within: readyWithin)
        return served
    }

    deinit {
        _ = kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// What the child has printed on standard output so far.
    public var output: String { Self.read(directory.appendingPathComponent("out")) }
    /// What the child has printed on standard error so far.
    public var errorOutput: String { Self.read(directory.appendingPathComponent("err")) }
    /// Standard output so far, as lines.
    public var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// The last space-separated word of the first output line starting with `prefix` (a URL after `listening NAME`).
    ///
    /// - throws: ``ProcessFailure`` with everything the child printed when there is no such line.
    public func lastWord(ofLineStartingWith prefix: String) throws -> String {
        guard let line = lines.first(where: { $0.hasPrefix(prefix) }), let word = line.split(separator: " ").last else {
            throw ProcessFailure("\(name) printed no line starting '\(prefix)'; it printed:\n\(output)\(errorOutput)")
        }
        return String(word)
    }

    /// Asks the child to stop (SIGTERM) and waits; kills it (SIGKILL) if it is still running after `grace` seconds.
    @discardableResult
    public func stop(grace: TimeInterval = 20) -> Termination {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(grace)
            while process.isRunning && Date() < deadline { usleep(10_000) }
        }
        return kill()
    }

    /// Kills the child (SIGKILL, like `kill -9`) if it is running, waits for it and reports how it ended.
    @discardableResult
    public func kill() -> Termination {
        if process.isRunning { sendSignal(process, SIGKILL) }
        process.waitUntilExit()
        watchdog.cancel()
        return process.terminationReason == .exit ? .exited(process.terminationStatus) : .signalled(process.terminationStatus)
    }

    private func waitUntilReady(_ readiness: Readiness, within limit: TimeInterval) throws {
        let deadline = Date().addingTimeInterval(limit)
        while true {
            let ready: Bool
            switch readiness {
            case .immediately: ready = true
            case .output(let condition): ready = condition(output)
            case .acceptsConnections(let port): ready = Ports.acceptsConnections(port: port)
            case .fileExists(let path): ready = FileManager.default.fileExists(atPath: path)
            }
            if ready { return }
            guard process.isRunning else {
                process.waitUntilExit()
                throw ProcessFailure("\(name) \(kill()) before it was ready; it printed:\n\(output)\(errorOutput)")
            }
            guard Date() < deadline else {
                let ended = kill()
                throw ProcessFailure("\(name) was not ready within \(Int(limit)) s and was killed (\(ended)); it printed:\n\(output)\(errorOutput)")
            }
            usleep(20_000)
        }
    }

    private static func read(_ url: URL) -> String {
        String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self)
    }
}

/// Sends `number` to the child (a free function: inside ``ServedProcess``, `kill` is the method).
private func sendSignal(_ process: Process, _ number: Int32) {
    kill(process.processIdentifier, number)
}

/// Loopback TCP ports for tests.
public enum Ports {
    /// A port the kernel just handed out (bound to 0 on 127.0.0.1, read back, released).
    public static func free() throws -> Int {
        guard let (fd, port) = boundSocket() else { throw ProcessFailure("cannot find a free port") }
        close(fd)
        return port
    }

    /// A port on 127.0.0.1 that refuses every connection until ``ClosedPort/release()``: bound and never listening, so
    /// no other test or process can take it between the test's choice and its connection (a port released by
    /// ``free()`` or by closing a listener can be handed to a parallel test at once, which then accepts).
    public static func closed() throws -> ClosedPort {
        guard let (fd, port) = boundSocket() else { throw ProcessFailure("cannot bind a port to hold closed") }
        return ClosedPort(descriptor: fd, port: port)
    }

    /// A TCP socket bound to a port the kernel chose on 127.0.0.1, not listening, and that port; nil when it cannot be.
    private static func boundSocket() -> (descriptor: Int32, port: Int)? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            return nil
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` now.
    public static func acceptsConnections(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// A loopback port held bound without listening (see ``Ports/closed()``): connecting to it is refused.
public struct ClosedPort: Sendable {
    let descriptor: Int32
    /// The port number.
    public let port: Int

    /// Frees the port.
    public func release() { close(descriptor) }
}
