import Foundation
import Testing
import WorkbenchKit
import WorkbenchTesting

/// The swarm helper itself: seeds in parallel, one issue per failing seed with its replay command.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["WORKBENCH_SEED"] == nil, "a replay runs one seed of one test"))
struct SwarmHelperTests {
    @Test func everySeedRunsInItsOwnWorld() async {
        let outcome = await swarm(seeds: 1...24, jobs: 4) { world in
            try world.start("echo")
            try world.run("http GET http://echo/ as r\nexpect ${r.status} == 200")
            world.check(world.seed >= 1 && world.seed <= 24, "seed \(world.seed) is one of the range")
        }
        #expect(outcome.seedsRun == 24)
        #expect(outcome.failingSeeds.isEmpty)
    }

    /// Seeds 3 and 6 fail, one by a check and one by a thrown error: each gets one issue, with what failed, the world's
    /// changes, and the command that replays it.
    @Test func eachFailingSeedIsReportedOnceWithItsReplayCommand() async {
        let reports = ReportedIssues()
        var outcome: SwarmOutcome?
        await withKnownIssue {
            outcome = await swarm(seeds: 1...8, jobs: 2) { world in
                _ = world.node("laptop")
                try world.apply(.link(from: "phone", to: "laptop", latency: .fixed(.milliseconds(10))))
                world.check(world.seed != 3, "seed 3 planted")
                struct Planted: Error {}
                if world.seed == 6 { throw Planted() }
            }
        } matching: { issue in
            reports.append(issue.comments.map(\.rawValue).joined(separator: "\n"))
            return true
        }
        #expect(outcome?.failingSeeds == [3, 6])
        let seen = reports.all
        #expect(seen.count == 2)
        #expect(seen.first { $0.hasPrefix("seed 3 failed (1 failure):") }?.contains("seed 3 planted") == true)
        #expect(seen.first { $0.hasPrefix("seed 6 failed (1 failure):") }?.contains("the body threw: Planted()") == true)
        for report in seen {
            #expect(report.contains("changes to the world: link phone <-> laptop latency 10ms"))
            #expect(report.contains("swift test --filter 'WorkbenchKitTests.SwarmHelperTests/eachFailingSeedIsReportedOnceWithItsReplayCommand'"))
        }
        #expect(seen.contains { $0.contains("replay: WORKBENCH_SEED=3 swift test") })
    }
}

/// Issues a known-issue matcher saw (it may be called from any thread).
final class ReportedIssues: @unchecked Sendable {
    // @unchecked Sendable: every access holds `lock`.
    private let lock = NSLock()
    private var reports: [String] = []

    func append(_ report: String) { lock.withLock { reports.append(report) } }
    var all: [String] { lock.withLock { reports } }
}
