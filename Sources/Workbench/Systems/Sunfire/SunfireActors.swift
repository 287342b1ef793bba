import Foundation
import MySoc
import Scenario
import Sunfire
import SunfireHost
import Wire

extension ActorKind {
    static let sunfire = ActorKind(
        name: "sunfire",
        summary: "NUS SOC Print's SSH print host: exec into its shell, SCP, SFTP, lpd queues (port 22), account directory (8389)",
        defaultHost: "sunfire",
        options: [("port", "SSH port (default 22)"), ("host-key", "OpenSSH ed25519 key file under Fixtures/ (default sunfire/ssh_host_ed25519_key)"),
                  ("whitelist", "comma-separated networks allowed to connect (default 10.0.0.0/8,127.0.0.0/8,::1/128)"),
                  ("max-auth-tries", "password failures before a connection is dropped (default 6)"),
                  ("printers", "comma-separated printers besides the app's twelve, e.g. psc115"),
                  ("ppm", "printing speed in pages per minute (default 30)"),
                  ("disk-quota", "each user's disk quota in bytes (default 200000000)"),
                  ("print-quota", "each user's PS-printer quota in sheets (default 100)"),
                  ("homes", "directory for the users' homes (default: in memory)"),
                  ("directory-port", "port of the account directory mysoc asks (default 8389; none for none)"),
                  ("directory-token", "bearer token mysoc must present to the directory")]
    ) { node, options in
        let keyFile = try Fixtures.path(options["host-key"] ?? "sunfire/ssh_host_ed25519_key")
        let hostKey: OpenSSHHostKey
        do { hostKey = try OpenSSHHostKey(file: keyFile) } catch { throw CatalogError("option host-key: \(error)") }
        var host = HostConfiguration()
        if let printers = options["printers"] {
            host.extraPrinters = try printers.split(separator: ",").map { name in
                guard !name.isEmpty, name.count <= 32, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                    throw CatalogError("option printers=\(printers): expected printer names of letters, digits, '-' and '_'")
                }
                return String(name)
            }
        }
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
        if let whitelist = options["whitelist"] {
            do {
                configuration.whitelist = try whitelist.split(separator: ",").map { try AddressRange(String($0)) }
            } catch {
                throw CatalogError("option whitelist=\(whitelist): \(error)")
            }
        }
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
        options: [("port", "HTTPS port (default 443)"), ("directory", "the account directory HOST:PORT (default sunfire:8389)"),
                  ("directory-token", "bearer token to present to the directory")]
    ) { node, options in
        var configuration = MySoc.Configuration(certificatePath: try Fixtures.path("tls/server.pem"), privateKeyPath: try Fixtures.path("tls/server.key"),
                                                directoryToken: options["directory-token"] ?? Sunfire.Configuration.defaultDirectoryToken)
        if let port = options["port"] { configuration.port = try parsePort(port, "port") }
        if let directory = options["directory"] {
            let parts = directory.split(separator: ":").map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else { throw CatalogError("option directory=\(directory): expected HOST:PORT") }
            configuration.directoryHost = parts[0]
            configuration.directoryPort = try parsePort(parts[1], "directory")
        }
        return RunningMySoc(site: try await MySoc.start(on: node, configuration: configuration))
    }
}

struct RunningSunfire: RunningActor {
    let sunfire: Sunfire

    var endpoints: [(label: String, url: String)] {
        [("ssh", sunfire.sshURL)] + (sunfire.directoryURL.map { [("directory", $0)] } ?? [])
    }

    var notes: [String] {
        let known = sunfire.sshPort == 22 ? sunfire.sshHost : "[\(sunfire.sshHost)]:\(sunfire.sshPort)"
        return ["host-key \(sunfire.hostKey.fingerprint)",
                "known_hosts \(known) \(sunfire.hostKey.publicKeyLine)",
                "try sshpass -p demo-password ssh -p \(sunfire.sshPort) -o StrictHostKeyChecking=accept-new demo@\(sunfire.sshHost) lpq -P psts"]
    }

    func stop() async throws { try await sunfire.stop() }
}

struct RunningMySoc: RunningActor {
    let site: MySoc
    var endpoints: [(label: String, url: String)] { [("https", site.loginURL)] }
    var notes: [String] { ["quota: curl --cacert \(Fixtures.notePath("tls/ca.pem")) --data-binary 'destination=/~eprint/forms/quota.php&credential_0=demo&credential_1=demo-password&AuthType=AuthDBICookieHandler&AuthName=mysoc' \(site.loginURL.replacingOccurrences(of: "127.0.0.1", with: "localhost"))"] }
    func stop() async throws { try await site.stop() }
}
