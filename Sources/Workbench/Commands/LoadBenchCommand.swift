import ArgumentParser
import Foundation
import Scenario
import SystemKit

/// `workbench bench load`: every served actor at once under many concurrent clients, on loopback — throughput,
/// latency and errors per operation, and what the load does to the `serve` process (memory, file descriptors).
/// ``LoadBench`` drives the load.
struct LoadBenchCommand: AsyncParsableCommand {
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
        let setUpText =
            setUps.isEmpty
            ? ""
            : "Setting up (\(setUps.map(\.what).joined(separator: ", "))) is not an operation; its "
                + "failures count as errors of \(listed(setUps.map(\.countsAs))).\n"
        // The values for the default --clients; the reasons say how they follow the client count.
        let serveOptions = Catalog.loadBenchParts.flatMap { $0.serveOptions(200) }.map { "  --set \($0.option)=\($0.value): \($0.why).\n" }
            .joined()
        return """
            Server side: one 'workbench serve' child process with every actor, every port 0 (the kernel picks free \
            ones) and a temporary --state-dir (\(stateOnDisk) on disk), removed afterwards; otherwise serve's own \
            settings, but for:

            """ + serveOptions + """

                Client side: --clients concurrent Swift tasks in this process, on one live wire (NIO on loopback), each \
                using the project's own client modules and going round the operations below, one at a time, until the \
                time is up. Client k starts at operation k of the round, so every server sees every kind of request all \
                the time (--only: round the operations it names); with --rate each client waits for its next operation's \
                due time, and a latency counts from that due time, so a server that falls behind shows its queue (as \
                wrk2 does). One operation is:

                """ + operations + setUpText + """

                    Figures: operations that complete within the --seconds after the --warmup-seconds count towards ops/s \
                    and p50/p99 (ms, from the call to its result). Errors are counted whenever they happen (warm-up \
                    included). serve's VmRSS is read from /proc before the load, after the warm-up and at the end; its open \
                    fds (/proc/PID/fd) before the load and once every client has disconnected (polled for up to 5 s for the \
                    count to come back). CPU per operation: the CPU time (user + system, /proc/PID/stat) serve and this \
                    process used over the measured seconds, divided by the operations completed in them; with it the \
                    closed loop's floor: clients that never pause see a mean latency of clients / throughput (Little's \
                    law), and the throughput cannot pass cores / CPU per operation. Targets: no error; every operation p50 ≤ \(BenchTarget.text(LoadReport.p50GoalMs)) ms \
                    and p99 ≤ \(BenchTarget.text(LoadReport.p99GoalMs)) ms; RSS growth after the warm-up below 4 MiB (2 MiB \
                    with --seconds 600 or more); the fds back. With --check a missed target makes the run exit 1 after \
                    printing the figures. The output names the CPU and its cores. Clients and serve share the machine: use \
                    a release build.
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

    @Option(
        name: .customLong("only"),
        help: ArgumentHelp("Go round only this operation (repeat for more; default: every one).", valueName: "OPERATION"))
    var only: [String] = []

    @Option(
        help: ArgumentHelp(
            "Operations per second offered by all clients together, 1…100000: each client starts one every clients / rate seconds (default: a closed loop, each client goes on as soon as its last operation ended, then an open loop at 80 % of the throughput it measured; the latency targets hold the open loop).",
            valueName: "OPS"))
    var rate: Int?

    @Flag(help: "Print one JSON object instead of a table (without --rate: {\"closed\": …, \"open\": …}, each a run's figures).")
    var json = false

    @OptionGroup var check: BenchCheckOption

    func validate() throws {
        guard (1...2000).contains(clients) else { throw ValidationError("--clients \(clients): expected 1…2000") }
        guard (1...3600).contains(seconds) else { throw ValidationError("--seconds \(seconds): expected 1…3600") }
        guard (0...600).contains(warmupSeconds) else { throw ValidationError("--warmup-seconds \(warmupSeconds): expected 0…600") }
        if let rate, !(1...100_000).contains(rate) { throw ValidationError("--rate \(rate): expected 1…100000 operations per second") }
        for name in only where !LoadBench.operations.contains(name) {
            throw ValidationError(
                "--only \(name): no such operation\(didYouMean(name, among: LoadBench.operations)); the operations are "
                    + LoadBench.operations.joined(separator: ", "))
        }
    }

    /// What the open loop's share of the closed loop's throughput cost the machine: paced, each operation costs more
    /// CPU than in a closed loop (fewer requests share each wake-up, each read and write), so 80 % of the throughput is
    /// more than 80 % of the cores, and the queueing the latency targets measure grows with that share, not with the rate.
    static func pacedCost(closed: LoadReport, open: LoadReport) -> String? {
        guard let closedCost = closed.cpuCost, let openCost = open.cpuCost else { return nil }
        let closedPer = closedCost.servePerOperation + closedCost.clientsPerOperation
        let openPer = openCost.servePerOperation + openCost.clientsPerOperation
        guard closedPer > 0 else { return nil }
        return "open loop: paced at \(LoadReport.number(openLoopShare * 100)) % of the closed loop's throughput, an operation cost "
            + "\(LoadReport.number(openPer * 1e6)) µs of CPU against \(LoadReport.number(closedPer * 1e6)) µs in the closed loop "
            + "(\(openPer >= closedPer ? "+" : "")\(LoadReport.number((openPer / closedPer - 1) * 100)) %), so the machine was "
            + "\(LoadReport.number(openCost.busy * 100)) % busy: the open loop's latencies are those of a machine that busy"
    }

    /// The open loop's offered rate after a closed loop: this share of the throughput the closed loop measured.
    static let openLoopShare = 0.8

    func run() async throws {
        let chosen = only.isEmpty ? LoadBench.operations : LoadBench.operations.filter(only.contains)
        func load(rate: Int?) async throws -> LoadReport {
            try await LoadBench(clients: clients, seconds: seconds, warmupSeconds: warmupSeconds, chosen: chosen, rate: rate).run()
        }
        var reports = [try await load(rate: rate)]
        if rate == nil, let closed = reports.first?.rows.last?.perSecond {
            // The latency targets are an open loop's: offered 80 % of what the closed loop carried.
            reports.append(try await load(rate: max(1, Int(closed * Self.openLoopShare))))
        }
        if json {
            print(reports.count == 1 ? reports[0].json() : "{\"closed\":\(reports[0].json()),\"open\":\(reports[1].json())}")
        } else {
            print(reports.map { $0.text() }.joined(separator: "\n\n"))
            if reports.count == 2, let note = Self.pacedCost(closed: reports[0], open: reports[1]) { print(note) }
        }
        for report in reports where report.tally.totalErrors > 0 {
            let tally = report.tally
            printError("bench load: \(tally.totalErrors) operations failed (the target is 0); first errors:")
            for (operation, texts) in tally.errorTexts(limit: 3) { for text in texts { printError("  \(operation): \(text)") } }
            if !report.serveStderr.isEmpty { printError("serve's standard error:\n" + report.serveStderr.prefix(20).joined(separator: "\n")) }
        }
        try check.finish(reports.flatMap(\.targets))
    }
}
