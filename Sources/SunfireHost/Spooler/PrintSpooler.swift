/// One job in an lpd queue.
public struct PrintJob: Sendable, Equatable {
    public enum Source: String, Sendable { case lpr, samba }
    public let id: Int
    public let owner: String
    public let printer: String
    public let files: [String]
    public let bytes: Int
    public let pages: Int
    /// Sheets of paper: `-sx` queues print single-sided (one page a sheet), the others double-sided.
    public let sheets: Int
    public let source: Source
    public let queuedAt: Duration
    /// When the printer took it (nil while waiting).
    public internal(set) var startedAt: Duration?
}

/// A printer's condition as lpd reports it.
public enum PrinterState: Sendable, Equatable {
    case ready
    /// The printer stopped, with its reason ("Out of Paper").
    case down(String)
    /// The queue's daemon is not running: jobs wait.
    case noDaemon
    /// `lpc disable`: the queue takes no new jobs (those in it still print).
    case queueDisabled
}

/// Why lpr refused a job.
public struct SpoolerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}

/// The host's lpd queues: the twelve printers of the app plus configured extras, jobs printed one at a time per
/// printer at a fixed speed in the host's time, and printed sheets charged to the owner's print quota.
///
/// Sans I/O: the actor calls ``advance(to:faults:)`` when ``nextEventTime`` comes, and reports the events.
/// Confined to the host's event loop.
public final class PrintSpooler: @unchecked Sendable {
    // @unchecked Sendable: used only on the host's event loop.

    /// The printers the app lists (`-sx`: single-sided).
    public static let builtInPrinters = [
        "psts", "psts-sx", "pstsb", "pstsb-sx", "pstsc", "pstsc-sx", "psc008", "psc008-sx",
        "psc011", "psc011-sx", "psc245", "psc245-sx",
    ]
    /// Jobs per queue; lpr refuses more.
    public static let maximumJobsPerQueue = 500

    public enum Fault {
        public static let outOfPaper = "sunfire.out-of-paper"
        public static let printerDown = "sunfire.printer-down"
        public static let noDaemon = "sunfire.no-daemon"
        public static let queueOff = "sunfire.queue-off"
        public static let all = [outOfPaper, printerDown, noDaemon, queueOff]
    }

    public let printers: [String]
    public let hostName: String
    private let accounts: AccountDirectory
    private let secondsPerPage: Duration
    private var queues: [String: [PrintJob]] = [:]
    private var states: [String: PrinterState] = [:]
    private var nextJobID = 1

    public init(printers: [String], pagesPerMinute: Int, accounts: AccountDirectory, hostName: String = "sunfire") {
        self.printers = printers
        self.accounts = accounts
        self.hostName = hostName
        self.secondsPerPage = .milliseconds(60_000 / max(1, min(pagesPerMinute, 60_000)))
        for printer in printers {
            queues[printer] = []
            states[printer] = .ready
        }
    }

    public func state(of printer: String) -> PrinterState? { states[printer] }
    public func jobs(on printer: String) -> [PrintJob] { queues[printer] ?? [] }

    /// An administrator (or the printer) changes a printer's state.
    public func setState(_ state: PrinterState, of printer: String, now: Duration) -> [HostEvent] {
        guard states[printer] != nil, states[printer] != state else { return [] }
        states[printer] = state
        if state == .ready, var queue = queues[printer], !queue.isEmpty, queue[0].startedAt == nil {
            // Paper refilled: the waiting job starts now.
            queue[0].startedAt = now
            queues[printer] = queue
        }
        return [HostEvent("printer-state", [("printer", printer), ("state", Self.describe(state))])]
    }

