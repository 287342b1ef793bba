import ArgumentParser
import Foundation
import IPP
import JSONEscaping
import NIOCore
import NIOHTTP1
import PrintDocuments
import SystemKit
import Wire
import WireHTTP

/// `workbench bench mig`: MiG next to CUPS' cupsd and ippeveprinter, each a separate process on loopback driven
/// by the same client loop — jobs acknowledged and jobs completed per second, with their latencies — and MiG's
/// peak memory while ingesting a huge document.
struct MiGBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mig",
        abstract:
            "Print-Jobs acknowledged and completed per second, p50/p99, for MiG, cupsd and ippeveprinter; MiG's peak RSS ingesting a large document.",
        discussion: """
            Servers: each its own process on 127.0.0.1, on a free port, started afresh for every client count (no run \
            inherits another's job history) and stopped after it; for each client count the three run back to back: \
            MiG, cupsd, ippeveprinter.
              mig            'workbench serve --only mig' (this executable), plain ipp:// at /ipp/print, spool in a \
            temporary --state-dir (SQLite in WAL mode, one file per document; fsynced only with --sync-to-disk), Basic \
            authentication demo:demo-password on every request. Its simulated printer at its top speed: ppm=100000 and \
            bytes-per-page=1073741824, so a job is one page of 0.6 ms. Like cupsd (PreserveJobFiles No) and ippeveprinter, MiG \
            deletes a document once its job is done (preserve-job-files=false, its default); like cupsd here, it keeps every \
            job (max-jobs=0). MiG does more per job than cupsd's raw queue: it counts each document's pages (a PDF's page \
            tree, read from the document's end as it streams in, or from the spooled file when the end does not hold it) and answers a Print-Job only once the job's record is committed to SQLite, \
            while cupsd counts no pages and writes its job files later (DirtyCleanInterval, 30 s by default).
              cupsd          Debian's /usr/sbin/cupsd -f (cups-daemon) as the current user, with its configuration, \
            spool and logs in a temporary directory, no browsing, no authentication, one raw queue at /printers/bench \
            whose device is file:///dev/null. cupsd spools each document to disk (no fsync: SyncOnClose is off by \
            default) and runs one filter per job; the filter of raw jobs (gziptoany, which Debian ships in \
            cups-core-drivers) is pointed at /bin/true. Completed jobs stay in its history; no job limits.
              ippeveprinter  CUPS' /usr/sbin/ippeveprinter (cups-ipp-utils) with a private D-Bus, spool in a temporary \
            directory, print command -c /bin/true (without one it sleeps 5-15 s per job). It holds one job at a time and \
            answers Print-Job with server-error-busy until that job's command has ended.

            Clients: this process, NIO on loopback over an event-loop group of one thread per core (clients spread over \
            every loop), one new connection per request, the same for the three servers. \
            --clients N concurrent clients share --jobs Print-Jobs (client k sends jobs k, k+N, k+2N…), each client one \
            request at a time. Every Print-Job is the same: IPP/2.0, requesting-user-name bench, document-format \
            application/pdf, a --size byte one-page PDF (PrintDocuments' PaddedPDF: a real PDF padded with comment lines).
              acknowledged   from sending a job's Print-Job to its answer: HTTP 200, an IPP successful status and a \
            job-id. A server-error-busy answer is counted (busy retries) and the same request is sent again at once, \
            without sleeping, so the wait for a busy printer counts in that server's time. Acknowledged jobs/s = jobs / \
            time from the first request to the last acknowledgement.
              completed      from sending a job's Print-Job until the job is seen in job-state completed. One more \
            client, running during the submissions (so each server serves it too), asks Get-Job-Attributes \
            (requested-attributes job-state) about each acknowledged job in the order of acknowledgement, again and \
            again without sleeping until it is completed, then about the next: the three servers print one job at a \
            time in order, so the job asked about is the next to finish (one finished out of order is seen when its \
            turn comes). Completed jobs/s = jobs / time from the first request until the last job is seen completed.
            Anything else fails the bench at once, naming the server, the job and the status: another IPP status, an \
            HTTP status other than 200, no job-id or job-state, a job ending canceled or aborted, a connection error. \
            Nothing is counted as a failed operation. Latencies are reported as p50/p99 in ms.

            Ratios are MiG's figure over the peer's. Targets: acknowledged >= cupsd at 1 client and >= 1.5x cupsd at more, \
            completed >= cupsd at each client count. Memory: a fresh MiG takes one Print-Job with an --ingest-mib document streamed by curl (chunked); \
            its peak RSS (VmHWM) is reported, target < 64 MiB.

            Needs cupsd (cups-daemon), ippeveprinter (cups-ipp-utils), dbus-daemon and curl (tools/setup.sh installs \
            them), and Fixtures/ (run from the repository, or set WORKBENCH_FIXTURES) for MiG. Use a release build for \
            figures; the figures are those of this machine under its current load.
            """
    )

    @Option(help: "Print-Jobs per server and client count, 1…100000 (at least the largest client count).")
    var jobs = 1000

    @Option(help: "Document size in bytes, \(PaddedPDF.minimumBytes())…1073741824.")
    var size = 1_000_000

    @Option(help: "Concurrent client counts, comma-separated, each 1…256, at most 8 counts.")
    var clients = "1,16"

    @Option(name: .customLong("ingest-mib"), help: "Size of the document for the memory check, in MiB, 0…65536 (0 to skip).")
    var ingestMiB = 1024

    @Flag(help: "Run MiG with sync-to-disk (fsync before every answer: power-loss safe, slower).")
    var syncToDisk = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @OptionGroup var check: BenchCheckOption

    func validate() throws {
        guard (1...100_000).contains(jobs) else { throw ValidationError("--jobs \(jobs): expected 1…100000") }
        guard (PaddedPDF.minimumBytes()...(1 << 30)).contains(Int64(size)) else {
            throw ValidationError("--size \(size): expected \(PaddedPDF.minimumBytes())…1073741824 bytes (the smallest is a one-page PDF)")
        }
        guard (0...65_536).contains(ingestMiB) else { throw ValidationError("--ingest-mib \(ingestMiB): expected 0…65536") }
        let counts = try Self.clientCounts(clients)
        if let most = counts.max(), jobs < most {
            throw ValidationError("--jobs \(jobs) is fewer than --clients \(most): every client needs at least one job")
        }
    }

    /// `--clients`: comma-separated counts, each 1…256, no repeats, at most 8.
    static func clientCounts(_ text: String) throws -> [Int] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard (1...8).contains(parts.count) else { throw ValidationError("--clients \(text): expected 1 to 8 comma-separated counts") }
        var counts: [Int] = []
        for part in parts {
            guard let count = Int(part), (1...256).contains(count) else {
                throw ValidationError("--clients \(text): '\(part)' is not a client count 1…256")
            }
            guard !counts.contains(count) else { throw ValidationError("--clients \(text): \(count) is given twice") }
            counts.append(count)
        }
        return counts
    }

    enum Server: String, CaseIterable, Sendable {
        case mig, cupsd, ippeveprinter
    }

    /// Where the client loop sends a server's requests.
    struct Target: Sendable {
        let server: Server
        let port: Int
        /// The IPP resource: MiG's and ippeveprinter's printer, or cupsd's queue.
        let resource: String
        /// `user:password` for Basic authentication (MiG only).
        let credentials: String?
        var printerURI: String { "ipp://127.0.0.1:\(port)\(resource)" }
    }

    struct Figures: Sendable {
        var acknowledgedPerSecond: Double
        var acknowledgedP50: Double
        var acknowledgedP99: Double
        var completedPerSecond: Double
        var completedP50: Double
        var completedP99: Double
        var busyRetries: Int
    }

    func run() async throws {
        let counts = try Self.clientCounts(clients)
        let folder = try BenchInterruption.workFolder("mig")
        defer { BenchInterruption.remove(folder) }
        let work = folder.path
        let wire = LiveWire()
        let document = try PaddedPDF(byteCount: Int64(size), pages: 1).bytes
        let documentBytes = document.count

        var results: [(server: Server, clients: Int, figures: Figures)] = []
        do {
            for count in counts {
                for server in Server.allCases {
                    let (served, target) = try start(server, state: "\(work)/\(server.rawValue)-\(count)")
                    defer { served.stop() }
                    let figures = try await Self.measure(target, jobs: jobs, clients: count, document: document, wire: wire)
                    results.append((server, count, figures))
                }
            }
        } catch {
            try? await wire.shutdown()
            throw error
        }
        try await wire.shutdown()

        var ingest: (seconds: Double, peakRSSMiB: Double)?
        if ingestMiB > 0 {
            let mig = try Served.mig(state: "\(work)/mig-ingest", syncToDisk: syncToDisk, fastestPrinter: true)
            defer { mig.stop() }
            ingest = try Self.ingest(mib: ingestMiB, into: mig, work: work)
        }

        let figures = { (server: Server, count: Int) -> Figures? in results.first { $0.server == server && $0.clients == count }?.figures }
        var ratios: [(clients: Int, peer: Server, acknowledged: Double, completed: Double)] = []
        for count in counts {
            guard let mig = figures(.mig, count) else { continue }
            for peer in [Server.cupsd, .ippeveprinter] {
                guard let other = figures(peer, count) else { continue }
                ratios.append(
                    (count, peer, mig.acknowledgedPerSecond / other.acknowledgedPerSecond, mig.completedPerSecond / other.completedPerSecond))
            }
        }
        var targets: [BenchTarget] = []
        for ratio in ratios where ratio.peer == .cupsd {
            let at = "at \(ratio.clients) client\(ratio.clients == 1 ? "" : "s")"
            targets.append(BenchTarget("acknowledged, MiG / cupsd \(at)", measured: ratio.acknowledged, .atLeast, ratio.clients == 1 ? 1 : 1.5))
            targets.append(BenchTarget("completed, MiG / cupsd \(at)", measured: ratio.completed, .atLeast, 1))
        }
        if let ingest { targets.append(BenchTarget("ingest peak RSS", measured: ingest.peakRSSMiB, .below, 64, unit: " MiB")) }

        let cpu = CPU.current
        if json {
            var out =
                "{\"cpu\":\(JSONString.quoted(cpu.model)),\"cores\":\(cpu.cores),\"jobs\":\(jobs),\"document_bytes\":\(documentBytes),\"document_format\":\"application/pdf\",\"mig_sync_to_disk\":\(syncToDisk)"
            out += ",\"clients\":[\(counts.map(String.init).joined(separator: ","))],\"results\":["
            out += results.map { result in
                let f = result.figures
                return "{\"server\":\(JSONString.quoted(result.server.rawValue)),\"clients\":\(result.clients)"
                    + ",\"acknowledged_jobs_per_second\":\(Self.format(f.acknowledgedPerSecond))"
                    + ",\"acknowledged_p50_ms\":\(Self.format(f.acknowledgedP50 * 1000)),\"acknowledged_p99_ms\":\(Self.format(f.acknowledgedP99 * 1000))"
                    + ",\"completed_jobs_per_second\":\(Self.format(f.completedPerSecond))"
                    + ",\"completed_p50_ms\":\(Self.format(f.completedP50 * 1000)),\"completed_p99_ms\":\(Self.format(f.completedP99 * 1000))"
                    + ",\"busy_retries\":\(f.busyRetries)}"
            }.joined(separator: ",")
            out += "],\"ratios\":["
            out += ratios.map { ratio in
                "{\"clients\":\(ratio.clients),\"peer\":\(JSONString.quoted(ratio.peer.rawValue))"
                    + ",\"acknowledged_mig_over_peer\":\(Self.format(ratio.acknowledged)),\"completed_mig_over_peer\":\(Self.format(ratio.completed))}"
            }.joined(separator: ",")
            out += "],\"targets\":" + BenchTarget.jsonArray(targets)
            if let ingest {
                out += ",\"ingest_mib\":\(ingestMiB),\"ingest_seconds\":\(Self.format(ingest.seconds))"
                out += ",\"ingest_peak_rss_mib\":\(Self.format(ingest.peakRSSMiB)),\"ingest_peak_rss_target_mib\":64"
            }
            print(out + "}")
        } else {
            print("CPU: \(cpu.model), \(cpu.cores) cores")
            print(
                "Print-Job of \(documentBytes) bytes (application/pdf), \(jobs) jobs per server and client count, loopback\(syncToDisk ? ", MiG fsyncing every answer" : ""):"
            )
            print("  server         clients  acknowledged/s  p50 ms  p99 ms   completed/s  p50 ms  p99 ms  busy retries")
            for result in results {
                let f = result.figures
                let columns: [(String, Int)] = [
                    (result.server.rawValue, -14), ("\(result.clients)", 7), (Self.format(f.acknowledgedPerSecond), 14),
                    (Self.format(f.acknowledgedP50 * 1000), 6), (Self.format(f.acknowledgedP99 * 1000), 6),
                    (Self.format(f.completedPerSecond), 12), (Self.format(f.completedP50 * 1000), 6), (Self.format(f.completedP99 * 1000), 6),
                    ("\(f.busyRetries)", 12),
                ]
                print("  " + columns.map { Self.pad($0.0, $0.1) }.joined(separator: "  "))
            }
            for ratio in ratios {
                print(
                    "  MiG / \(ratio.peer.rawValue) at \(ratio.clients) client\(ratio.clients == 1 ? "" : "s"): acknowledged \(Self.format(ratio.acknowledged))×, completed \(Self.format(ratio.completed))×"
                )
            }
            if let ingest {
                print("Ingesting a \(ingestMiB) MiB document: \(Self.format(ingest.seconds)) s, MiG peak RSS \(Self.format(ingest.peakRSSMiB)) MiB")
            }
            print("Targets:")
            for target in targets { print("  " + target.textLine) }
        }
        try check.finish(targets)
    }

    /// Starts one server for one run, its printer as fast as it goes.
    func start(_ server: Server, state: String) throws -> (Served, Target) {
        switch server {
        case .mig:
            let served = try Served.mig(state: state, syncToDisk: syncToDisk, fastestPrinter: true)
            return (served, Target(server: server, port: served.port, resource: "/ipp/print", credentials: "demo:demo-password"))
        case .cupsd:
            let served = try Served.cupsd(state: state)
            return (served, Target(server: server, port: served.port, resource: "/printers/bench", credentials: nil))
        case .ippeveprinter:
            let served = try Served.ippeveprinter(state: state)
            return (served, Target(server: server, port: served.port, resource: "/ipp/print", credentials: nil))
        }
    }

    /// One job acknowledged by the server.
    struct Acknowledged: Sendable {
        let index: Int
        let jobID: Int32
        /// When its Print-Job was first sent.
        let sent: ContinuousClock.Instant
        let at: ContinuousClock.Instant
    }

    enum Outcome: Sendable {
        case submitted([Acknowledged], busy: Int)
        /// Per job: when it was first sent, and when it was seen completed.
        case completed([(sent: ContinuousClock.Instant, at: ContinuousClock.Instant)], busy: Int)
    }

    /// `jobs` Print-Jobs from `clients` concurrent clients, with one more client watching them complete (see the
    /// command's discussion for what is timed).
    static func measure(_ target: Target, jobs: Int, clients: Int, document: [UInt8], wire: LiveWire) async throws -> Figures {
        let request = IPPMessage.request(.printJob, requestID: 1) { op in
            op.addPrinterURI(target.printerURI)
            op.addRequestingUserName("bench")
            op.addJobName("bench.pdf")
            op.addDocumentFormat("application/pdf")
        }
        // One body for every request: a ByteBuffer is shared, not copied, when it is written again.
        var body = ByteBuffer(bytes: try IPPEncoder().encode(request))
        body.writeBytes(document)
        let printJob = body
        let clock = ContinuousClock()
        let (acknowledgements, sink) = AsyncStream.makeStream(of: Acknowledged.self)
        defer { sink.finish() }
        let started = clock.now

        return try await withThrowingTaskGroup(of: Outcome.self) { group in
            for client in 0..<clients {
                // A node (event loop) per client, spread over the wire's threads.
                let node = wire.node("bench-\(client)")
                group.addTask {
                    var acknowledged: [Acknowledged] = []
                    var busy = 0
                    for index in stride(from: client, to: jobs, by: clients) {
                        try Task.checkCancellation()
                        let sent = clock.now
                        while true {
                            let answer = try await exchange(printJob, target: target, what: "Print-Job of job \(index)", on: node)
                            if answer.status == .busy {
                                busy += 1
                                continue  // at once: no sleep, so the wait counts in the server's time only
                            }
                            guard let jobID = answer.jobID, jobID > 0 else {
                                throw WorkbenchError(
                                    "\(target.server.rawValue): Print-Job of job \(index) answered \(answer.status) without a job-id")
                            }
                            let job = Acknowledged(index: index, jobID: jobID, sent: sent, at: clock.now)
                            acknowledged.append(job)
                            sink.yield(job)
                            break
                        }
                    }
                    return .submitted(acknowledged, busy: busy)
                }
            }
            let poller = wire.node("bench-poller")
            group.addTask {
                var completed: [(sent: ContinuousClock.Instant, at: ContinuousClock.Instant)] = []
                var busy = 0
                for await job in acknowledgements {
                    let at = try await waitUntilCompleted(job, target: target, busy: &busy, on: poller)
                    completed.append((job.sent, at))
                }
                return .completed(completed, busy: busy)
            }

            var acknowledged: [Acknowledged] = []
            var completed: [(sent: ContinuousClock.Instant, at: ContinuousClock.Instant)] = []
            var busy = 0
            var submitting = clients
            while let outcome = try await group.next() {
                switch outcome {
                case .submitted(let done, let retries):
                    acknowledged += done
                    busy += retries
                    submitting -= 1
                    if submitting == 0 { sink.finish() }  // the poller ends once it has seen every job complete
                case .completed(let done, let retries):
                    completed = done
                    busy += retries
                }
            }
            guard acknowledged.count == jobs, completed.count == jobs else {
                throw WorkbenchError(
                    "\(target.server.rawValue): \(acknowledged.count) of \(jobs) jobs acknowledged, \(completed.count) seen completed")
            }
            let acknowledgedLatencies = acknowledged.map { ($0.at - $0.sent).seconds }.sorted()
            let completedLatencies = completed.map { ($0.at - $0.sent).seconds }.sorted()
            let lastAcknowledged = acknowledged.map(\.at).max() ?? started
            let lastCompleted = completed.map(\.at).max() ?? started
            return Figures(
                acknowledgedPerSecond: Double(jobs) / (lastAcknowledged - started).seconds,
                acknowledgedP50: Percentile.nearestRank(acknowledgedLatencies, 0.50) ?? 0,
                acknowledgedP99: Percentile.nearestRank(acknowledgedLatencies, 0.99) ?? 0,
                completedPerSecond: Double(jobs) / (lastCompleted - started).seconds,
                completedP50: Percentile.nearestRank(completedLatencies, 0.50) ?? 0,
                completedP99: Percentile.nearestRank(completedLatencies, 0.99) ?? 0,
                busyRetries: busy)
        }
    }

    /// Asks Get-Job-Attributes about `job` until it is completed (no sleeping); returns when it was seen so.
    static func waitUntilCompleted(_ job: Acknowledged, target: Target, busy: inout Int, on node: Node) async throws -> ContinuousClock.Instant {
        let request = IPPMessage.request(.getJobAttributes, requestID: 1) { op in
            op.addPrinterURI(target.printerURI)
            op.addJobID(job.jobID)
            op.addRequestingUserName("bench")
            op.addRequestedAttributes([IPPAttributeName.jobState])
        }
        let body = ByteBuffer(bytes: try IPPEncoder().encode(request))
        let what = "Get-Job-Attributes of job \(job.index) (job-id \(job.jobID))"
        while true {
            try Task.checkCancellation()
            let answer = try await exchange(body, target: target, what: what, on: node)
            if answer.status == .busy {
                busy += 1
                continue
            }
            guard let value = answer.group(.job)?[IPPAttributeName.jobState]?.integerValue, let state = IPPJobState(rawValue: value) else {
                throw WorkbenchError("\(target.server.rawValue): \(what) answered without a job-state")
            }
            if state == .completed { return ContinuousClock.now }
            if state.isFinal { throw WorkbenchError("\(target.server.rawValue): job \(job.index) (job-id \(job.jobID)) ended \(state.keyword)") }
        }
    }

    /// One IPP request on a new connection. Returns the answer if it is HTTP 200 with a successful IPP status or
    /// server-error-busy; throws, naming the server and the request, for anything else.
    static func exchange(_ body: ByteBuffer, target: Target, what: String, on node: Node) async throws -> IPPMessage {
        var headers: HTTPHeaders = ["Content-Type": "application/ipp"]
        if let credentials = target.credentials {
            headers.add(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())
        }
        let response: HTTPResponse
        do {
            response = try await HTTPClient.send(
                HTTPRequest(method: .POST, target: target.resource, headers: headers, body: body),
                host: "127.0.0.1", port: target.port, on: node)
        } catch {
            throw WorkbenchError("\(target.server.rawValue): \(what) failed: \(error)")
        }
        guard response.status == .ok else {
            throw WorkbenchError("\(target.server.rawValue): \(what) answered HTTP \(response.status.code): \(String(response.text.prefix(200)))")
        }
        let answer: IPPMessage
        do {
            answer = try IPPDecoder().decode(Array(response.body.readableBytesView))
        } catch {
            throw WorkbenchError("\(target.server.rawValue): \(what) answered with an undecodable IPP message: \(error)")
        }
        guard answer.status.rawValue < 0x100 || answer.status == .busy else {
            throw WorkbenchError("\(target.server.rawValue): \(what) answered \(answer.status)\(answer.statusMessage.map { ": \($0)" } ?? "")")
        }
        return answer
    }

    /// Streams a huge Print-Job into the served MiG with curl (chunked, from a generator, so nothing holds
    /// the whole document) and reads MiG's peak resident memory from /proc.
    static func ingest(mib: Int, into mig: Served, work: String) throws -> (Double, Double) {
        let header = "\(work)/header.ipp"
        let request = IPPMessage.request(.printJob, requestID: 1) { op in
            op.addPrinterURI("ipp://127.0.0.1:\(mig.port)/ipp/print")
            // Zeros are no format MiG prints: MiG spools them whole (what this measures), then its auto-sensing
            // refuses them (client-error-document-format-not-supported, still HTTP 200) rather than print a guess.
            op.addJobName("huge.bin")
            op.addDocumentFormat("application/octet-stream")
        }
        try Data(try IPPEncoder().encode(request)).write(to: URL(fileURLWithPath: header))
        let script =
            "(cat \(header); head -c \(mib)M /dev/zero) | curl -sS -o /dev/null -w '%{http_code}' -u demo:demo-password "
            + "-H 'Content-Type: application/ipp' -X POST -T - http://127.0.0.1:\(mig.port)/ipp/print"
        let clock = ContinuousClock()
        let started = clock.now
        let status = try Served.shell(script)
        let seconds = (clock.now - started).seconds
        guard status == "200" else { throw WorkbenchError("ingest answered HTTP \(status)") }
        return (seconds, mig.peakRSSMiB())
    }

    static func format(_ value: Double) -> String { String(format: value >= 100 ? "%.0f" : "%.2f", value) }

    /// Right-aligned to `width` (left-aligned when negative).
    static func pad(_ text: String, _ width: Int) -> String {
        let room = max(0, abs(width) - text.count)
        return width < 0 ? text + String(repeating: " ", count: room) : String(repeating: " ", count: room) + text
    }
}
