import Foundation
import Synchronization
import Wire
#if canImport(Glibc)
import Glibc
#endif

/// A real CUPS `ippeveprinter` (the IPP Everywhere reference printer) in a private directory, with the private
/// D-Bus it needs to start. Jobs run `gate.sh`, which holds each job in `processing` until `release()` is called,
/// so tests can see a busy printer and cancel a running job without depending on timing.
final class IPPEvePrinter {
    enum Certificate {
        /// `-K keys` with the test server certificate (`Fixtures/tls/server.pem`, SAN localhost) as `localhost.crt`.
        case testCA
        /// `-K keys` left empty: ippeveprinter makes its own self-signed certificate.
        case selfSigned
    }

    let directory: String
    let port: Int
    private let printer: Process
    private let dbus: Process

    init(certificate: Certificate = .testCA, holdJobs: Bool = false) throws {
        for tool in ["/usr/sbin/ippeveprinter", "/usr/bin/dbus-daemon"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw InteropError("\(tool) is missing: run tools/setup.sh (it installs cups-ipp-utils and dbus)")
        }
        directory = NSTemporaryDirectory() + "migclient-ippeve-\(getpid())-\(UUID().uuidString.prefix(8))"
        let files = FileManager.default
        try files.createDirectory(atPath: directory + "/spool", withIntermediateDirectories: true)
        try files.createDirectory(atPath: directory + "/keys", withIntermediateDirectories: true)
        if case .testCA = certificate {
            try files.copyItem(atPath: RepositoryPaths.tls("server.pem"), toPath: directory + "/keys/localhost.crt")
            try files.copyItem(atPath: RepositoryPaths.tls("server.key"), toPath: directory + "/keys/localhost.key")
        }
        let gate = directory + "/gate.sh"
        // The gate also ends when the directory is gone, so no job process outlives the test.
        let script = holdJobs
            ? "#!/bin/sh\nwhile [ ! -e '\(directory)/release' ] && [ -d '\(directory)' ]; do sleep 0.05; done\n"
            : "#!/bin/sh\nexit 0\n"
        try script.write(toFile: gate, atomically: true, encoding: .utf8)
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: gate)

        // ippeveprinter wants a system D-Bus even with DNS-SD off: give it a private one, in the foreground so
        // it is our child and stops with the test.
        let bus = directory + "/bus"
        dbus = Process()
        dbus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        dbus.arguments = ["--session", "--address=unix:path=\(bus)", "--nofork", "--nopidfile"]
        dbus.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        dbus.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try dbus.run()
        for _ in 0..<200 where !files.fileExists(atPath: bus) { usleep(25_000) }

        port = try Self.freePort()
        printer = Process()
        printer.executableURL = URL(fileURLWithPath: "/usr/sbin/ippeveprinter")
        // -k keeps spooled documents so tests can compare what the printer received.
        printer.arguments = ["-k", "-r", "off", "-n", "localhost", "-p", "\(port)", "-d", directory + "/spool", "-K", directory + "/keys",
                             "-c", gate, "-f", "application/pdf", "Workbench Test"]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(bus)"
        printer.environment = environment
        printer.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        printer.standardError = FileHandle(forWritingAtPath: "/dev/null")
        do {
            try printer.run()
        } catch {
            kill(dbus.processIdentifier, SIGKILL)
            throw error
        }
        do {
            try waitUntilListening()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// Lets every held job (and all later ones) finish.
    func release() { Self.release(directory: directory) }

    static func release(directory: String) {
        _ = FileManager.default.createFile(atPath: directory + "/release", contents: nil)  // fails only once the directory is gone
    }

    /// The documents ippeveprinter spooled (decompressed), by file name.
    func spooledDocuments() throws -> [String: [UInt8]] {
        let spool = directory + "/spool"
        var documents: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: spool) {
            documents[name] = Array(FileManager.default.contents(atPath: spool + "/" + name) ?? Data())
        }
        return documents
    }

    func stop() {
        release()  // a held gate.sh polls for this file and exits
        // SIGKILL: the test runner's threads block SIGTERM, and spawned children inherit that mask.
        for process in [printer, dbus] where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func waitUntilListening() throws {
        for _ in 0..<200 {
            if Self.canConnect(port: port) { return }
            guard printer.isRunning else { throw InteropError("ippeveprinter exited with status \(printer.terminationStatus)") }
            usleep(50_000)
        }
        throw InteropError("ippeveprinter did not listen on port \(port) within 10 s")
    }

    private static func canConnect(port: Int) -> Bool {
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

    /// A port the kernel just handed out (bound to 0, read back, released).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw InteropError("cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

struct InteropError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A live-wire trace sink the tests read (the client's trace events: retries, job states).
final class RecordingTraceSink: TraceSink {
    private let storage = Mutex<[(event: String, fields: [(String, String)])]>([])
    private let onEvent: @Sendable (String) -> Void

    init(onEvent: @escaping @Sendable (String) -> Void = { _ in }) { self.onEvent = onEvent }

    func record(actor: String, event: String, fields: [(String, String)]) {
        storage.withLock { $0.append((event, fields)) }
        onEvent(event)
    }

    var events: [String] { storage.withLock { $0.map(\.event) } }
}