    /// `lpr -P printer`: queues a job and returns it.
    public func submit(
        printer: String, owner: String, files: [String], bytes: Int, pages: Int, now: Duration,
        faults: (String) -> Bool
    ) throws(SpoolerError) -> (PrintJob, [HostEvent]) {
        guard let state = states[printer] else { throw SpoolerError(description: "lpr: \(printer): unknown printer") }
        if faults(Fault.queueOff), state != .queueDisabled { _ = setState(.queueDisabled, of: printer, now: now) }
        guard states[printer] != .queueDisabled else {
            throw SpoolerError(description: "lpr: Printer queue is disabled")
        }
        guard (queues[printer]?.count ?? 0) < Self.maximumJobsPerQueue else {
            throw SpoolerError(description: "lpr: \(printer): queue is full (\(Self.maximumJobsPerQueue) jobs)")
        }
        let job = enqueue(printer: printer, owner: owner, files: files, bytes: bytes, pages: pages, source: .lpr, now: now)
        return (
            job,
            [
                HostEvent(
                    "job-queued",
                    [
                        ("printer", printer), ("job", String(job.id)), ("owner", owner),
                        ("pages", String(pages)), ("sheets", String(job.sheets)), ("via", "lpr"),
                    ])
            ]
        )
    }

    /// A job that arrived through the NUSNET/Samba route: the owner's Unix account cannot remove it with lprm.
    public func addSambaJob(owner: String, printer: String, name: String, pages: Int, now: Duration) -> [HostEvent] {
        guard states[printer] != nil else { return [] }
        let job = enqueue(printer: printer, owner: owner, files: [name], bytes: pages * 50_000, pages: pages, source: .samba, now: now)
        return [
            HostEvent(
                "job-queued",
                [
                    ("printer", printer), ("job", String(job.id)), ("owner", owner), ("pages", String(pages)),
                    ("sheets", String(job.sheets)), ("via", "samba"),
                ])
        ]
    }

    private func enqueue(printer: String, owner: String, files: [String], bytes: Int, pages: Int, source: PrintJob.Source, now: Duration) -> PrintJob
    {
        let used = Set(queues.values.flatMap { $0.map(\.id) })
        while used.contains(nextJobID) { nextJobID = nextJobID % 999 + 1 }
        let singleSided = printer.hasSuffix("-sx")
        var job = PrintJob(
            id: nextJobID, owner: owner, printer: printer, files: files, bytes: bytes, pages: pages,
            sheets: singleSided ? pages : (pages + 1) / 2, source: source, queuedAt: now, startedAt: nil)
        nextJobID = nextJobID % 999 + 1
        if queues[printer, default: []].isEmpty, states[printer] == .ready { job.startedAt = now }
        queues[printer, default: []].append(job)
        return job
    }

    /// `lprm -P printer -` (all of `owner`'s jobs) or `lprm -P printer ID`: removes lpr jobs of `owner`, never
    /// Samba ones. Returns lprm's lines (4.4BSD: `dfA012sunfire dequeued`, `cfA012sunfire dequeued`).
    public func remove(owner: String, printer: String, jobID: Int?, now: Duration) -> (lines: [String], events: [HostEvent]) {
        guard var queue = queues[printer] else { return (["lprm: \(printer): unknown printer"], []) }
        var lines: [String] = []
        var events: [HostEvent] = []
        let headWasActive = queue.first?.startedAt != nil
        queue.removeAll { job in
            guard job.owner == owner, job.source == .lpr, jobID == nil || jobID == job.id else { return false }
            let number = String(repeating: "0", count: max(0, 3 - String(job.id).count)) + String(job.id)
            lines += ["dfA\(number)\(hostName) dequeued", "cfA\(number)\(hostName) dequeued"]
            events.append(HostEvent("job-removed", [("printer", printer), ("job", String(job.id)), ("owner", owner)]))
            return true
        }
        if headWasActive || queue.first?.startedAt == nil, !queue.isEmpty, queue[0].startedAt == nil, states[printer] == .ready {
            queue[0].startedAt = now
        }
        queues[printer] = queue
        return (lines, events)
    }

    /// When the next job finishes printing, if one is printing.
    public var nextEventTime: Duration? {
        printers.compactMap { printer -> Duration? in
            guard states[printer] == .ready, let job = queues[printer]?.first, let started = job.startedAt else { return nil }
            return started + secondsPerPage * job.pages
        }.min()
    }

