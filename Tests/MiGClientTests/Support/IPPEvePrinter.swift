import Foundation
import Synchronization
import TestSupport
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
    private let printer: ServedProcess
    private let dbus: ServedProcess

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
        let script =
            holdJobs
            ? "#!/bin/sh\nwhile [ ! -e '\(directory)/release' ] && [ -d '\(directory)' ]; do sleep 0.05; done\n"
            : "#!/bin/sh\nexit 0\n"
        try script.write(toFile: gate, atomically: true, encoding: .utf8)
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: gate)

        // ippeveprinter wants a system D-Bus even with DNS-SD off: give it a private one, in the foreground so
        // it is our child and stops with the test.
        let bus = directory + "/bus"
        dbus = try ServedProcess.start(
            "/usr/bin/dbus-daemon", ["--session", "--address=unix:path=\(bus)", "--nofork", "--nopidfile"],
            until: .fileExists(bus), readyWithin: 10)
        port = try Ports.free()
        // -k keeps spooled documents so tests can compare what the printer received.
        do {
            printer = try ServedProcess.start(
                "/usr/sbin/ippeveprinter",
                [
                    "-k", "-r", "off", "-n", "localhost", "-p", "\(port)", "-d", directory + "/spool", "-K", directory + "/keys",
                    "-c", gate, "-f", "application/pdf", "Workbench Test",
                ],
                environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(bus)"], until: .acceptsConnections(port: port), readyWithin: 10)
        } catch {
            dbus.kill()
            try? files.removeItem(atPath: directory)
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
        printer.kill()
        dbus.kill()
        try? FileManager.default.removeItem(atPath: directory)
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
