import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A server run as its own process for a benchmark (a system's own bench, `bench load`).
package struct Served {
    package let process: Process
    package let port: Int
    package var helpers: [Process] = []
    /// What a `workbench serve` child announced before it was ready (empty for other servers).
    package var announcement = ServeAnnouncement()
    /// How `stop()` ends the server: SIGKILL by default (a bench needs no clean exit); a server that must stop its
    /// own children (a print scheduler's filters) gets SIGTERM.
    package var stopSignal = SIGKILL
    /// A directory `stop()` removes once the server has ended (the server's private configuration and spool).
    package var removeOnStop: String?

    package init(
        process: Process, port: Int, helpers: [Process] = [], announcement: ServeAnnouncement = ServeAnnouncement(), stopSignal: Int32 = SIGKILL,
        removeOnStop: String? = nil
    ) {
        self.process = process
        self.port = port
        self.helpers = helpers
        self.announcement = announcement
        self.stopSignal = stopSignal
        self.removeOnStop = removeOnStop
        Self.track([process] + helpers)
    }

    /// The servers' processes started and not yet stopped, by pid: an interrupted bench kills them.
    private static let running = Mutex<Set<Int32>>([])
    /// The cleanup that kills them, registered the first time a server starts (a static is made once, on first use).
    /// It waits (up to 5 s) until they have ended: a process SIGKILLed may still finish the system call it is in,
    /// and a file it creates then would keep its folder from being removed by the next cleanup.
    private static let killOnInterruption = BenchInterruption.onInterruption {
        let pids = running.withLock({ $0 })
        for pid in pids { kill(pid, SIGKILL) }
        for _ in 0..<100 where !pids.allSatisfy({ ProcessProbe(pid: $0).hasEnded }) { usleep(50_000) }
    }

    /// Kills `processes` if the bench is interrupted before ``stop()``: called as each is started (a bench may be
    /// interrupted while its server is still starting), and again by `init` (once more does nothing).
    package static func track(_ processes: [Process]) {
        _ = killOnInterruption
        // A process not started yet has pid 0, and kill(0, …) would be this process's whole group.
        running.withLock { $0.formUnion(processes.map(\.processIdentifier).filter { $0 > 0 }) }
    }

    package func stop() {
        Self.running.withLock { $0.subtract(([process] + helpers).map(\.processIdentifier)) }
        for process in [process] + helpers where process.isRunning {
            kill(process.processIdentifier, process === self.process ? stopSignal : SIGKILL)
            // A server that does not end on SIGTERM within 5 s is killed, so a bench never hangs here.
            for _ in 0..<100 where process.isRunning { usleep(50_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        if let removeOnStop { try? FileManager.default.removeItem(atPath: removeOnStop) }
    }

    /// What /proc tells about the server process (a Sendable value, for tasks that sample it meanwhile).
    package var probe: ProcessProbe { ProcessProbe(pid: process.processIdentifier) }

    /// VmHWM: the most memory the process has had resident.
    package func peakRSSMiB() -> Double { probe.peakRSSMiB() }

    /// Starts this executable as `workbench serve ARGUMENTS…` and reads its standard output until every kind in
    /// `ready` has announced a `listening` line (serve starts actors in the catalogue's order and prints each one's
    /// `note` lines before starting the next, so the notes of every actor before the last one named are in too).
    ///
    /// - parameter errors: where the child's standard error goes (default: nowhere).
    package static func workbenchServe(_ arguments: [String], ready: [String], errors: FileHandle = .nullDevice) throws -> Served {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        // --quiet: a bench measures the server, not its request log.
        process.arguments = ["serve", "--quiet"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        track([process])
        var text = ""
        var announcement = ServeAnnouncement()
        while !ready.allSatisfy({ kind in announcement.listening.contains { $0.kind == kind } }) || !text.hasSuffix("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                process.waitUntilExit()
                throw WorkbenchError(
                    "workbench serve \(arguments.joined(separator: " ")) ended (status \(process.terminationStatus)) before announcing \(ready.joined(separator: ", ")): \(text)"
                )
            }
            text += String(decoding: chunk, as: UTF8.self)
            announcement = ServeAnnouncement(text)
        }
        // Keep reading what serve prints afterwards (to nowhere): a full pipe would stop it mid-run.
        let rest = output.fileHandleForReading
        DispatchQueue.global().async { while !rest.availableData.isEmpty {} }
        return Served(process: process, port: 0, announcement: announcement)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick; closed again at once, so another
    /// program could take it before the server does — unlikely, and the server's start then fails loudly).
    package static func freeLoopbackPort() throws -> Int { try FreePort.pick(on: "127.0.0.1") }

    /// `env` arguments that start a C server with every signal unblocked and at its default action, as from a
    /// shell. A child of this process inherits the signal mask of the thread that spawns it, and Swift's threads
    /// block most signals: cupsd then never received SIGTERM (nor SIGCHLD when its filters ended) and had to be
    /// killed.
    package static let defaultSignals = ["--default-signal"]

    /// Runs a shell command line; returns its standard output.
    package static func shell(_ command: String) throws -> String {
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
package struct ProcessProbe: Sendable {
    package let pid: Int32

    /// VmHWM: the most memory the process has had resident.
    package func peakRSSMiB() -> Double { statusKiB("VmHWM") / 1024 }

    /// Whether the process is gone or a zombie (it has released its files; only its exit status is left to reap).
    package var hasEnded: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: end)...].dropFirst().hasPrefix("Z")
    }

    /// VmRSS: the memory the process has resident now.
    package func residentMiB() -> Double { statusKiB("VmRSS") / 1024 }

    /// How many file descriptors the process has open now (entries of /proc/PID/fd); nil when they cannot be
    /// read (the process ended, or this is not Linux).
    package func openDescriptors() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// What the open descriptors point at, grouped: `socket`, `pipe`, `anon_inode:[eventfd]`, or a file's path with
    /// its digits as `N` (so a thousand spool files are one line), with how many of each.
    package func descriptorKinds() -> [(String, Int)] {
        let directory = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var counts: [String: Int] = [:]
        for entry in entries {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(entry)") else { continue }
            let kind: String
            if target.hasPrefix("socket:") {
                kind = "socket"
            } else if target.hasPrefix("pipe:") {
                kind = "pipe"
            } else {
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

    /// CPU time the process has used so far, user and system, in seconds (utime + stime of /proc/PID/stat); 0 when
    /// it cannot be read.
    package func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return 0 }
        // After the command name (which may hold spaces, hence the last ')'): state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// A `… kB` line of /proc/PID/status, in KiB; 0 when it cannot be read.
    private func statusKiB(_ field: String) -> Double {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("\(field):") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    package init(pid: Int32) {
        self.pid = pid
    }
}

/// The `listening KIND URL` and `note KIND TEXT` lines `workbench serve` prints once its actors are up.
package struct ServeAnnouncement {
    package var listening: [(kind: String, url: String)] = []
    package var notes: [(kind: String, text: String)] = []

    package init() {}

    /// Parses serve's standard output; other lines are ignored.
    package init(_ text: String) {
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
    package func url(_ kind: String, scheme: String) -> String? {
        listening.first { $0.kind == kind && $0.url.hasPrefix("\(scheme)://") }?.url
    }

    /// The rest of `kind`'s first note that starts with `word` (e.g. `note KIND api-key KEY` → `KEY`).
    package func note(_ kind: String, _ word: String) -> String? {
        notes.first { $0.kind == kind && $0.text.hasPrefix("\(word) ") }.map { String($0.text.dropFirst(word.count + 1)) }
    }
}
