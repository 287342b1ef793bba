import Foundation
import IPP
#if canImport(Glibc)
import Glibc
#endif

/// A server run as its own process for a benchmark (`bench mig`, `bench sunfire`, `bench load`).
struct Served {
    let process: Process
    let port: Int
    var helpers: [Process] = []
    /// What a `workbench serve` child announced before it was ready (empty for other servers).
    var announcement = ServeAnnouncement()
    /// How `stop()` ends the server: SIGKILL by default (a bench needs no clean exit of MiG or ippeveprinter);
    /// cupsd gets SIGTERM, so it stops its filters itself.
    var stopSignal = SIGKILL
    /// A directory `stop()` removes once the server has ended (cupsd's private configuration and spool).
    var removeOnStop: String?

    func stop() {
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
        // --quiet: a bench measures the server, not its request log.
        process.arguments = ["serve", "--quiet"] + arguments
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
    ///
    /// - parameter fastestPrinter: the simulated printer at its top speed (100000 pages per minute, and a page
    ///   per GiB of document, so a job is one page of 0.6 ms) rather than the default 60 ppm.
    static func mig(state: String, syncToDisk: Bool, fastestPrinter: Bool = false) throws -> Served {
        let speed = fastestPrinter ? ["--set", "mig.ppm=100000", "--set", "mig.bytes-per-page=\(1 << 30)"] : []
        var served = try workbenchServe(["--only", "mig", "--set", "mig.tls-port=none", "--set", "mig.plain-port=0",
                                         "--set", "mig.sync-to-disk=\(syncToDisk)", "--state-dir", state] + speed, ready: ["mig"])
        guard let url = served.announcement.url("mig", scheme: "ipp"), let port = URLComponents(string: url)?.port else {
            served.stop()
            throw BenchError("no MiG ipp:// URL in: \(served.announcement.listening)")
        }
        served = Served(process: served.process, port: port, announcement: served.announcement)
        return served
    }

    /// ippeveprinter (one job at a time, `-c /bin/true` as its print command) with the private D-Bus it needs, on
    /// a free port.
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
        let port = try freeLoopbackPort()
        let printer = Process()
        printer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(socket)"
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(socket)"
        printer.environment = environment
        printer.arguments = defaultSignals + ["/usr/sbin/ippeveprinter", "-n", "localhost", "-p", "\(port)", "-r", "off", "-d", "\(state)/spool", "-c", "/bin/true",
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

    /// CUPS' scheduler, `cupsd -f`, as the current user with a private configuration in `state` (removed on
    /// stop), listening on 127.0.0.1 only, on a free port, with one raw queue `bench` (IPP resource
    /// `/printers/bench`) whose device is file:///dev/null. Nothing is shared with a system cupsd the
    /// cups-daemon package may have started: not the port, the configuration, the spool, the logs nor the
    /// local socket (none is configured).
    ///
    /// How fast its printer is: a raw queue converts nothing, but cupsd still runs one filter per job (CUPS'
    /// `gziptoany`, which Debian ships in cups-core-drivers, not in cups-daemon); the private ServerBin points
    /// it at /bin/true, like ippeveprinter's print command here, so a job costs cupsd one fork and exec.
    /// Completed jobs stay in the history (PreserveJobHistory) so Get-Job-Attributes reports them, and there
    /// is no limit on the number of jobs (MaxJobs 0, MaxJobsPerUser 0).
    ///
    /// - parameter driverless: for a client that makes its own queues (`lpadmin -m everywhere`): no `bench` queue, the
    ///   system's real filters (cups-filters-core-drivers' pdftopdf turns a PDF into what such a queue sends), and a
    ///   debug log, since cupsd reports a queue it could not make only there. Ready once it accepts connections.
    static func cupsd(state: String, driverless: Bool = false) throws -> Served {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/cupsd") else {
            throw BenchError("/usr/sbin/cupsd is missing: install cups-daemon (tools/setup.sh does)")
        }
        let files = FileManager.default
        for directory in ["spool/tmp", "cache", "run", "bin/filter", "ppd"] {
            try files.createDirectory(atPath: "\(state)/\(directory)", withIntermediateDirectories: true)
        }
        // cupsd execs filters through ServerBin/daemon/cups-exec and looks for backends and notifiers there too.
        for link in ["daemon", "backend", "notifier"] {
            try files.createSymbolicLink(atPath: "\(state)/bin/\(link)", withDestinationPath: "/usr/lib/cups/\(link)")
        }
        if driverless {
            for filter in (try? files.contentsOfDirectory(atPath: "/usr/lib/cups/filter")) ?? [] {
                try files.createSymbolicLink(atPath: "\(state)/bin/filter/\(filter)", withDestinationPath: "/usr/lib/cups/filter/\(filter)")
            }
        } else {
            try files.createSymbolicLink(atPath: "\(state)/bin/filter/gziptoany", withDestinationPath: "/bin/true")
        }
        // cupsd wants SystemGroup to name a group; the current user's own works as root and as anyone else.
        // (Run as root, cupsd runs filters as lp, Debian's default User; run as anyone else, as that user.)
        let group = getgrgid(getgid()).flatMap { $0.pointee.gr_name.map { String(cString: $0) } } ?? "root"
        let port = try freeLoopbackPort()
        try """
            ServerRoot \(state)
            RequestRoot \(state)/spool
            TempDir \(state)/spool/tmp
            CacheDir \(state)/cache
            StateDir \(state)/run
            ServerBin \(state)/bin
            DataDir /usr/share/cups
            ErrorLog \(state)/error_log
            AccessLog \(state)/access_log
            PageLog \(state)/page_log
            SystemGroup \(group)
            # file: device URIs (file:///dev/null) are refused unless allowed here.
            FileDevice Yes
            Sandboxing relaxed

            """.write(toFile: "\(state)/cups-files.conf", atomically: true, encoding: .utf8)
        try """
            Listen 127.0.0.1:\(port)
            Browsing No
            BrowseLocalProtocols none
            WebInterface No
            LogLevel \(driverless ? "debug" : "warn")
            MaxJobs 0
            MaxJobsPerUser 0
            MaxJobsPerPrinter 0
            PreserveJobHistory Yes
            PreserveJobFiles No
            MaxClients 1000
            MaxClientsPerHost 1000
            DefaultAuthType None
            <Location />
              Order allow,deny
              Allow all
            </Location>
            <Policy default>
              JobPrivateAccess all
              JobPrivateValues none
              SubscriptionPrivateAccess all
              SubscriptionPrivateValues none
              <Limit All>
                Order deny,allow
              </Limit>
            </Policy>

            """.write(toFile: "\(state)/cupsd.conf", atomically: true, encoding: .utf8)
        // The queue, as `lpadmin -p bench -E -v file:///dev/null -m raw` would save it (lpadmin is in cups-client,
        // one more package for nothing cupsd cannot read itself). No PPD in ppd/: a raw queue.
        if !driverless {
            try """
            <Printer bench>
            Info Workbench bench queue
            State Idle
            Accepting Yes
            Shared No
            DeviceURI file:///dev/null
            OpPolicy default
            ErrorPolicy abort-job
            </Printer>

            """.write(toFile: "\(state)/printers.conf", atomically: true, encoding: .utf8)
        }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = defaultSignals + ["/usr/sbin/cupsd", "-f", "-c", "\(state)/cupsd.conf", "-s", "\(state)/cups-files.conf"]
        // Debian's cupsd sends job events to the system D-Bus when there is one; this one talks to no bus.
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(state)/no-bus"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let served = Served(process: process, port: port, stopSignal: SIGTERM, removeOnStop: state)
        // Ready once the queue answers Get-Printer-Attributes with printer-is-accepting-jobs true (without a queue: once
        // cupsd answers in IPP at all).
        let resource = driverless ? "/" : "/printers/bench"
        let request = IPPMessage.request(.getPrinterAttributes, requestID: 1) { op in
            op.addPrinterURI("ipp://127.0.0.1:\(port)\(resource)")
            op.addRequestedAttributes(["printer-is-accepting-jobs", "printer-state"])
        }
        try Data(try IPPEncoder().encode(request)).write(to: URL(fileURLWithPath: "\(state)/ready.ipp"))
        for _ in 0..<200 {
            guard process.isRunning else { break }
            _ = try shell("curl -s -o '\(state)/ready.answer' -H 'Content-Type: application/ipp' --data-binary @'\(state)/ready.ipp' "
                          + "http://127.0.0.1:\(port)\(resource)")
            if let answer = try? IPPDecoder().decode(Array(Data(contentsOf: URL(fileURLWithPath: "\(state)/ready.answer")))),
               driverless || answer.group(.printer)?["printer-is-accepting-jobs"]?.booleanValue == true {
                return served
            }
            usleep(50_000)
        }
        let log = (try? String(contentsOfFile: "\(state)/error_log", encoding: .utf8)) ?? ""
        served.stop()
        throw BenchError("cupsd on port \(port) did not accept jobs within 10 s (\(process.isRunning ? "running" : "ended")); its error_log: \(log)")
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick; closed again at once, so another
    /// program could take it before the server does — unlikely, and the server's start then fails loudly).
    static func freeLoopbackPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("socket(): errno \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("bind(127.0.0.1:0): errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `env` arguments that start a C server with every signal unblocked and at its default action, as from a
    /// shell. A child of this process inherits the signal mask of the thread that spawns it, and Swift's threads
    /// block most signals: cupsd then never received SIGTERM (nor SIGCHLD when its filters ended) and had to be
    /// killed.
    static let defaultSignals = ["--default-signal"]

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
