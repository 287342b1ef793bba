import ArgumentParser
import Foundation
import PrintDocuments
import SOCPrint
import SystemKit
import Wire

/// `workbench bench sunfire`: uploads of the 46.6 MB converter stand-in with OpenSSH's own `sftp` and `scp -O`
/// clients, into Sunfire and into OpenSSH's `sshd` + `sftp-server` started privately on a spare port, in the same
/// run; Sunfire's peak memory meanwhile; and exec round trips per second on one connection, on both servers.
struct SunfireBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sunfire",
        abstract: "SFTP and SCP upload MB/s into Sunfire and into OpenSSH's sshd, Sunfire's peak RSS, exec round trips/s.",
        discussion: """
            Both servers are separate processes on loopback and get the same work: the same OpenSSH client command \
            (sftp -b with one put; scp -O), the same file, the same cipher (aes128-gcm@openssh.com, which both speak), \
            password login through sshpass, and a check afterwards that the whole file arrived (size on disk). Each \
            figure is the best of --rounds interleaved rounds and includes the client's connection set-up, as a user \
            would time it. Exec round trips run `true` on one connection with the SOC Print client's SSH connectivity, \
            like the app. OpenSSH's sshd needs root here (a throwaway account is created with useradd and removed). \
            Use a release build for figures.
            """
    )

    @Option(help: "Interleaved rounds; the best of each is reported.")
    var rounds = 3

    @Option(help: "Exec round trips per server.")
    var execs = 200

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @OptionGroup var check: BenchCheckOption

    func validate() throws {
        guard (1...20).contains(rounds) else { throw ValidationError("--rounds \(rounds): expected 1…20") }
        guard (1...100_000).contains(execs) else { throw ValidationError("--execs \(execs): expected 1…100000") }
    }

    func run() async throws {
        guard getuid() == 0 else {
            throw WorkbenchError("bench sunfire starts OpenSSH's sshd with a throwaway account (useradd): run it as root")
        }
        for tool in ["/usr/sbin/sshd", "/usr/bin/sftp", "/usr/bin/scp", "/usr/bin/sshpass", "/usr/sbin/useradd"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw WorkbenchError("\(tool) is missing: tools/setup.sh installs openssh-server, openssh-client and sshpass")
        }
        let folder = try BenchInterruption.workFolder("sunfire")
        defer { BenchInterruption.remove(folder) }
        let work = folder.path

        let jar = StandInJar.docsToPDF
        let upload = "\(work)/\(jar.fileName)"
        try Data(jar.bytes()).write(to: URL(fileURLWithPath: upload))
        let size = jar.size

        let ours = try ServedSunfire.start(state: "\(work)/sunfire")
        defer { ours.stop() }
        let peer = try PrivateSSHD.start(work: "\(work)/sshd")
        defer { peer.stop() }

        var best: [String: Double] = [:]
        for _ in 0..<rounds {
            for (name, server) in [("sunfire", ours.endpoint), ("openssh", peer.endpoint)] {
                let sftp = try Self.timed { try Self.sftpPut(upload, as: "bench-sftp.bin", to: server) }
                try server.checkReceived("bench-sftp.bin", size: size)
                let scp = try Self.timed { try Self.scpPut(upload, as: "bench-scp.bin", to: server) }
                try server.checkReceived("bench-scp.bin", size: size)
                best["\(name)-sftp"] = min(best["\(name)-sftp"] ?? .infinity, sftp)
                best["\(name)-scp"] = min(best["\(name)-scp"] ?? .infinity, scp)
            }
        }
        let peakRSS = ours.peakRSSMiB()

        let wire = LiveWire(threads: 1)
        let oursExec = try await Self.execsPerSecond(execs, at: ours.endpoint, on: wire.node("bench"))
        let peerExec = try await Self.execsPerSecond(execs, at: peer.endpoint, on: wire.node("bench"))
        try await wire.shutdown()

        let mb = Double(size) / 1_000_000
        let figures: [(String, Double)] = [
            ("sftp_upload_mb_per_s", mb / best["sunfire-sftp", default: .infinity]),
            ("openssh_sftp_upload_mb_per_s", mb / best["openssh-sftp", default: .infinity]),
            ("scp_upload_mb_per_s", mb / best["sunfire-scp", default: .infinity]),
            ("openssh_scp_upload_mb_per_s", mb / best["openssh-scp", default: .infinity]),
            ("peak_rss_mb", peakRSS),
            ("exec_per_second", oursExec),
            ("openssh_exec_per_second", peerExec),
        ]
        let sftpRatio = figures[0].1 / figures[1].1
        let scpRatio = figures[2].1 / figures[3].1
        if json {
            let fields =
                ["\"upload_bytes\":\(size)", "\"rounds\":\(rounds)", "\"cipher\":\"aes128-gcm@openssh.com\""]
                + figures.map { "\"\($0.0)\":\(Self.format($0.1))" }
                + ["\"sftp_ratio\":\(Self.format(sftpRatio))", "\"scp_ratio\":\(Self.format(scpRatio))"]
            print("{" + fields.joined(separator: ",") + "}")
        } else {
            print("Upload of \(jar.fileName) (\(size) bytes), best of \(rounds), OpenSSH 9 clients, aes128-gcm@openssh.com, loopback:")
            print(
                "  sftp -b put:  Sunfire \(Self.format(figures[0].1)) MB/s, OpenSSH sshd \(Self.format(figures[1].1)) MB/s → \(Self.format(sftpRatio))×"
            )
            print(
                "  scp -O:       Sunfire \(Self.format(figures[2].1)) MB/s, OpenSSH sshd \(Self.format(figures[3].1)) MB/s → \(Self.format(scpRatio))×"
            )
            print("  Sunfire peak RSS (VmHWM of workbench serve): \(Self.format(peakRSS)) MB")
            print("  exec round trips on one connection: Sunfire \(Self.format(oursExec))/s, OpenSSH sshd \(Self.format(peerExec))/s")
        }
        // No targets: the ratios to OpenSSH are shown, not held to a goal.
        try check.finish([])
    }

    static func timed(_ body: () throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        return try clock.measure(body).seconds
    }

    static let clientOptions = [
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
        "-o", "Ciphers=aes128-gcm@openssh.com", "-o", "PubkeyAuthentication=no",
        "-o", "PreferredAuthentications=password",
    ]

    static func sftpPut(_ file: String, as name: String, to server: SSHEndpoint) throws {
        let batch = file + ".batch"
        try "put \(file) \(name)\n".write(toFile: batch, atomically: true, encoding: .utf8)
        try Tool.run(
            "/usr/bin/sshpass",
            ["-e", "/usr/bin/sftp", "-q", "-o", "BatchMode=no", "-b", batch, "-P", String(server.port)] + clientOptions
                + ["\(server.user)@127.0.0.1"], environment: ["SSHPASS": server.password])
    }

    static func scpPut(_ file: String, as name: String, to server: SSHEndpoint) throws {
        try Tool.run(
            "/usr/bin/sshpass",
            ["-e", "/usr/bin/scp", "-O", "-q", "-P", String(server.port)] + clientOptions
                + [file, "\(server.user)@127.0.0.1:\(name)"], environment: ["SSHPASS": server.password])
    }

    /// `true` run `count` times, one exec channel each, on one connection — the app's pattern.
    static func execsPerSecond(_ count: Int, at server: SSHEndpoint, on node: Node) async throws -> Double {
        let connection = SSHConnectivity(host: "127.0.0.1", port: server.port, user: server.user, password: server.password, node: node)
        let state = await connection.connect()
        guard state.serverFound, state.authorised else { throw WorkbenchError("exec bench: cannot log in to 127.0.0.1:\(server.port)") }
        let clock = ContinuousClock()
        do {
            let elapsed = try await clock.measure {
                for index in 0..<count {
                    let result = try await connection.execute("true")
                    guard result.exitStatus == 0 else { throw WorkbenchError("exec \(index): true exited \(result.exitStatus): \(result.stderr)") }
                }
            }
            await connection.disconnect()
            return Double(count) / elapsed.seconds
        } catch {
            await connection.disconnect()
            throw error
        }
    }

    static func format(_ value: Double) -> String { String(format: value >= 100 ? "%.0f" : "%.2f", value) }
}

