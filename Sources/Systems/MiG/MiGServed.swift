import Foundation
import IPP
import SystemKit

#if canImport(Glibc)
    import Glibc
#endif

/// The servers `bench mig` (and the CUPS interop tests) start: MiG served on its own, and its peers cupsd and
/// ippeveprinter.
extension Served {
    /// `workbench serve --only mig` with a spool on disk, on a free port, keeping every job (max-jobs=0, as the
    /// bench's cupsd, which has no job limits).
    ///
    /// - parameter fastestPrinter: the simulated printer at its top speed (100000 pages per minute, and a page
    ///   per GiB of document, so a job is one page of 0.6 ms) rather than the default 60 ppm.
    static func mig(state: String, syncToDisk: Bool, fastestPrinter: Bool = false) throws -> Served {
        let speed = fastestPrinter ? ["--set", "mig.ppm=100000", "--set", "mig.bytes-per-page=\(1 << 30)"] : []
        var served = try workbenchServe(
            [
                "--only", "mig", "--set", "mig.tls-port=none", "--set", "mig.plain-port=0",
                "--set", "mig.sync-to-disk=\(syncToDisk)", "--set", "mig.max-jobs=0", "--state-dir", state,
            ] + speed, ready: ["mig"])
        guard let url = served.announcement.url("mig", scheme: "ipp"), let port = URLComponents(string: url)?.port else {
            served.stop()
            throw WorkbenchError("no MiG ipp:// URL in: \(served.announcement.listening)")
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
        track([dbus])
        for _ in 0..<50 where !FileManager.default.fileExists(atPath: socket) { usleep(20_000) }
        let port = try freeLoopbackPort()
        let printer = Process()
        printer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(socket)"
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(socket)"
        printer.environment = environment
        printer.arguments =
            defaultSignals + [
                "/usr/sbin/ippeveprinter", "-n", "localhost", "-p", "\(port)", "-r", "off", "-d", "\(state)/spool", "-c", "/bin/true",
                "-f", "application/pdf,application/octet-stream", "Bench Printer",
            ]
        printer.standardOutput = FileHandle.nullDevice
        printer.standardError = FileHandle.nullDevice
        try printer.run()
        track([printer])
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
            throw WorkbenchError("/usr/sbin/cupsd is missing: install cups-daemon (tools/setup.sh does)")
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
            _ = try shell(
                "curl -s -o '\(state)/ready.answer' -H 'Content-Type: application/ipp' --data-binary @'\(state)/ready.ipp' "
                    + "http://127.0.0.1:\(port)\(resource)")
            if let answer = try? IPPDecoder().decode(Array(Data(contentsOf: URL(fileURLWithPath: "\(state)/ready.answer")))),
                driverless || answer.group(.printer)?["printer-is-accepting-jobs"]?.booleanValue == true
            {
                return served
            }
            usleep(50_000)
        }
        let log = (try? String(contentsOfFile: "\(state)/error_log", encoding: .utf8)) ?? ""
        served.stop()
        throw WorkbenchError(
            "cupsd on port \(port) did not accept jobs within 10 s (\(process.isRunning ? "running" : "ended")); its error_log: \(log)")
    }
}
