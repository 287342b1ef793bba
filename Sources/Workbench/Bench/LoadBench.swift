import Foundation
import SystemKit
import Wire

/// The driver of `workbench bench load` (``LoadBenchCommand``): starts one `workbench serve` child with every actor,
/// sets `clients` concurrent clients going round every system's operations on one live wire, and measures what
/// they see and what the load does to serve (memory, file descriptors).
struct LoadBench {
    let clients: Int
    let seconds: Int
    let warmupSeconds: Int
    /// The operations clients go round, in the catalogue's order (every one unless `--only` chose some).
    let chosen: [String]
    /// Operations per second offered by all clients together (`--rate`); nil: each client goes on at once (closed loop).
    let rate: Int?

    /// Every system's operations, in the order a client goes round them.
    static var operations: [String] { Catalog.loadBenchParts.flatMap(\.operations).map(\.name) }

    /// Every actor's ports, as `--set` overrides: 0 lets the kernel pick a free one, so the bench never collides
    /// with a `serve` already running on the usual ports. (The ports are the options serve gives a number, as
    /// ``ServeCommand/defaultPorts`` lists them.)
    static var zeroPorts: [String] {
        Catalog.servedKinds.flatMap { kind in
            (Catalog.liveOptions[kind.name] ?? [:]).filter { $0.key.hasSuffix("port") && Int($0.value) != nil }.keys.sorted().map {
                "\(kind.name).\($0)"
            }
        }
    }

    /// Runs the load and returns the figures; serve and its temporary state folder are gone when it returns.
    func run() async throws -> LoadReport {
        let folder = try BenchInterruption.workFolder("load")
        defer { BenchInterruption.remove(folder) }
        let work = folder.path
        Self.raiseDescriptorLimit()

        // serve's complaints go to a file, quoted when the run fails: a server-side error is seen, not guessed.
        let stderrPath = "\(work)/serve.stderr"
        guard FileManager.default.createFile(atPath: stderrPath, contents: nil), let stderrHandle = FileHandle(forWritingAtPath: stderrPath) else {
            throw WorkbenchError("cannot write \(stderrPath)")
        }
        let arguments =
            Self.zeroPorts.flatMap { ["--set", "\($0)=0"] }
            + Catalog.loadBenchParts.flatMap { $0.serveOptions(clients) }.flatMap { ["--set", "\($0.option)=\($0.value)"] }
            + ["--state-dir", "\(work)/state"]
        let served = try Served.workbenchServe(arguments, ready: Catalog.servedKinds.map(\.name), errors: stderrHandle)
        defer { served.stop() }
        let connections: [@Sendable (Int, Node) throws -> any LoadSession]
        do { connections = try Catalog.loadBenchParts.map { try $0.connect(served.announcement) } } catch {
            throw WorkbenchError("\(error); serve announced: \(served.announcement.listening.map { "\($0.kind) \($0.url)" }.joined(separator: ", "))")
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
                return LoadClient(index: index, sessions: try connections.map { try $0(index, node) }, chosen: chosen, pace: pace(of: index))
            }
        } catch {
            try? await wire.shutdown()
            throw error
        }
        let clock = ContinuousClock()
        let window = Window(clock: clock, measureFrom: clock.now + .seconds(warmupSeconds), seconds: seconds)
        async let samples = Self.sample(probe, window: window)
        let tallies = await withTaskGroup(of: Tally.self) { group in
            for client in loadClients { group.addTask { await client.run(window) } }
            var all: [Tally] = []
            for await tally in group { all.append(tally) }
            return all
        }
        let (rssAfterWarmup, rssAtEnd, cpu) = await samples
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
        return LoadReport(
            clients: clients, operations: chosen, rate: rate, seconds: seconds, warmupSeconds: warmupSeconds, tally: tally,
            rss: (rssBefore, rssAfterWarmup, rssAtEnd, peak), cpuSeconds: cpu,
            descriptors: (descriptorsBefore, descriptorsAfter, settledAfter), leftover: leftover, serveStderr: serveErrors)
    }

    /// serve's VmRSS once the warm-up is over and once the measured seconds are, and the CPU time serve and this
    /// process (the clients) used in between.
    static func sample(_ probe: ProcessProbe, window: Window) async -> (Double, Double, (serve: Double, clients: Double)) {
        let clients = ProcessProbe(pid: getpid())
        try? await window.clock.sleep(until: window.measureFrom)
        let afterWarmup = probe.residentMiB()
        let cpuBefore = (probe.cpuSeconds(), clients.cpuSeconds())
        try? await window.clock.sleep(until: window.deadline)
        let cpu = (serve: probe.cpuSeconds() - cpuBefore.0, clients: clients.cpuSeconds() - cpuBefore.1)
        return (afterWarmup, probe.residentMiB(), cpu)
    }

    /// Client `index`'s pace under `--rate`: each client starts one operation every clients / rate seconds, the
    /// clients' first ones spread evenly over that interval.
    func pace(of index: Int) -> (interval: Duration, offset: Duration)? {
        guard let rate else { return nil }
        let interval = Duration.seconds(Double(clients) / Double(rate))
        return (interval, interval * (Double(index) / Double(clients)))
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