/// Where a benchmarked SSH server listens and how to log in; `home` is where uploads land on disk.
struct SSHEndpoint {
    let port: Int
    let user: String
    let password: String
    let home: String

    func checkReceived(_ name: String, size: Int) throws {
        let attributes = try? FileManager.default.attributesOfItem(atPath: "\(home)/\(name)")
        let received = (attributes?[.size] as? NSNumber)?.intValue ?? -1
        guard received == size else {
            throw WorkbenchError("upload to port \(port) left \(received) bytes of \(size) in \(home)/\(name)")
        }
        try? FileManager.default.removeItem(atPath: "\(home)/\(name)")
    }
}

/// `workbench serve --only sunfire` as its own process, homes on disk.
struct ServedSunfire {
    let served: Served
    let endpoint: SSHEndpoint

    static func start(state: String) throws -> ServedSunfire {
        let served = try Served.workbenchServe(
            [
                "--only", "sunfire", "--set", "sunfire.port=0", "--set", "sunfire.directory-port=none",
                // Uploads are removed from disk between rounds behind the host's back: no quota in the way.
                "--set", "sunfire.disk-quota=1000000000000",
                "--state-dir", state,
            ], ready: ["sunfire"])
        guard let line = served.announcement.url("sunfire", scheme: "ssh"), let url = URL(string: line), let port = url.port,
            let user = url.user, let password = url.password
        else {
            served.stop()
            throw WorkbenchError("no Sunfire URL in: \(served.announcement.listening)")
        }
        return ServedSunfire(
            served: Served(process: served.process, port: port, announcement: served.announcement),
            endpoint: SSHEndpoint(port: port, user: user, password: password, home: "\(state)/sunfire-homes/\(user)"))
    }

