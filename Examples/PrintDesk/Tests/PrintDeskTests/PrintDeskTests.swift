import MiGClient
import PrintDesk
import Synchronization
import Testing
import WorkbenchKit
import WorkbenchTesting

/// The app team's print feature in the simulated ecosystem: a MiG actor, the phone's network between them, faults.
@Suite struct PrintDeskTests {
    /// A world with MiG running and the phone 20 ms away; returns the desk on the phone and MiG's plain IPP URL.
    static func desk(in world: Simulation, policy: PrintDesk.Policy = PrintDesk.Policy()) throws -> PrintDesk {
        let mig = try world.start("mig")
        try world.apply(.link(from: "phone", to: "mig", latency: .fixed(.milliseconds(20))))
        let url = try #require(mig.urls["ipp"], "mig has a plain IPP endpoint")
        return try PrintDesk(url: url, node: world.node("phone"), policy: policy)
    }

    /// 250 kB: three pages, a few seconds of printing.
    static let report = try! Document.generated(byteCount: 250_000, name: "report.pdf")

    @Test func printsOnAQuietNetwork() throws {
        try simulate(seed: 1) { world in
            let desk = try Self.desk(in: world)
            let outcome = try world.perform("print the report") { await desk.print(Self.report) }
            #expect(outcome == .printed(job: 1, submissions: 1))
            #expect(world.events.contains { $0.actor == "mig" && $0.name == "job-completed" && $0["job"] == "1" })
        }
    }

    @Test func submitsAgainWhenThePrinterAbortsTheJob() throws {
        try simulate(seed: 2) { world in
            let desk = try Self.desk(in: world)
            try world.apply(.fault("mig.job-abort", .once))
            let outcome = try world.perform("print the report") { await desk.print(Self.report) }
            #expect(outcome == .printed(job: 2, submissions: 2))
        }
    }

    @Test func keepsPollingThroughAPartition() throws {
        try simulate(seed: 3) { world in
            let desk = try Self.desk(in: world)
            // The upload takes well under a second; the partition then cuts the polls for half a minute.
            try world.apply(.partition("phone", "mig", for: .seconds(30)), after: .seconds(1))
            let outcome = try world.perform("print the report") { await desk.print(Self.report) }
            #expect(outcome == .printed(job: 1, submissions: 1))
            #expect(world.now > .seconds(30))
        }
    }

    @Test func givesUpWhenEverySubmissionIsRefused() throws {
        try simulate(seed: 4) { world in
            var policy = PrintDesk.Policy()
            policy.submissions = 2
            let desk = try Self.desk(in: world, policy: policy)
            try world.apply(.fault("mig.busy", .on))
            let outcome = try world.perform("print the report") { await desk.print(Self.report) }
            guard case .failed(let reason, let submissions) = outcome else {
                Issue.record("expected the desk to give up, got \(outcome)")
                return
            }
            #expect(submissions == 2)
            #expect(reason.contains("server-error-busy"))
        }
    }

    /// Scenario lines and the team's code share one world: the lines see the desk's job, and the digest is the seed's.
    @Test func scenarioLinesInTheSameWorld() throws {
        let digests = try (1...2).map { _ in
            try simulate(seed: 5) { world in
                let desk = try Self.desk(in: world)
                let outcome = try world.perform("print the report") { await desk.print(Self.report) }
                #expect(outcome == .printed(job: 1, submissions: 1))
                try world.run(
                    """
                    mig print bytes 1000 as second
                    expect ${second.job} == 2
                    expect trace job-completed by mig job=1
                    """)
                #expect(try world.value(of: "second.status") == "ok")
                #expect(world.failures.isEmpty)
                return world.digest
            }
        }
        #expect(digests[0] == digests[1])
    }

    /// What each seed of the swarm draws from: the printer busy or aborting jobs from some moment on, the phone cut off
    /// from MiG, MiG's answers held, the connection reset, within the first four seconds (the upload and the first
    /// polls of a job). (The reset found a bug of MiGClient, since fixed: a reset in the middle of the body of
    /// Print-Job's 200 answer was taken for a malformed answer, not a lost one, so the desk submitted again and MiG
    /// printed twice; seed 64 drew it at 642 ms.)
    static let faults = SwarmFaults(
        [
            .fault("mig.busy", .chance(0.2)),
            .fault("mig.job-abort", .chance(0.15)),
            .partition("phone", "mig", for: .seconds(20)),
            .hold(from: "mig", to: "phone", for: .seconds(5)),
            .reset("phone", "mig"),
        ], count: 1...5, within: .zero ... .seconds(4))

    /// 200 seeds, each drawing its own latencies and its own faults at their own moments: the desk never prints a
    /// document twice, and says "printed" only for a job MiG completed.
    @Test func swarmOver200Seeds() async {
        let resubmitted = Tally()
        let outcome = await swarm(seeds: 1...200, faults: Self.faults) { world in
            let desk = try Self.desk(in: world)
            try world.apply(.link(from: "phone", to: "mig", latency: .uniform(.milliseconds(5), .milliseconds(150))))
            let printed = try world.perform("print the report", timeout: .seconds(3600)) { await desk.print(Self.report) }
            let completed = world.events.filter { $0.actor == "mig" && $0.name == "job-completed" }.compactMap { $0["job"] }
            world.check(completed.count <= 1, "one print, at most one completed job; MiG completed jobs \(completed)")
            switch printed {
            case .printed(let job, let submissions):
                world.check(completed == ["\(job)"], "printed job \(job), but MiG completed \(completed)")
                if submissions > 1 { resubmitted.count.withLock { $0 += 1 } }
            case .failed(let reason, _):
                world.check(completed.isEmpty, "failed (\(reason)), but MiG completed \(completed)")
            case .unknown:
                break
            }
        }
        // A failing seed has its issue already. Under these faults some seeds must have needed a second submission, or the
        // swarm tested nothing of it.
        if outcome.seedsRun == 200 { #expect(resubmitted.count.withLock { $0 } > 0) }
    }
}

/// A count the swarm's worlds add to from their threads.
private final class Tally: Sendable {
    let count = Mutex(0)
}
