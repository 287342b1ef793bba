import Foundation

/// A server run as its own process for a benchmark (`bench mig`, `bench sunfire`, `bench load`).
struct Served {
    let process: Process
    let port: Int
    var helpers: [Process] = []
    /// What a `workbench serve` child announced before it was ready (empty for other servers).
    var announcement = ServeAnnouncement()

    /// SIGKILL: ippeveprinter may ignore SIGTERM while it holds a job, and nothing here needs a clean exit.
    func stop() {
        for process in [process] + helpers where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// What /proc tells about the server process (a Sendable value, for tasks that sample it meanwhile).
    var probe: ProcessProbe { ProcessProbe(pid: process.processIdentifier) }

    /// VmHWM: the most memory the process has had resident.
    func peakRSSMiB() -> Double { probe.peakRSSMiB() }

    /// Starts this executable as `workbench serve ARGUMENTS…` and reads its standard output until every kind in
    /// `ready` has announced a `listening` line (serve starts actors in the catalogue's order and prints each one's
    /// `note` lines before starting the next, so the notes of every actor before the last one named are in too).
    ///
    /// - parameter errors: where the child's standard error goes (default: nowhere).
    static func workbenchServe(_ arguments: [String], ready: [String], errors: FileHandle = .nullDevice) throws -> Served {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        process.arguments = ["serve"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        var text = ""
        var announcement = ServeAnnouncement()
        while !ready.allSatisfy({ kind in announcement.listening.contains { $0.kind == kind } }) || !text.hasSuffix("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                process.waitUntilExit()
                throw BenchError("workbench serve \(arguments.joined(separator: " ")) ended (status \(process.terminationStatus)) before announcing \(ready.joined(separator: ", ")): \(text)")
            }
            text += String(decoding: chunk, as: UTF8.self)
            announcement = ServeAnnouncement(text)
        }
        // Keep reading what serve prints afterwards (to nowhere): a full pipe would stop it mid-run.
        let rest = output.fileHandleForReading
        DispatchQueue.global().async { while !rest.availableData.isEmpty {} }
        return Served(process: process, port: 0, announcement: announcement)
    }

    /// `workbench serve --only mig` with a spool on disk, on a free port.
    static func mig(state: String, syncToDisk: Bool) throws -> Served {
        var served = try workbenchServe(["--only", "mig", "--set", "mig.tls-port=none", "--set", "mig.plain-port=0",
                                         "--set", "mig.sync-to-disk=\(syncToDisk)", "--state-dir", state], ready: ["mig"])
        guard let url = served.announcement.url("mig", scheme: "ipp"), let port = URLComponents(string: url)?.port else {
            served.stop()
            throw BenchError("no MiG ipp:// URL in: \(served.announcement.listening)")
        }
        served = Served(process: served.process, port: port, announcement: served.announcement)
        return served
    }

    /// ippeveprinter (one job at a time, `-c /bin/true` as its print command) with the private D-Bus it needs.
    static func ippeveprinter(state: String) throws -> Served {
        try FileManager.default.createDirectory(atPath: "\(state)/spool", withIntermediateDirectories: true)
        let socket = "\(state)/dbus.sock"
        let dbus = Process()
        dbus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        dbus.arguments = ["--session", "--nofork", "--address=unix:path=\(socket)"]
        dbus.standardOutput = FileHandle.nullDevice
        dbus.standardError = FileHandle.nullDevice
        try dbus.run()
        for _ in 0..<50 where !FileManager.default.fileExists(atPath: socket) { usleep(20_000) }
        let port = 20_000 + Int(getpid() % 20_000)
        let printer = Process()
        printer.executableURL = URL(fileURLWithPath: "/usr/sbin/ippeveprinter")
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(socket)"
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(socket)"
        printer.environment = environment
        printer.arguments = ["-n", "localhost", "-p", "\(port)", "-r", "off", "-d", "\(state)/spool", "-c", "/bin/true",
                             "-f", "application/pdf,application/octet-stream", "Bench Printer"]
        printer.standardOutput = FileHandle.nullDevice
        printer.standardError = FileHandle.nullDevice
        try printer.run()
        for _ in 0..<100 {
            if (try? shell("curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:\(port)/")) != "000" { break }
            usleep(50_000)
        }
        return Served(process: printer, port: port, helpers: [dbus])
    }

    /// Runs a shell command line; returns its standard output.
    static func shell(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A process's memory and descriptors, read from Linux's /proc.
struct ProcessProbe: Sendable {
    let pid: Int32

    /// VmHWM: the most memory the process has had resident.
    func peakRSSMiB() -> Double { statusKiB("VmHWM") / 1024 }

    /// VmRSS: the memory the process has resident now.
    func residentMiB() -> Double { statusKiB("VmRSS") / 1024 }

    /// How many file descriptors the process has open now (entries of /proc/PID/fd); nil when they cannot be
    /// read (the process ended, or this is not Linux).
    func openDescriptors() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// What the open descriptors point at, grouped: `socket`, `pipe`, `anon_inode:[eventfd]`, or a file's path with
    /// its digits as `N` (so a thousand spool files are one line), with how many of each.
    func descriptorKinds() -> [(String, Int)] {
        let directory = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var counts: [String: Int] = [:]
        for entry in entries {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(entry)") else { continue }
            let kind: String
            if target.hasPrefix("socket:") { kind = "socket" } else if target.hasPrefix("pipe:") { kind = "pipe" } else {
                // Each run of digits becomes one N.
                var collapsed = ""
                for character in target where !(character.isNumber && collapsed.last == "N") {
                    collapsed.append(character.isNumber ? "N" : character)
                }
                kind = collapsed
            }
            counts[kind, default: 0] += 1
        }
        return counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
    }

    /// A `… kB` line of /proc/PID/status, in KiB; 0 when it cannot be read.
    private func statusKiB(_ field: String) -> Double {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("\(field):") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
}

/// The `listening KIND URL` and `note KIND TEXT` lines `workbench serve` prints once its actors are up.
struct ServeAnnouncement {
    var listening: [(kind: String, url: String)] = []
    var notes: [(kind: String, text: String)] = []

    init() {}

    /// Parses serve's standard output; other lines are ignored.
    init(_ text: String) {
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard words.count == 3 else { continue }
            switch words[0] {
            case "listening": listening.append((words[1], words[2]))
            case "note": notes.append((words[1], words[2]))
            default: continue
            }
        }
    }

    /// The first URL `kind` listens on with this scheme (`ipp`, `http`, `ssh`…).
    func url(_ kind: String, scheme: String) -> String? {
        listening.first { $0.kind == kind && $0.url.hasPrefix("\(scheme)://") }?.url
    }

    /// The rest of `kind`'s first note that starts with `word` (e.g. `note ims-signer api-key KEY` → `KEY`).
    func note(_ kind: String, _ word: String) -> String? {
        notes.first { $0.kind == kind && $0.text.hasPrefix("\(word) ") }.map { String($0.text.dropFirst(word.count + 1)) }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