    /// Prints what is due by `now`: finished jobs leave their queue and are charged; the next one starts (and may
    /// meet a printer fault: out of paper stops the printer with the job still queued).
    public func advance(to now: Duration, faults: (String) -> Bool) -> [HostEvent] {
        var events: [HostEvent] = []
        for printer in printers {
            while states[printer] == .ready, var queue = queues[printer], let head = queue.first {
                guard let started = head.startedAt else {
                    queue[0].startedAt = now
                    queues[printer] = queue
                    continue
                }
                let done = started + secondsPerPage * head.pages
                guard done <= now else { break }
                queue.removeFirst()
                // Samba jobs belong to the same Unix account, so they are charged to it too.
                if accounts.charge(head.owner, sheets: head.sheets) {
                    events.append(
                        HostEvent(
                            "job-printed",
                            [
                                ("printer", printer), ("job", String(head.id)), ("owner", head.owner),
                                ("pages", String(head.pages)), ("sheets", String(head.sheets)),
                            ]))
                    events.append(
                        HostEvent(
                            "quota-charged",
                            [
                                ("user", head.owner), ("sheets", String(head.sheets)),
                                ("left", String(accounts.quota(of: head.owner).first?.value ?? 0)),
                            ]))
                } else {
                    events.append(
                        HostEvent(
                            "job-dropped",
                            [
                                ("printer", printer), ("job", String(head.id)), ("owner", head.owner),
                                ("reason", "print quota exhausted"),
                            ]))
                }
                if !queue.isEmpty {
                    // The next job starts when this one ended — unless the printer fails as it takes it.
                    if let fault = [Fault.outOfPaper, Fault.printerDown, Fault.noDaemon].first(where: faults) {
                        let state: PrinterState =
                            fault == Fault.outOfPaper ? .down("Out of Paper") : fault == Fault.noDaemon ? .noDaemon : .down("Printer offline")
                        queues[printer] = queue
                        events += setState(state, of: printer, now: done)
                        break
                    }
                    queue[0].startedAt = done
                }
                queues[printer] = queue
            }
        }
        return events
    }

    /// `lpq -P printer` in 4.4BSD's format.
    public func lpq(_ printer: String) -> String {
        guard let state = states[printer], let queue = queues[printer] else { return "lpq: \(printer): unknown printer\n" }
        var out = ""
        switch state {
        case .ready: if !queue.isEmpty { out += "\(printer) is ready and printing\n" }
        case .down(let reason): out += "Warning: \(printer) is down: \(reason)\n"
        case .noDaemon: out += "Warning: no daemon present\n"
        case .queueDisabled: out += "Warning: \(printer) queue is turned off\n"
        }
        guard !queue.isEmpty else { return out + "no entries\n" }
        out += Self.padded("Rank   Owner      Job  Files", to: 61) + "Total Size\n"
        let printing = state == .ready && queue.first?.startedAt != nil
        for (index, job) in queue.enumerated() {
            let rank = printing ? (index == 0 ? "active" : Self.ordinal(index)) : Self.ordinal(index + 1)
            let line =
                Self.padded(rank, to: 7) + Self.padded(job.owner, to: 11) + Self.padded(String(job.id), to: 5) + job.files.joined(separator: ", ")
            out += Self.padded(line, to: 61) + "\(job.bytes) bytes\n"
        }
        return out
    }

    static func describe(_ state: PrinterState) -> String {
        switch state {
        case .ready: "ready"
        case .down(let reason): "down: \(reason)"
        case .noDaemon: "no daemon"
        case .queueDisabled: "queue off"
        }
    }

    private static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func ordinal(_ number: Int) -> String {
        let suffix: String
        switch (number % 10, number % 100) {
        case (1, let teen) where teen != 11: suffix = "st"
        case (2, let teen) where teen != 12: suffix = "nd"
        case (3, let teen) where teen != 13: suffix = "rd"
        default: suffix = "th"
        }
        return "\(number)\(suffix)"
    }
}
