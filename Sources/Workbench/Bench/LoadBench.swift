import ArgumentParser
import Foundation
import JSONEscaping
import Wire

/// `workbench bench load`: every served actor at once under many concurrent clients, on loopback — throughput,
/// latency and errors per operation, and what the load does to the `serve` process (memory, file descriptors).
struct LoadBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Many concurrent clients against one 'workbench serve': ops/s, p50/p99 and errors per operation; serve's RSS and open fds.",
        discussion: discussion
    )

    /// The help text, with every system's operations in the catalogue's order.
    static var discussion: String {
        let operations = Catalog.loadBenchParts.flatMap(\.operations)
            .map { "  " + $0.name.padding(toLength: 16, withPad: " ", startingAt: 0) + $0.help + "\n" }.joined()
        let setUps = Catalog.loadBenchParts.flatMap(\.setUps)
        let setUpText = setUps.isEmpty ? "" : "Setting up (\(setUps.map(\.what).joined(separator: ", "))) is not an operation; its "
            + "failures count as errors of \(listed(setUps.map(\.countsAs))).\n"
        return """
            Server side: one 'workbench serve' child process with every actor, every port 0 (the kernel picks free \
            ones) and a temporary --state-dir (\(stateOnDisk) on disk), removed afterwards.

            Client side: --clients concurrent Swift tasks in this process, on one live wire (NIO on loopback), each \
            using the project's own client modules and going round the operations below, one at a time, until the \
            time is up. Client k starts at operation k of the round, so every server sees every kind of request all \
            the time. One operation is:

            """ + operations + setUpText + """

            Figures: operations that complete within the --seconds after the --warmup-seconds count towards ops/s \
            and p50/p99 (ms, from the call to its result). Errors are counted whenever they happen (warm-up \
            included); the target is none, and with --check any error makes the run exit 1 after printing the figures. serve's VmRSS is read from \
            /proc before the load, after the warm-up and at the end; its open fds (/proc/PID/fd) before the load and \
            once every client has disconnected (polled for up to 5 s for the count to come back). Use a release build.
            """
    }

    /// What serve keeps in its --state-dir, by the options it fills there (see ``ServeCommand``): each system's
    /// spools, the SQLite databases, each system's homes.
    static var stateOnDisk: String {
        func owners(_ option: String) -> [String] {
            Catalog.systems.filter { $0.actorKinds.contains { $0.options.contains { $0.name == option } } }.map(\.name)
        }
        let databases = owners("database").isEmpty ? [] : ["the SQLite databases"]
        return listed(owners("spool").map { "\($0)'s spool" } + databases + owners("homes").map { "\($0)'s homes" })
    }

    /// `a`, `a and b`, `a, b and c`.
    static func listed(_ items: [String]) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }

    @Option(help: "Concurrent clients, 1…2000.")
    var clients = 200

    @Option(help: "Seconds measured after the warm-up, 1…3600.")
    var seconds = 60

    @Option(help: "Seconds of load before measuring starts, 0…600.")
    var warmupSeconds = 5

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @OptionGroup var check: BenchCheckOption

    /// Every system's operations, in the order a client goes round them.
    static var operations: [String] { Catalog.loadBenchParts.flatMap(\.operations).map(\.name) }

    func validate() throws {
        guard (1...2000).contains(clients) else { throw ValidationError("--clients \(clients): expected 1…2000") }
        guard (1...3600).contains(seconds) else { throw ValidationError("--seconds \(seconds): expected 1…3600") }
        guard (0...600).contains(warmupSeconds) else { throw ValidationError("--warmup-seconds \(warmupSeconds): expected 0…600") }
    }

    /// Every actor's ports, as `--set` overrides: 0 lets the kernel pick a free one, so the bench never collides
    /// with a `serve` already running on the usual ports. (The ports are the options serve gives a number, as
    /// ``ServeCommand/defaultPorts`` lists them.)
    static var zeroPorts: [String] {
        Catalog.actorKinds.flatMap { kind in
            (Catalog.liveOptions[kind.name] ?? [:]).filter { $0.key.hasSuffix("port") && Int($0.value) != nil }.keys.sorted().map { "\(kind.name).\($0)" }
        }
    }

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
        let connections: [@Sendable (Int, Node) throws -> any LoadSession]
        do { connections = try Catalog.loadBenchParts.map { try $0.connect(served.announcement) } } catch {
            throw BenchError("\(error); serve announced: \(served.announcement.listening.map { "\($0.kind) \($0.url)" }.joined(separator: ", "))")
        }
        let probe = served.probe

        // Let serve settle (its loops and pools start lazily) before the baseline is read.
        try await Task.sleep(for: .milliseconds(300))
        let descriptorsBefore = probe.openDescriptors()
        let rssBefore = probe.residentMiB()

        let wire = LiveWire()
        let loadClients: [LoadClient]
        do {
            loadClients = try (0..<clients).map { index in
                let node = wire.node("load-\(index)")
                return LoadClient(index: index, sessions: try connections.map { try $0(index, node) })
            }
        } catch {
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

    /// 2,000 clients hold their long-lived connections plus their HTTP exchanges, here and in serve (which inherits
    /// the limit): raise the soft limit on descriptors to the hard one, which any process may do.
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

/// What clients saw, per operation.
struct Tally: Sendable {
    struct PerOperation: Sendable {
        /// Latencies in seconds of the operations that completed successfully inside the window.
        var latencies: [Double] = []
        var errors = 0
        /// Distinct error texts, in the order first seen (a few only).
        var errorTexts: [String] = []
    }

    var operations: [String: PerOperation] = [:]

    static let keptErrorTexts = 5

    mutating func succeeded(_ operation: String, seconds: Double) {
        operations[operation, default: PerOperation()].latencies.append(seconds)
    }

    mutating func failed(_ operation: String, _ text: String) {
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
        LoadBench.operations.compactMap { operation in
            guard let texts = operations[operation]?.errorTexts, !texts.isEmpty else { return nil }
            return (operation, Array(texts.prefix(limit)))
        }
    }
}

/// One simulated app user: its own node (event loop) and, for each system, its own session (connections,
/// registrations, SDKs).
struct LoadClient: Sendable {
    let index: Int
    /// One per system, in the order of ``Catalog/loadBenchParts``.
    let sessions: [any LoadSession]

    func run(_ window: Window) async -> Tally {
        var tally = Tally()
        let clock = window.clock
        // Each operation of the round, with the session that performs it.
        let round = Catalog.loadBenchParts.enumerated().flatMap { part, system in system.operations.map { ($0.name, part) } }
        var sessions = self.sessions
        var position = index

        while clock.now < window.deadline {
            let (operation, part) = round[position % round.count]
            position += 1
            // Set-up a client needs before some operations: not timed, failures are errors of the operation it names.
            if let failure = await sessions[part].prepare(for: operation) {
                tally.failed(failure.operation, failure.text)
                continue
            }
            let started = clock.now
            do {
                try await sessions[part].perform(operation)
                let ended = clock.now
                if ended >= window.measureFrom && ended <= window.deadline { tally.succeeded(operation, seconds: (ended - started).seconds) }
            } catch {
                tally.failed(operation, "\(error)")
            }
        }
        for session in sessions { await session.close() }
        return tally
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
        var rows = LoadBench.operations.map { operation in
            let entry = tally.operations[operation] ?? Tally.PerOperation()
            all += entry.latencies
            return Self.row(operation, entry.latencies, errors: entry.errors, errorTexts: entry.errorTexts, seconds: seconds)
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
