import IPP
import NIOCore
import Wire

/// The simulated printing device behind MiG: prints one job at a time, a page every 60/ppm seconds on the
/// printer's clock, and stops on paper, jam and offline faults until they clear.
///
/// Fault points (switched by scenarios, e.g. `fault mig.media-empty on`): `mig.media-empty`, `mig.media-jam`,
/// `mig.offline` stop the printer while they fire; `mig.job-abort` aborts the job being printed.
/// Confined to the node's event loop.
final class PrintEngine {
    static let deviceFaults: [(point: String, reason: String, message: String)] = [
        ("mig.media-empty", "media-empty-error", "Out of paper."),
        ("mig.media-jam", "media-jam-error", "Paper jam."),
        ("mig.offline", "offline-report", "The printer is offline."),
    ]
    static let abortFault = "mig.job-abort"

    let node: Node
    let store: JobStore
    let description: PrinterDescription
    /// Keep a finished job's document in the spool (`preserve-job-files`); else it is removed once the job ends.
    let preservesDocuments: Bool
    /// Removes finished jobs' documents, unless they are preserved.
    private let sweeper: DocumentSweeper
    private(set) var current: Int64?
    /// Pages printed of the current job, each also written to the spool as it comes off the printer: counters never
    /// go back, so a restart resumes the job after its last printed page rather than count its pages again.
    private(set) var printed: Int32 = 0
    /// The device problem that stops the printer, if any (printer-state-reasons keyword and message).
    private(set) var stopped: (reason: String, message: String)?
    private(set) var stateChangeTime: Int64
    /// When this printer started (printer-config-change-time: nothing reconfigures it while it runs).
    let startedAt: Int64
    /// Pages printed over the spool's whole history: the toner they used is what printer-supply reports.
    private(set) var pagesPrinted: Int64
    private var timer: NodeTimer?

    init(node: Node, store: JobStore, description: PrinterDescription, spool: any DocumentSpool, preservesDocuments: Bool) {
        self.node = node
        self.store = store
        self.description = description
        self.preservesDocuments = preservesDocuments
        sweeper = DocumentSweeper(node: node, spool: spool, store: store)
        stateChangeTime = node.clock.unixSeconds
        startedAt = stateChangeTime
        pagesPrinted = store.impressionsPrinted()
        for fault in Self.deviceFaults { node.faults.declare(fault.point) }
        node.faults.declare(Self.abortFault)
    }

    var pageTime: TimeAmount { .nanoseconds(60_000_000_000 / Int64(max(1, description.pagesPerMinute))) }

    /// IPP printer-state: 3 idle, 4 processing, 5 stopped.
    var printerState: Int32 { stopped != nil ? 5 : current != nil ? 4 : 3 }

    /// Starts the next pending job if the printer is free.
    func kick() {
        guard current == nil, timer == nil else { return }
        guard var job = store.nextPending() else { return }
        job.state = .processing
        job.reasons = ["job-printing"]
        job.processingAt = node.clock.unixSeconds
        save(job)
        current = job.id
        printed = job.impressionsCompleted  // 0, or the pages printed before a restart
        changed()
        node.trace("job-processing", [("job", "\(job.id)"), ("pages", "\(job.impressions)")])
        schedule(after: pageTime)
    }

    /// Stops work on a job that was canceled while printing.
    func forget(_ id: Int64) {
        guard current == id else { return }
        timer?.cancel()
        timer = nil
        current = nil
        changed()
        kick()
    }

    func stop() {
        timer?.cancel()
        timer = nil
    }

    private func schedule(after delay: TimeAmount) {
        let engine = NIOLoopBound(self, eventLoop: node.eventLoop)
        timer = node.schedule(in: delay) {
            engine.value.timer = nil
            engine.value.step()
        }
    }

    /// One page time has passed: check the device, then print a page.
    private func step() {
        guard let id = current, var job = store.job(id: id), !job.state.isFinal else {
            current = nil
            changed()
            kick()
            return
        }
        job.impressionsCompleted = printed
        if let fault = Self.deviceFaults.first(where: { node.fault($0.point) }) {
            let justStopped = stopped?.reason != fault.reason
            if justStopped {
                stopped = (fault.reason, fault.message)
                changed()
                job.state = .processingStopped
                job.reasons = ["printer-stopped"]
                job.impressionsCompleted = printed
                save(job)
                node.trace("printer-stopped", [("job", "\(id)"), ("reason", fault.reason)])
            }
            // Planted bug: the poll is re-armed only when the printer has just stopped.
            if !justStopped, node.planted(.migStoppedForGood) { return }
            schedule(after: .seconds(1))  // look again, as a printer polls its sensors
            return
        }
        if stopped != nil {
            stopped = nil
            changed()
            job.state = .processing
            job.reasons = ["job-printing"]
            save(job)
            node.trace("printer-resumed", [("job", "\(id)")])
        }
        if node.fault(Self.abortFault) {
            finish(&job, .aborted, reason: "aborted-by-system")
            return
        }
        printed += 1
        pagesPrinted += 1
        job.impressionsCompleted = printed
        if job.impressionsCompleted >= job.impressions {
            finish(&job, .completed, reason: "job-completed-successfully")
        } else {
            save(job)  // the page is on paper: a printer's page counter survives a power loss, and so does this one
            schedule(after: pageTime)
        }
    }

    private func finish(_ job: inout Job, _ state: IPPJobState, reason: String) {
        job.state = state
        job.reasons = [reason]
        job.completedAt = node.clock.unixSeconds
        removeDocument(of: &job)
        save(job)
        node.trace("job-\(state.keyword)", [("job", "\(job.id)"), ("pages", "\(job.impressionsCompleted)")])
        current = nil
        changed()
        kick()
    }

    /// A job has ended: its document leaves the spool, unless documents are preserved (`preserve-job-files`).
    func removeDocument(of job: inout Job) {
        if !preservesDocuments { sweeper.remove(of: &job) }
    }

    /// A job forgotten beyond max-jobs: its document goes with it, preserved or not.
    func removeForgottenDocument(of job: inout Job) { sweeper.remove(of: &job) }

    /// Records the job; nobody waits for the write (a page's progress is not an answer to anyone).
    private func save(_ job: Job) {
        store.update(job).whenFailure { [node] error in node.trace("spool-error", [("error", "\(error)")]) }
    }

    private func changed() { stateChangeTime = node.clock.unixSeconds }
}

extension MiGServer {
    /// The `reason` a `printer-stopped` event can carry: the printer-state-reasons keyword of each device fault.
    public static var printerStoppedReasons: [String] { PrintEngine.deviceFaults.map(\.reason) }
}

extension PlantedBug {
    /// The printer looks at its sensors again only when it has just stopped: a device fault still there at that look
    /// leaves it stopped for good, and no job prints again, after the fault has cleared too.
    public static let migStoppedForGood = PlantedBug("mig.stopped-for-good")
}
