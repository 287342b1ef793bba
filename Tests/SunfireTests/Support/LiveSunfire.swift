import Foundation
import MySoc
import Sunfire
import SunfireHost
import TestSupport
import Wire

/// Sunfire (and mysoc) on real loopback sockets with homes on disk, for real OpenSSH, curl and poppler tools.
final class LiveSunfire: @unchecked Sendable {
    // @unchecked Sendable: set up once, then only read.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let user = "demo", password = "demo-password"

    let wire: LiveWire
    let sunfire: Sunfire
    let mysoc: MySoc?
    let homes: URL
    let work: URL

    var port: Int { sunfire.sshPort }
    var home: URL { homes.appendingPathComponent(Self.user) }

    static func fixture(_ path: String) -> String { repository.appendingPathComponent("Fixtures/\(path)").path }

    /// - parameters:
    ///   - tracer: sees the actors' trace events (live, from whichever thread records them).
    ///   - makeHome: makes the users' homes instead of folders under `homes` (see ``Sunfire/Configuration/makeHome``).
    static func start(
        whitelist: [String]? = nil, mysoc withSite: Bool = false, tracer: any TraceSink = DiscardingTraceSink(),
        makeHome: Sunfire.Configuration.HomeMaker? = nil
    ) async throws -> LiveSunfire {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("sunfire-live-\(UUID().uuidString)")
        let homes = work.appendingPathComponent("homes")
        try FileManager.default.createDirectory(at: homes, withIntermediateDirectories: true)
        let wire = LiveWire(seed: 1, threads: 2, tracer: tracer)
        var configuration = Sunfire.Configuration(hostKey: try OpenSSHHostKey(file: fixture("sunfire/ssh_host_ed25519_key")))
        configuration.port = 0
        configuration.directoryPort = 0
        configuration.homesDirectory = homes.path
        configuration.makeHome = makeHome
        if let whitelist { configuration.whitelist = try whitelist.map { try AddressRange($0) } }
        let sunfire = try await Sunfire.start(on: wire.node("sunfire"), configuration: configuration)
        var site: MySoc?
        if withSite, let directory = sunfire.directoryURL, let port = URL(string: directory)?.port {
            var siteConfiguration = MySoc.Configuration(
                certificatePath: fixture("tls/server.pem"), privateKeyPath: fixture("tls/server.key"),
                directoryToken: configuration.directoryToken)
            siteConfiguration.port = 0
            siteConfiguration.directoryHost = "127.0.0.1"
            siteConfiguration.directoryPort = port
            site = try await MySoc.start(on: wire.node("mysoc"), configuration: siteConfiguration)
        }
        return LiveSunfire(wire: wire, sunfire: sunfire, mysoc: site, homes: homes, work: work)
    }

    private init(wire: LiveWire, sunfire: Sunfire, mysoc: MySoc?, homes: URL, work: URL) {
        self.wire = wire
        self.sunfire = sunfire
        self.mysoc = mysoc
        self.homes = homes
        self.work = work
    }

    func stop() async throws {
        try await mysoc?.stop()
        try await sunfire.stop()
        try await wire.shutdown()
        try? FileManager.default.removeItem(at: work)
    }

    /// A known_hosts file holding Sunfire's key for this port, so OpenSSH checks the host key for real.
    func knownHosts() throws -> String {
        let path = work.appendingPathComponent("known_hosts").path
        try "[127.0.0.1]:\(port) \(sunfire.hostKey.publicKeyLine)\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func sshOptions() throws -> [String] {
        [
            "-o", "UserKnownHostsFile=\(try knownHosts())", "-o", "StrictHostKeyChecking=yes", "-o", "LogLevel=ERROR",
            "-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password", "-o", "ConnectTimeout=10",
        ]
    }

    /// `sshpass -e ssh -p PORT demo@127.0.0.1 COMMAND`.
    func ssh(_ command: String, password: String = LiveSunfire.password) throws -> ExternalProcess.Result {
        try ExternalProcess.run(
            "/usr/bin/sshpass", ["-e", "/usr/bin/ssh", "-p", String(port)] + sshOptions() + ["\(Self.user)@127.0.0.1", command],
            environment: ["SSHPASS": password])
    }

    func sftp(batch: String) throws -> ExternalProcess.Result {
        let file = work.appendingPathComponent("batch-\(UUID().uuidString)").path
        try batch.write(toFile: file, atomically: true, encoding: .utf8)
        return try ExternalProcess.run(
            "/usr/bin/sshpass",
            ["-e", "/usr/bin/sftp", "-o", "BatchMode=no", "-b", file, "-P", String(port)] + sshOptions()
                + ["\(Self.user)@127.0.0.1"], environment: ["SSHPASS": Self.password], timeout: 120)
    }

    func scp(_ arguments: [String]) throws -> ExternalProcess.Result {
        try ExternalProcess.run(
            "/usr/bin/sshpass", ["-e", "/usr/bin/scp", "-P", String(port)] + sshOptions() + arguments,
            environment: ["SSHPASS": Self.password], timeout: 120)
    }
}