    func stop() { served.stop() }
    func peakRSSMiB() -> Double { served.peakRSSMiB() * 1024 * 1024 / 1_000_000 }
}

/// OpenSSH's sshd with sftp-server, on a spare loopback port, with its own config, the Sunfire host key and a
/// throwaway account — started for the bench and removed after it.
struct PrivateSSHD {
    let pidFile: String
    let endpoint: SSHEndpoint
    let user: String
    /// sshd daemonizes, so it is no child a bench's servers list holds: stopped through this if interrupted.
    let interruption: BenchInterruption.Token

    static func start(work: String) throws -> PrivateSSHD {
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        let hostKey = "\(work)/ssh_host_ed25519_key"
        try Tool.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey])
        // One account per sshd: two started by one process at once (a bench and a test) must not share one.
        let user = "wbssh\(getpid() % 100_000)n\(UInt32.random(in: 0...99_999))"
        let password = "bench-\(UInt64.random(in: 1 ... .max))"
        _ = try? Tool.run("/usr/sbin/userdel", ["-r", user])
        let pidFile = "\(work)/sshd.pid"
        let interruption = BenchInterruption.onInterruption { end(pidFile: pidFile, user: user) }
        try Tool.run("/usr/sbin/useradd", ["-m", "-s", "/bin/sh", user])
        try Tool.run("/usr/sbin/chpasswd", [], input: "\(user):\(password)\n")
        let port = try Served.freeLoopbackPort()
        let config = """
            ListenAddress 127.0.0.1
            Port \(port)
            HostKey \(hostKey)
            PidFile \(work)/sshd.pid
            PasswordAuthentication yes
            KbdInteractiveAuthentication no
            UsePAM no
            PermitRootLogin no
            AllowUsers \(user)
            Subsystem sftp /usr/lib/openssh/sftp-server
            """
        try config.write(toFile: "\(work)/sshd_config", atomically: true, encoding: .utf8)
        // sshd daemonizes (no -D): a long-lived Foundation child here would stall Process.waitUntilExit of the
        // tools run meanwhile (seen with swift-corelibs-foundation); it is stopped through its pid file.
        try Tool.run("/usr/sbin/sshd", ["-f", "\(work)/sshd_config"])
        let sshd = PrivateSSHD(
            pidFile: pidFile, endpoint: SSHEndpoint(port: port, user: user, password: password, home: "/home/\(user)"), user: user,
            interruption: interruption)
        for _ in 0..<100 {
            // bash's /dev/tcp opens a connection: sshd is up once it accepts one.
            if (try? Tool.run("/bin/bash", ["-c", "exec 3<>/dev/tcp/127.0.0.1/\(port)"])) != nil { return sshd }
            usleep(50_000)
        }
        sshd.stop()
        throw WorkbenchError("OpenSSH's sshd did not start on port \(port)")
    }

    func stop() {
        BenchInterruption.done(interruption)
        Self.end(pidFile: pidFile, user: user)
    }

    /// Stops sshd (through its pid file) and removes the throwaway account.
    private static func end(pidFile: String, user: String) {
        if let text = try? String(contentsOfFile: pidFile, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(pid, SIGTERM)
        }
        _ = try? Tool.run("/usr/sbin/userdel", ["-r", user])
    }
}

/// Runs a program to completion; a non-zero exit is an error that quotes what it printed.
enum Tool {
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = stdin
        try process.run()
        // Read stderr on its own thread: a chatty tool filling one pipe while we block on the other would hang.
        nonisolated(unsafe) var err = Data()
        let reading = DispatchGroup()
        DispatchQueue.global().async(group: reading) { err = errors.fileHandleForReading.readDataToEndOfFile() }
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try? stdin.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        reading.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw WorkbenchError(
                "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
                    + String(decoding: err + out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
