import Foundation
import Testing

@testable import Swarm

/// Shard results merged, refused, written and read back, without running anything.
@Suite struct SwarmResultTests {
    static let files = ["a.scn", "b.scn"]

    /// A run as a shard's JSON holds it; `failure` nil means it passed.
    func run(_ file: String, _ seed: UInt64, digest: String? = nil, failure: String? = nil, reached: [String] = []) throws -> SwarmRun {
        let failureJSON = failure.map { "\"\($0)\"" } ?? "null"
        let text = """
            {"file": "\(file)", "seed": \(seed), "passed": \(failure == nil), "digest": "\(digest ?? "digest-\(file)-\(seed)")",
             "failure": \(failureJSON), "faults": [{"before": 1, "line": "fault x.y once"}], "virtualNanoseconds": 5, "traceEvents": 9,
             "reached": [\(reached.map { "\"\($0)\"" }.joined(separator: ","))]}
            """
        return try JSONDecoder().decode(SwarmRun.self, from: Data(text.utf8))
    }

    func shard(
        _ index: UInt64, of count: UInt64, seeds: ClosedRange<UInt64>, failing: Set<UInt64> = [], files: [String] = files,
        faults: FaultClass = .all, wall: Double = 1
    ) throws -> SwarmResult {
        let runs = try seeds.filter { $0 % count == index }.flatMap { seed in
            try files.map {
                try run($0, seed, failure: failing.contains(seed) && $0 == files[0] ? "a.scn:3: INVARIANT BROKEN x.y at trace event 2" : nil)
            }
        }
        return SwarmResult(
            files: files, seeds: "\(seeds.lowerBound)..\(seeds.upperBound)", faults: faults, shard: "\(index)/\(count)",
            runs: runs, wallSeconds: wall)
    }

    @Test func shardsMergeIntoTheWholeRunInSeedOrder() throws {
        let parts = try (0..<3).map { try shard(UInt64($0), of: 3, seeds: 1...10, failing: [4], wall: Double($0 + 1)) }
        let merged = try SwarmResult.merge(parts.reversed())
        #expect(merged.runs.map(\.seed) == (1...10).flatMap { [$0, $0] })
        #expect(merged.runs.map(\.file) == Array(repeating: Self.files, count: 10).flatMap { $0 })
        #expect(merged.seeds == "1..10" && merged.shard == nil && merged.wallSeconds == 3)
        #expect(merged.failed.map(\.seed) == [4])
        #expect(merged.summary == "FAIL swarm: 10 seeds × 2 files, 1 failed (1 broke an invariant), faults all, 3.0 s wall, 200 seeds/min")
    }

    @Test func theSameRunInTwoShardsCountsOnceWhereverItsFilesWere() throws {
        let first = try shard(0, of: 1, seeds: 1...4)
        let elsewhere = SwarmResult(
            files: Self.files.map { "other/dir/" + $0 }, seeds: "3..6", faults: .all, shard: nil,
            runs: try (3...6).flatMap { seed in try Self.files.map { try run("other/dir/" + $0, seed, digest: "digest-\($0)-\(seed)") } },
            wallSeconds: 1)
        let merged = try SwarmResult.merge([first, elsewhere])
        #expect(merged.runs.count == 12)
        #expect(merged.seeds == "1..4,3..6")
        #expect(merged.summary.hasPrefix("PASS swarm: 6 seeds × 2 files, 0 failed"))
    }

    @Test func aSeedWithTwoDigestsIsRefused() throws {
        let part = try shard(0, of: 1, seeds: 1...3)
        let tampered = SwarmResult(
            files: part.files, seeds: part.seeds, faults: part.faults, shard: nil,
            runs: [try run("a.scn", 2, digest: String(repeating: "0", count: 64))], wallSeconds: 1)
        let error = try #require(refusal { try SwarmResult.merge([part, tampered]) })
        #expect(error.kind == .argument)
        #expect(error.description.hasPrefix("seed 2 of a.scn ran twice with different digests (digest-a.scn-2 vs 0000000000000000)"), "\(error)")
    }

    @Test func resultsOfOtherFilesOrFaultsOrNoneAreRefused() throws {
        let part = try shard(0, of: 2, seeds: 1...4)
        let otherFaults = try shard(1, of: 2, seeds: 1...4, faults: .network)
        let otherFiles = try shard(1, of: 2, seeds: 1...4, files: ["a.scn"])
        for other in [otherFaults, otherFiles] {
            let error = try #require(refusal { try SwarmResult.merge([part, other]) })
            #expect(error.description.hasPrefix("the results did not run the same scenarios with the same faults"), "\(error)")
        }
        #expect(refusal { try SwarmResult.merge([]) }?.description == "expected at least one result file")
    }

    @Test func aResultReadsBackAsWrittenAndAnythingElseIsRefused() throws {
        let part = try shard(1, of: 2, seeds: 1...6, failing: [3])
        let read = try SwarmResult.decode(part.jsonText, source: "part.json")
        #expect(read.runs == part.runs && read.files == part.files && read.faults == part.faults && read.shard == "1/2")
        let error = try #require(refusal { try SwarmResult.decode("{\"runs\": 3}", source: "junk.json") })
        #expect(error.kind == .resultFile)
        #expect(error.description.hasPrefix("junk.json: not a swarm result (JSON written by `workbench swarm --json`)"))
    }

