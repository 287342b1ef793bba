import Foundation
import MySoc
import Scenario
import Sunfire
import SunfireHost
import SystemKit
import Wire

extension ActorKind {
    static let sunfire = ActorKind(
        name: "sunfire",
        summary: "NUS SOC Print's SSH print host: exec into its shell, SCP, SFTP, lpd queues (port 22), account directory (8389)",
        defaultHost: "sunfire",
        targetSchemes: ["ssh": 22], targetExample: "ssh://demo:demo-password@127.0.0.1:2222",
        options: [
            .port("port", "SSH port (default 22)"),
            .parsed("host-key", "OpenSSH ed25519 key file under Fixtures/ (default sunfire/ssh_host_ed25519_key)") {
                _ = try readableFile("Fixtures/" + $0, "host-key")
            },
            .parsed("whitelist", "comma-separated networks allowed to connect (default 10.0.0.0/8,127.0.0.0/8,::1/128)") {
                _ = try parseWhitelist($0)
            },
            .number("max-auth-tries", "password failures before a connection is dropped (default 6)", 1...100),
            .parsed("printers", "comma-separated printers besides the app's twelve, e.g. psc115") { _ = try parsePrinters($0) },
            .number("ppm", "printing speed in pages per minute (default 30)", 1...10_000),
            .number("disk-quota", "each user's disk quota in bytes (default 200000000)", 1...1_000_000_000_000),
            .number("print-quota", "each user's PS-printer quota in sheets (default 100)", 0...1_000_000),
            .creatable("homes", "directory for the users' homes (default: in memory)"),
            .port("directory-port", "port of the account directory mysoc asks (default 8389; none for none)", orNone: true),
            .text("directory-token", "bearer token mysoc must present to the directory"),
        ],
        faultPoints: UnixHost.faultPoints
    ) { node, options in
        let keyFile = try Fixtures.path(options["host-key"] ?? "sunfire/ssh_host_ed25519_key")
        let hostKey: OpenSSHHostKey
        do { hostKey = try OpenSSHHostKey(file: keyFile) } catch { throw WorkbenchError("option host-key: \(error)") }
        var host = HostConfiguration()
        if let printers = options["printers"] { host.extraPrinters = try parsePrinters(printers) }
        if let ppm = options["ppm"] { host.pagesPerMinute = try parseBounded(ppm, "ppm", 1...10_000) }
        let diskQuota = try options["disk-quota"].map { Int64(try parseBounded($0, "disk-quota", 1...1_000_000_000_000)) }
        let printQuota = try options["print-quota"].map { try parseBounded($0, "print-quota", 0...1_000_000) }
        host.accounts = host.accounts.map { account in
            var account = account
            if let diskQuota { account.diskQuotaBytes = diskQuota }
            if let printQuota { account.printQuota[.postScript] = printQuota }
            return account
        }
        var configuration = Sunfire.Configuration(hostKey: hostKey, host: host)
        if let port = options["port"] { configuration.port = try parsePort(port, "port") }
        if let whitelist = options["whitelist"] { configuration.whitelist = try parseWhitelist(whitelist) }
        if let tries = options["max-auth-tries"] { configuration.maximumAuthenticationTries = try parseBounded(tries, "max-auth-tries", 1...100) }
        if let homes = options["homes"] {
            try FileManager.default.createDirectory(atPath: homes, withIntermediateDirectories: true)
            configuration.homesDirectory = homes
        }
        if options["directory-port"] != nil { configuration.directoryPort = try parseOptionalPort(options["directory-port"], "directory-port") }
        if let token = options["directory-token"] { configuration.directoryToken = token }
        return RunningSunfire(sunfire: try await Sunfire.start(on: node, configuration: configuration))
    }

    static let mysoc = ActorKind(
        name: "mysoc",
        summary: "mysoc, the SoC site with the print-quota page: POST /images/LOGIN over HTTPS (port 443), asks sunfire's directory",
        defaultHost: "mysoc",
        options: [
            .port("port", "HTTPS port (default 443)"), .endpoint("directory", "the account directory HOST:PORT (default sunfire:8389)"),
            .text("directory-token", "bearer token to present to the directory"),
        ],
        faultPoints: [MySoc.unavailableFault]
    ) { node, options in
        var configuration = MySoc.Configuration(
            certificatePath: try Fixtures.path("tls/server.pem"), privateKeyPath: try Fixtures.path("tls/server.key"),
            directoryToken: options["directory-token"] ?? Sunfire.Configuration.defaultDirectoryToken)
        if let port = options["port"] { configuration.port = try parsePort(port, "port") }
        if let directory = options["directory"] {
            (configuration.directoryHost, configuration.directoryPort) = try parseEndpoint(directory, "directory")
        }
        return RunningMySoc(site: try await MySoc.start(on: node, configuration: configuration))
    }
}

extension ActorKind {
    /// `printers=a,b`: names of letters, digits, '-' and '_', at most 32 characters each.
    static func parsePrinters(_ text: String) throws -> [String] {
        try text.split(separator: ",", omittingEmptySubsequences: false).map { name in
            guard !name.isEmpty, name.count <= 32, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw WorkbenchError("option printers=\(text): expected printer names of letters, digits, '-' and '_'")
            }
            return String(name)
        }
    }

    /// `whitelist=NET,NET`: networks such as 10.0.0.0/8.
    static func parseWhitelist(_ text: String) throws -> [AddressRange] {
        do { return try text.split(separator: ",").map { try AddressRange(String($0)) } } catch {
            throw WorkbenchError("option whitelist=\(text): \(error)")
        }
    }
}

struct RunningSunfire: RunningActor {
    let sunfire: Sunfire

    var endpoints: [(label: String, url: String)] {
        [("ssh", sunfire.sshURL)] + (sunfire.directoryURL.map { [("directory", $0)] } ?? [])
    }

    var notes: [String] {
        let known = sunfire.sshPort == 22 ? sunfire.sshHost : "[\(sunfire.sshHost)]:\(sunfire.sshPort)"
        return [
            "host-key \(sunfire.hostKey.fingerprint)",
            "known_hosts \(known) \(sunfire.hostKey.publicKeyLine)",
            "try sshpass -p demo-password ssh -p \(sunfire.sshPort) -o StrictHostKeyChecking=accept-new demo@\(sunfire.sshHost) lpq -P psts",
        ]
    }

    func stop() async throws { try await sunfire.stop() }
}

struct RunningMySoc: RunningActor {
    let site: MySoc
    var endpoints: [(label: String, url: String)] { [("https", site.loginURL)] }
    var notes: [String] {
        [
            "quota: curl --cacert \(Fixtures.notePath("tls/ca.pem")) --data-binary 'destination=/~eprint/forms/quota.php&credential_0=demo&credential_1=demo-password&AuthType=AuthDBICookieHandler&AuthName=mysoc' \(site.loginURL.replacingOccurrences(of: "127.0.0.1", with: "localhost"))"
        ]
    }
    func stop() async throws { try await site.stop() }
}
