import ArgumentParser
import DerivedCredential
import Foundation
import IMSSDK
import JSONEscaping
import MiGClient
import NIOCore
import SCPmsClient
import SOCPrint
import Wire
import WireHTTP

/// `workbench bench load`: every served actor at once under many concurrent clients, on loopback — throughput,
/// latency and errors per operation, and what the load does to the `serve` process (memory, file descriptors).
struct LoadBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Many concurrent clients against one 'workbench serve': ops/s, p50/p99 and errors per operation; serve's RSS and open fds.",
        discussion: """
            Server side: one 'workbench serve' child process with every actor, every port 0 (the kernel picks free \
            ones) and a temporary --state-dir (MiG's spool, the SQLite databases and Sunfire's homes on disk), \
            removed afterwards.

            Client side: --clients concurrent Swift tasks in this process, on one live wire (NIO on loopback), each \
            using the project's own client modules and going round the operations below, one at a time, until the \
            time is up. Client k starts at operation k of the round, so every server sees every kind of request all \
            the time. One operation is:
              mig-print-job   MiGClient (no retries) prints a 2 KB PDF to MiG's plain ipp:// port as demo:demo-password: \
            one POST /ipp/print on a new connection; HTTP 200, IPP successful-ok and a job-id.
              scpms-register  SCPmsSessionManager.registerApplication(): POST …/odata/applications/latest/APP/Connections \
            (credentials sent up front); 201 with an ApplicationConnectionId.
              scpms-check     SCPmsSessionManager.startSession with the stored id: GET {base}/APP with X-SMP-APPCID, the \
            request the SDK checks a registration with; 200, registration 'existing'.
              ims-session     IMSClient.startSession() with a URLTokenSigner (one signing attempt): POST /sign to \
            ims-signer over HTTPS (a TLS handshake each time, trusting the test CA) with the app's bearer token (200, \
            an RS256 token), then POST /v1/sessions to ims; 201 with a session id. Two HTTP exchanges.
              ivanti-open     POST appconnect://register?scheme=loadbenchK to the Ivanti bus gateway's /open as app \
            load-K (a URL the Ivanti client accepts: it registers the app and sends it its state); 202.
              sunfire-exec    SSHConnectivity.execute("lpq -P psts") on the client's own SSH connection to Sunfire \
            (opened once, host key pinned to the one serve announces, kept open): one exec channel; exit status 0.
              sunfire-sftp    SSHConnectivity.upload of a 1 KB file (load-K.txt in demo's home, overwritten each time) \
            over the SFTP subsystem on the same connection: INIT, OPEN, WRITE, CLOSE each answered OK.
            Setting up (the SSH login, the first SCPms registration) is not an operation; its failures count as \
            errors of sunfire-exec and scpms-register.

            Figures: operations that complete within the --seconds after the --warmup-seconds count towards ops/s \
            and p50/p99 (ms, from the call to its result). Errors are counted whenever they happen (warm-up \
            included); the target is none, and with --check any error makes the run exit 1 after printing the figures. serve's VmRSS is read from \
            /proc before the load, after the warm-up and at the end; its open fds (/proc/PID/fd) before the load and \
            once every client has disconnected (polled for up to 5 s for the count to come back). Use a release build.
            """
    )

    @Option(help: "Concurrent clients, 1…2000.")
    var clients = 200

    @Option(help: "Seconds measured after the warm-up, 1…3600.")
    var seconds = 60

    @Option(help: "Seconds of load before measuring starts, 0…600.")
    var warmupSeconds = 5

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @OptionGroup var check: BenchCheckOption

    func validate() throws {
        guard (1...2000).contains(clients) else { throw ValidationError("--clients \(clients): expected 1…2000") }
        guard (1...3600).contains(seconds) else { throw ValidationError("--seconds \(seconds): expected 1…3600") }
        guard (0...600).contains(warmupSeconds) else { throw ValidationError("--warmup-seconds \(warmupSeconds): expected 0…600") }
    }

    /// Every actor's ports, as `--set` overrides: 0 lets the kernel pick a free one, so the bench never collides
    /// with a `serve` already running on the usual ports.
    static let zeroPorts = [
        "mig.tls-port", "mig.plain-port", "mig-proxy.port", "scpms.port", "scpms.tls-port", "ims-signer.port", "ims.port", "ivanti.bus-port",
        "sunfire.port", "sunfire.directory-port", "mysoc.port", "echo.tcp-port", "echo.http-port",
    ]

    func run() async throws {
        let work = NSTemporaryDirectory() + "workbench-bench-load-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        Self.raiseDescriptorLimit()

        // serve's complaints go to a file, quoted when the run fails: a server-side error is seen, not guessed.
        let stderrPath = "\(work)/serve.stderr"
        guard FileManager.default.createFile(atPath: stderrPath, contents: nil), let stderrHandle = FileHandle(forWritingAtPath: stderrPath) else { throw BenchError("cannot write \(stderrPath)") }
        let arguments = Self.zeroPorts.flatMap { ["--set", "\($0)=0"] } + ["--state-dir", "\(work)/state"]
        let served = try Served.workbenchServe(arguments, ready: Catalog.actorKinds.map(\.name), errors: stderrHandle)
        defer { served.stop() }
        let targets: Targets
        do { targets = try Targets(served.announcement) } catch {
            throw BenchError("\(error); serve announced: \(served.announcement.listening.map { "\($0.kind) \($0.url)" }.joined(separator: ", "))")
        }
        let probe = served.probe

        // Let serve settle (its loops and pools start lazily) before the baseline is read.
        try await Task.sleep(for: .milliseconds(300))
        let descriptorsBefore = probe.openDescriptors()
        let rssBefore = probe.residentMiB()

        let wire = LiveWire()
        let loadClients: [LoadClient]
        do { loadClients = try (0..<clients).map { try LoadClient(index: $0, node: wire.node("load-\($0)"), targets: targets) } } catch {
            try? await wire.shutdown()
            throw error
        }
        let clock = ContinuousClock()
        let window = Window(clock: clock, measureFrom: clock.now + .seconds(warmupSeconds), seconds: seconds)
        async let samples = Self.sampleRSS(probe, window: window)
        let tallies = await withTaskGroup(of: Tally.self) { group in
            for client in loadClients { group.addTask { await client.run(window) } }
            var all: [Tally] = []
            for await tally in group { all.append(tally) }
            return all
        }
        let (rssAfterWarmup, rssAtEnd) = await samples
        // Every client closed its own connections; shutting the wire down as well closes anything left behind,
        // so what stays open in serve afterwards is serve's alone.
        try await wire.shutdown()
        let (descriptorsAfter, settledAfter) = await Self.waitForDescriptors(probe, toReturnTo: descriptorsBefore, within: .seconds(5))
        // What is still open, when the count did not come back: the first clue to a leak.
        let leftover = settledAfter == nil ? probe.descriptorKinds() : []
        let peak = probe.peakRSSMiB()
        try? stderrHandle.close()
        let serveErrors = ((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
            .split(separator: "\n").map(String.init)

        let tally = tallies.reduce(into: Tally()) { $0.merge($1) }
        let report = Report(clients: clients, seconds: seconds, warmupSeconds: warmupSeconds, tally: tally,
                            rss: (rssBefore, rssAfterWarmup, rssAtEnd, peak),
                            descriptors: (descriptorsBefore, descriptorsAfter, settledAfter), leftover: leftover, serveStderr: serveErrors)
        print(json ? report.json() : report.text())
        if tally.totalErrors > 0 {
            printError("bench load: \(tally.totalErrors) operations failed (the target is 0); first errors:")
            for (operation, texts) in tally.errorTexts(limit: 3) { for text in texts { printError("  \(operation): \(text)") } }
            if !serveErrors.isEmpty { printError("serve's standard error:\n" + serveErrors.prefix(20).joined(separator: "\n")) }
        }
        try check.finish(report.targets)
    }

    /// VmRSS once the warm-up is over and once the measured seconds are.
    static func sampleRSS(_ probe: ProcessProbe, window: Window) async -> (Double, Double) {
        try? await window.clock.sleep(until: window.measureFrom)
        let afterWarmup = probe.residentMiB()
        try? await window.clock.sleep(until: window.deadline)
        return (afterWarmup, probe.residentMiB())
    }

    /// Polls serve's descriptor count until it is back at `baseline` or `limit` passes; returns the last count and,
    /// when it came back, after how long.
    static func waitForDescriptors(_ probe: ProcessProbe, toReturnTo baseline: Int?, within limit: Duration) async -> (Int?, Duration?) {
        let clock = ContinuousClock()
        let started = clock.now
        var count = probe.openDescriptors()
        while let current = count, let baseline, current > baseline, clock.now - started < limit {
            try? await Task.sleep(for: .milliseconds(50))
            count = probe.openDescriptors()
        }
        guard let count, let baseline, count <= baseline else { return (count, nil) }
        return (count, clock.now - started)
    }

    /// 2,000 clients hold 2,000 SSH connections plus their HTTP exchanges, here and in serve (which inherits the
    /// limit): raise the soft limit on descriptors to the hard one, which any process may do.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// When figures count: from the end of the warm-up to the deadline.
struct Window: Sendable {
    let clock: ContinuousClock
    let measureFrom: ContinuousClock.Instant
    let deadline: ContinuousClock.Instant

    init(clock: ContinuousClock, measureFrom: ContinuousClock.Instant, seconds: Int) {
        self.clock = clock
        self.measureFrom = measureFrom
        deadline = measureFrom + .seconds(seconds)
    }
}

/// The kinds of operation, in the order a client goes round them.
enum LoadOperation: String, CaseIterable, Sendable {
    case migPrintJob = "mig-print-job"
    case scpmsRegister = "scpms-register"
    case scpmsCheck = "scpms-check"
    case imsSession = "ims-session"
    case ivantiOpen = "ivanti-open"
    case sunfireExec = "sunfire-exec"
    case sunfireSFTP = "sunfire-sftp"
}

/// Where the clients go, read from what serve announced.
struct Targets: Sendable {
    /// `ipp://demo:demo-password@127.0.0.1:PORT/ipp/print`.
    let migURL: String
    let scpmsBase: String, scpmsApplication: String, scpmsUser: String, scpmsPassword: String
    let signURL: String, signerCA: [UInt8], appToken: String, imsUser: String, apiKey: String, imsURL: String
    let busHost: String, busPort: Int, busPath: String
    let sshHost: String, sshPort: Int, sshUser: String, sshPassword: String, hostKey: String

    init(_ announced: ServeAnnouncement) throws {
        func url(_ kind: String, _ scheme: String) throws -> URLComponents {
            guard let text = announced.url(kind, scheme: scheme), let url = URLComponents(string: text), url.host != nil, url.port != nil else {
                throw BenchError("serve announced no \(scheme):// URL for \(kind)")
            }
            return url
        }
        func note(_ kind: String, _ word: String) throws -> String {
            guard let text = announced.note(kind, word) else { throw BenchError("serve announced no '\(word)' note for \(kind)") }
            return text
        }
        guard let mig = announced.url("mig", scheme: "ipp"), URLComponents(string: mig)?.user != nil else {
            throw BenchError("serve announced no ipp://USER:PASSWORD@… URL for mig")
        }
        migURL = mig

        let scpms = try url("scpms", "http")
        guard let user = scpms.user, let password = scpms.password, let application = scpms.path.split(separator: "/").last else {
            throw BenchError("the scpms URL has no demo credentials or application id")
        }
        scpmsBase = "http://\(scpms.host ?? ""):\(scpms.port ?? 0)"
        scpmsApplication = String(application)
        scpmsUser = user
        scpmsPassword = password

        let signer = try url("ims-signer", "https")
        signURL = "https://\(signer.host ?? ""):\(signer.port ?? 0)/sign"
        // serve's back end presents the workbench's test certificate.
        signerCA = Array(try String(contentsOfFile: try Fixtures.path("tls/ca.pem"), encoding: .utf8).utf8)
        // `bearer-token TOKEN user USER`: the app token of the user serve enrolled.
        let bearer = try note("ims-signer", "bearer-token").split(separator: " ").map(String.init)
        guard bearer.count == 3, bearer[1] == "user" else { throw BenchError("ims-signer's bearer-token note is not 'TOKEN user USER'") }
        appToken = bearer[0]
        imsUser = bearer[2]
        apiKey = try note("ims-signer", "api-key")
        let ims = try url("ims", "http")
        imsURL = "http://\(ims.host ?? ""):\(ims.port ?? 0)/"

        let bus = try url("ivanti", "http")
        busHost = bus.host ?? ""
        busPort = bus.port ?? 0
        busPath = bus.path.isEmpty ? "/open" : bus.path

        let ssh = try url("sunfire", "ssh")
        guard let sshUser = ssh.user, let sshPassword = ssh.password else { throw BenchError("the sunfire URL has no demo credentials") }
        sshHost = ssh.host ?? ""
        sshPort = ssh.port ?? 0
        self.sshUser = sshUser
        self.sshPassword = sshPassword
        // `known_hosts [HOST]:PORT ssh-ed25519 AAAA…`: the key the clients pin.
        hostKey = try note("sunfire", "known_hosts").split(separator: " ").dropFirst().joined(separator: " ")
    }
}

/// What clients saw, per operation.
struct Tally: Sendable {
    struct PerOperation: Sendable {
        /// Latencies in seconds of the operations that completed successfully inside the window.
        var latencies: [Double] = []
        var errors = 0
        /// Distinct error texts, in the order first seen (a few only).
        var errorTexts: [String] = []
    }

    var operations: [LoadOperation: PerOperation] = [:]

    static let keptErrorTexts = 5

    mutating func succeeded(_ operation: LoadOperation, seconds: Double) {
        operations[operation, default: PerOperation()].latencies.append(seconds)
    }

    mutating func failed(_ operation: LoadOperation, _ text: String) {
        var entry = operations[operation, default: PerOperation()]
        entry.errors += 1
        // Clients differ only in numbers (ids, ports, k): the first few distinct texts are enough to see the causes.
        let text = String(text.prefix(300))
        if entry.errorTexts.count < Self.keptErrorTexts, !entry.errorTexts.contains(text) { entry.errorTexts.append(text) }
        operations[operation] = entry
    }

    mutating func merge(_ other: Tally) {
        for (operation, theirs) in other.operations {
            var entry = operations[operation, default: PerOperation()]
            entry.latencies += theirs.latencies
            entry.errors += theirs.errors
            for text in theirs.errorTexts where entry.errorTexts.count < Self.keptErrorTexts && !entry.errorTexts.contains(text) {
                entry.errorTexts.append(text)
            }
            operations[operation] = entry
        }
    }

    var totalErrors: Int { operations.values.reduce(0) { $0 + $1.errors } }

    func errorTexts(limit: Int) -> [(String, [String])] {
        LoadOperation.allCases.compactMap { operation in
            guard let texts = operations[operation]?.errorTexts, !texts.isEmpty else { return nil }
            return (operation.rawValue, Array(texts.prefix(limit)))
        }
    }
}

/// One simulated app user: its own node (event loop), SSH connection, SCPms registration and IMS SDK.
struct LoadClient: Sendable {
    let index: Int
    let node: Node
    let targets: Targets
    let ssh: SSHConnectivity
    let scpms: SCPmsSessionManager
    let ims: IMSClient
    let mig: MiGClient

    /// - throws: when a client module refuses what serve announced (a bench defect, not a load figure).
    init(index: Int, node: Node, targets: Targets) throws {
        self.index = index
        self.node = node
        self.targets = targets
        ssh = SSHConnectivity(host: targets.sshHost, port: targets.sshPort, user: targets.sshUser, password: targets.sshPassword,
                              node: node, hostKeyPolicy: .pinned(targets.hostKey))
        scpms = try SCPmsSessionManager(node: node, configuration: .init(backendURL: targets.scpmsBase, applicationId: targets.scpmsApplication),
                                        store: InMemorySCPmsSettingsStore())
        // One signing attempt: a retry after 2 s would hide a failure from the figures.
        let configuration = IMSClient.Configuration(apiKey: targets.apiKey, userID: targets.imsUser, imsURL: targets.imsURL, signingAttempts: 1)
        let signer = try URLTokenSigner(node: node, url: targets.signURL, appAuthorization: targets.appToken, trust: .caPEM(targets.signerCA))
        ims = IMSClient(node: node, configuration: configuration) { signer }
        // No retries either: a busy printer or a dropped connection is an error here, not a slower job.
        mig = try MiGClient(configuration: .init(url: targets.migURL, retry: .none), node: node)
    }

    /// A small but real PDF: header, one empty page, trailer — what MiG's sniffing and page count see as a PDF.
    static let document: [UInt8] = {
        var text = "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
            + "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n"
            + "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >> endobj\n"
        // Padding in a comment, to a 2 KB document.
        while text.utf8.count < 2000 { text += "% workbench bench load padding line to make the document a couple of kilobytes\n" }
        return Array((text + "trailer << /Root 1 0 R >>\n%%EOF\n").utf8)
    }()

    static let upload = [UInt8](repeating: UInt8(ascii: "x"), count: 1023) + [UInt8(ascii: "\n")]

    func run(_ window: Window) async -> Tally {
        var tally = Tally()
        let clock = window.clock
        let operations = LoadOperation.allCases
        var sshReady = false
        var registered = false
        var round = index

        while clock.now < window.deadline {
            let operation = operations[round % operations.count]
            round += 1
            // Set-up a client needs before some operations: not timed, failures are errors of that operation.
            if operation == .sunfireExec || operation == .sunfireSFTP, !sshReady {
                let login = await ssh.connect()
                guard login.authorised else {
                    tally.failed(operation, "SSH login to Sunfire: " + (login.failure ?? "refused"))
                    continue
                }
                sshReady = true
            }
            if operation == .scpmsRegister || operation == .scpmsCheck, !registered {
                do {
                    _ = try await scpms.startSession(user: targets.scpmsUser, password: targets.scpmsPassword)
                    registered = true
                } catch {
                    tally.failed(.scpmsRegister, "first registration: \(error)")
                    continue
                }
            }
            let started = clock.now
            let outcome = await perform(operation)
            let ended = clock.now
            switch outcome {
            case .success:
                if ended >= window.measureFrom && ended <= window.deadline { tally.succeeded(operation, seconds: (ended - started).seconds) }
            case .failure(let error):
                tally.failed(operation, error.description)
                // A dropped SSH connection is opened again before the next Sunfire operation.
                if operation == .sunfireExec || operation == .sunfireSFTP { sshReady = false }
            }
        }
        await ssh.disconnect()
        return tally
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// One operation, as the help text describes it; any answer other than the expected one is a failure.
    func perform(_ operation: LoadOperation) async -> Result<Void, Failure> {
        do {
            switch operation {
            case .migPrintJob:
                let job = try await mig.print(.bytes(Self.document, name: "load-\(index).pdf", format: "application/pdf"))
                guard job.status == .successfulOK else { return .failure(Failure("Print-Job answered \(job.status), expected successful-ok")) }
                guard job.id > 0 else { return .failure(Failure("Print-Job answered job-id \(job.id)")) }
            case .scpmsRegister:
                let id = try await scpms.registerApplication()
                guard !id.isEmpty else { return .failure(Failure("registration returned an empty ApplicationConnectionId")) }
            case .scpmsCheck:
                let session = try await scpms.startSession(user: targets.scpmsUser, password: targets.scpmsPassword)
                guard session.registration == .existing else {
                    return .failure(Failure("the registration check did not accept the stored id (registration \(session.registration.rawValue))"))
                }
            case .imsSession:
                let session = try await ims.startSession()
                guard !session.id.isEmpty else { return .failure(Failure("IMS answered an empty session id")) }
            case .ivantiOpen:
                let url = AppConnectRequest.register(appScheme: "loadbench\(index)").url.description
                let request = HTTPRequest(method: .POST, target: targets.busPath,
                                          headers: [URLBusGateway.senderHeader: "load-\(index)", "Content-Type": "text/plain"],
                                          body: ByteBuffer(string: url))
                let response = try await HTTPClient.send(request, host: targets.busHost, port: targets.busPort, on: node)
                guard response.status == .accepted else {
                    return .failure(Failure("bus gateway answered \(response.status.code): \(response.text.prefix(120))"))
                }
            case .sunfireExec:
                let result = try await ssh.execute("lpq -P psts")
                guard result.exitStatus == 0 else {
                    return .failure(Failure("lpq -P psts exited \(result.exitStatus): \(result.stderr.prefix(120))"))
                }
            case .sunfireSFTP:
                guard await ssh.upload(.bytes(Self.upload), to: "load-\(index).txt", transport: .sftp) else {
                    return .failure(Failure("SFTP upload of load-\(index).txt failed"))
                }
            }
            return .success(())
        } catch {
            return .failure(Failure("\(error)"))
        }
    }
}

/// The figures, as text or one JSON object.
struct Report {
    let clients: Int
    let seconds: Int
    let warmupSeconds: Int
    let tally: Tally
    let rss: (before: Double, afterWarmup: Double, atEnd: Double, peak: Double)
    let descriptors: (before: Int?, after: Int?, settledAfter: Duration?)
    /// What serve's descriptors pointed at when their count did not come back (empty when it did).
    let leftover: [(String, Int)]
    let serveStderr: [String]

    #if DEBUG
    static let build = "debug"
    #else
    static let build = "release"
    #endif

    struct Row {
        let name: String
        let operations: Int
        let perSecond: Double
        let p50: Double?
        let p99: Double?
        let errors: Int
        let errorTexts: [String]
    }

    var rows: [Row] {
        var all: [Double] = []
        var rows = LoadOperation.allCases.map { operation in
            let entry = tally.operations[operation] ?? Tally.PerOperation()
            all += entry.latencies
            return Self.row(operation.rawValue, entry.latencies, errors: entry.errors, errorTexts: entry.errorTexts, seconds: seconds)
        }
        rows.append(Self.row("all", all, errors: tally.totalErrors, errorTexts: [], seconds: seconds))
        return rows
    }

    static func row(_ name: String, _ latencies: [Double], errors: Int, errorTexts: [String], seconds: Int) -> Row {
        let sorted = latencies.sorted()
        return Row(name: name, operations: sorted.count, perSecond: Double(sorted.count) / Double(seconds),
                   p50: percentile(sorted, 0.50).map { $0 * 1000 }, p99: percentile(sorted, 0.99).map { $0 * 1000 },
                   errors: errors, errorTexts: errorTexts)
    }

    /// Nearest rank: the smallest value with at least `fraction` of the values at or below it.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    /// No operation may fail: a failure under load is a bug, however fast the rest was.
    var targets: [BenchTarget] {
        [BenchTarget("failed operations", measured: Double(tally.totalErrors), .atMost, 0, unit: "")]
    }

    var growth: Double { rss.atEnd - rss.afterWarmup }
    var descriptorsReturned: Bool { descriptors.settledAfter != nil }

    func text() -> String {
        var lines = ["bench load: \(clients) clients against one 'workbench serve' on loopback, \(seconds) s measured after \(warmupSeconds) s of warm-up (\(Self.build) build)",
                     "operation           ops      ops/s     p50 ms     p99 ms   errors"]
        for row in rows {
            lines.append(row.name.padding(toLength: 16, withPad: " ", startingAt: 0)
                + Self.column("\(row.operations)", 7) + Self.column(Self.number(row.perSecond), 11)
                + Self.column(row.p50.map(Self.number) ?? "-", 11) + Self.column(row.p99.map(Self.number) ?? "-", 11)
                + Self.column("\(row.errors)", 9))
        }
        lines.append("serve RSS: \(Self.number(rss.before)) MiB before the load, \(Self.number(rss.afterWarmup)) MiB after the warm-up, "
                     + "\(Self.number(rss.atEnd)) MiB at the end (\(growth >= 0 ? "+" : "")\(Self.number(growth)) MiB), peak \(Self.number(rss.peak)) MiB")
        let before: String = descriptors.before.map { "\($0)" } ?? "?"
        let after: String = descriptors.after.map { "\($0)" } ?? "?"
        if let settled = descriptors.settledAfter {
            lines.append("serve open fds: \(before) before the load, \(after) once every client had disconnected (back within \(settled.workbenchText))")
        } else {
            lines.append("serve open fds: \(before) before the load, \(after) 5 s after every client had disconnected: NOT back to the start")
            lines.append("  open then: " + leftover.prefix(8).map { "\($0.1) \($0.0)" }.joined(separator: ", "))
        }
        for row in rows where !row.errorTexts.isEmpty {
            for text in row.errorTexts { lines.append("error \(row.name): \(text)") }
        }
        if !serveStderr.isEmpty { lines.append("serve wrote \(serveStderr.count) lines to standard error, first: \(serveStderr[0])") }
        lines.append("Targets:")
        lines += targets.map { "  " + $0.textLine }
        return lines.joined(separator: "\n")
    }

    func json() -> String {
        func figures(_ row: Row) -> String {
            var fields = ["\"ops\":\(row.operations)", "\"ops_per_second\":\(Self.number(row.perSecond))",
                          "\"p50_ms\":\(row.p50.map(Self.number) ?? "null")", "\"p99_ms\":\(row.p99.map(Self.number) ?? "null")",
                          "\"errors\":\(row.errors)"]
            if row.name != "all" { fields.append("\"error_texts\":[" + row.errorTexts.map(JSONString.quoted).joined(separator: ",") + "]") }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let all = rows
        let before: String = descriptors.before.map { "\($0)" } ?? "null"
        let after: String = descriptors.after.map { "\($0)" } ?? "null"
        let settled: String = descriptors.settledAfter.map { Self.number($0.seconds * 1000) } ?? "null"
        let fields: [String] = [
            "\"clients\":\(clients)", "\"seconds\":\(seconds)", "\"warmup_seconds\":\(warmupSeconds)", "\"build\":\"\(Self.build)\"",
            "\"operations\":{" + all.dropLast().map { "\(JSONString.quoted($0.name)):\(figures($0))" }.joined(separator: ",") + "}",
            "\"overall\":" + (all.last.map(figures) ?? "{}"),
            "\"serve_rss_mib_before_load\":\(Self.number(rss.before))", "\"serve_rss_mib_after_warmup\":\(Self.number(rss.afterWarmup))",
            "\"serve_rss_mib_at_end\":\(Self.number(rss.atEnd))", "\"serve_rss_growth_mib\":\(Self.number(growth))",
            "\"serve_rss_peak_mib\":\(Self.number(rss.peak))",
            "\"serve_fds_before_load\":\(before)", "\"serve_fds_after_disconnect\":\(after)",
            "\"serve_fds_returned\":\(descriptorsReturned)", "\"serve_fds_returned_after_ms\":\(settled)",
            "\"serve_fds_open_after\":{" + leftover.prefix(8).map { "\(JSONString.quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}",
            "\"serve_stderr_lines\":\(serveStderr.count)", "\"targets\":" + BenchTarget.jsonArray(targets),
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func number(_ value: Double) -> String { String(format: value >= 100 ? "%.0f" : "%.2f", value) }

    static func column(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(1, width - text.count)) + text
    }
}