    @Test func junitHasACasePerSeedAndTheFailuresAndTheOptionsOnce() throws {
        let result = try shard(0, of: 1, seeds: 1...5, failing: [2, 5])
        let xml = result.junitXML
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 10)
        #expect(xml.components(separatedBy: "<failure ").count - 1 == 2)
        #expect(
            xml.contains(
                "name=\"seed 5\">\n      <failure message=\"FAIL a.scn seed 5 (1 fault): a.scn:3: INVARIANT BROKEN x.y at trace event 2&#10;"))
        #expect(!xml.contains("    swarm options"), "not with each failure")
        let suites = xml.components(separatedBy: "<property name=\"swarm-options\" value=\"faults all, sites on 0.50, ").count - 1
        #expect(result.files.count == 2 && suites == result.files.count, "once per suite, with its other properties")
        #expect(!xml.contains("swarm reach"), "no reach point, no reach suite")
    }

    /// Seeds 1…4 over two files; `a.scn` reaches `x.often` in every seed, `b.scn` reaches `y.once` in seed 3 only.
    func reaching(require: Bool = false) throws -> SwarmResult {
        var runs: [SwarmRun] = []
        for seed in UInt64(1)...4 {
            runs.append(try run("a.scn", seed, reached: ["x.often"]))
            runs.append(try run("b.scn", seed, reached: seed == 3 ? ["x.often", "y.once"] : []))
        }
        return SwarmResult(
            files: Self.files, seeds: "1..4", faults: .all, shard: nil, runs: runs, wallSeconds: 1,
            reachPoints: ["x.often", "y.once", "z.never"], requireReach: require)
    }

    @Test func theReachTableCountsSeedsPerPointAndListsThoseNeverReached() throws {
        let result = try reaching()
        #expect(result.reach.map { "\($0.point)=\($0.seeds)" } == ["x.often=4", "y.once=1", "z.never=0"])
        #expect(result.neverReached == ["z.never"])
        #expect(
            result.reachTable == """
                reach: seeds (of 4) that reached each point
                  4  x.often
                  1  y.once
                  0  z.never
                never reached (1 of 3): z.never

                """)
        #expect(
            result.passed
                && result.summary.hasPrefix("PASS swarm: 4 seeds × 2 files, 0 failed (0 broke an invariant), faults all, 2 of 3 reach points reached")
        )
        let json = result.jsonText
        #expect(json.contains("\"reach\" : {\n    \"x.often\" : 4,\n    \"y.once\" : 1,\n    \"z.never\" : 0\n  }"), "\(json)")
        #expect(json.contains("\"never_reached\" : [\n    \"z.never\"\n  ]"))
        let read = try SwarmResult.decode(json, source: "r.json")
        #expect(read.reachPoints == ["x.often", "y.once", "z.never"] && read.neverReached == ["z.never"] && !read.requireReach)
        let xml = result.junitXML
        #expect(xml.contains("<testsuite name=\"swarm reach\" tests=\"3\" failures=\"0\" skipped=\"1\">"))
        #expect(xml.contains("name=\"z.never\">\n      <skipped message=\"never reached by any seed\"/>"))
    }

    @Test func requireReachFailsTheSwarmOnAPointNeverReached() throws {
        let result = try reaching(require: true)
        #expect(!result.passed && result.failed.isEmpty)
        #expect(result.summary.hasPrefix("FAIL swarm: 4 seeds × 2 files, 0 failed"))
        #expect(result.reachTable.hasSuffix("FAIL reach: --require-reach, and 1 point was never reached\n"))
        #expect(result.junitXML.contains("<testsuite name=\"swarm reach\" tests=\"3\" failures=\"1\" skipped=\"0\">"))
        #expect(result.junitXML.contains("<failure message=\"never reached by any seed\"/>"))
        #expect(try SwarmResult.decode(result.jsonText, source: "r.json").requireReach)
        let everything = SwarmResult(
            files: result.files, seeds: result.seeds, faults: .all, shard: nil, runs: result.runs, wallSeconds: 1,
            reachPoints: ["x.often", "y.once"], requireReach: true)
        #expect(everything.passed, "every point reached")
    }

    @Test func shardsMergeTheirReach() throws {
        let whole = try reaching()
        let parts = (0..<2).map { index in
            SwarmResult(
                files: whole.files, seeds: "1..4", faults: .all, shard: "\(index)/2", runs: whole.runs.filter { $0.seed % 2 == UInt64(index) },
                wallSeconds: 1, reachPoints: index == 0 ? ["x.often", "y.once"] : ["x.often", "z.never"])
        }
        let merged = try SwarmResult.merge(parts)
        #expect(merged.reach.map { "\($0.point)=\($0.seeds)" } == ["x.often=4", "y.once=1", "z.never=0"])
        #expect(!merged.requiringReach(true).passed && merged.passed)
    }
}
