import Foundation
import Testing

@testable import Workbench

/// What `bench load` says about the CPU: the CPU time of one operation, and for a closed loop the mean latency that
/// cost allows (clients × CPU per operation / cores); a paced run states its offered rate instead.
@Suite struct LoadReportTests {
    /// 100 scpms-checks of 50 ms each in 10 s, with 0.2 s of serve's CPU and 0.1 s of the clients'.
    static func report(rate: Int?) -> LoadReport {
        var tally = Tally()
        for _ in 0..<100 { tally.succeeded("scpms-check", seconds: 0.050) }
        return LoadReport(
            clients: 10, operations: ["scpms-check"], rate: rate, seconds: 10, warmupSeconds: 1, tally: tally, rss: (40, 41, 42, 43),
            cpuSeconds: (serve: 0.2, clients: 0.1), descriptors: (64, 64, .milliseconds(1)), leftover: [], serveStderr: [])
    }

    @Test func aClosedLoopReportsTheCPUPerOperationAndTheLatencyItAllows() throws {
        let report = Self.report(rate: nil)
        let cores = Double(report.machine.cores)
        let cost = try #require(report.cpuCost)
        #expect(abs(cost.servePerOperation - 0.002) < 1e-12)
        #expect(abs(cost.clientsPerOperation - 0.001) < 1e-12)
        #expect(abs(cost.meanLatencyFloor - 10 * 0.003 / cores) < 1e-12)
        #expect(abs(cost.meanLatency - 0.050) < 1e-12)
        #expect(abs(cost.busy - 0.3 / 10 / cores) < 1e-12)

        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        #expect(json["serve_cpu_us_per_op"] as? Double == 2000)
        #expect(json["clients_cpu_us_per_op"] as? Double == 1000)
        #expect(json["closed_loop_mean_latency_floor_ms"] as? Double == Double(LoadReport.number(30 / cores)))
        #expect(json["mean_latency_ms"] as? Double == 50)
        #expect(json["rate"] is NSNull)
        let text = report.text()
        #expect(text.contains("CPU per operation: serve 2000 µs, clients 1000 µs"))
        #expect(text.contains("closed loop: 10 clients at that cost on \(report.machine.cores) cores cannot average below"))
        #expect(!text.contains("paced"))
    }

    /// After a closed loop and its open loop, the output says what pacing cost per operation and how busy that made
    /// the machine: what the open loop's latencies are measured at.
    @Test func theOpenLoopSaysWhatPacingCostAndHowBusyTheMachineWas() throws {
        let closed = Self.report(rate: nil)
        var tally = Tally()
        for _ in 0..<80 { tally.succeeded("scpms-check", seconds: 0.010) }
        let open = LoadReport(
            clients: 10, operations: ["scpms-check"], rate: 8, seconds: 10, warmupSeconds: 1, tally: tally, rss: (40, 41, 42, 43),
            cpuSeconds: (serve: 0.2, clients: 0.088), descriptors: (64, 64, .milliseconds(1)), leftover: [], serveStderr: [])
        let note = try #require(LoadBenchCommand.pacedCost(closed: closed, open: open))
        let busy = LoadReport.number(0.288 / 10 / Double(open.machine.cores) * 100)
        #expect(
            note == "open loop: paced at 80.00 % of the closed loop's throughput, an operation cost 3600 µs of CPU against 3000 µs "
                + "in the closed loop (+20.00 %), so the machine was \(busy) % busy: the open loop's latencies are those of a machine that busy",
            "\(note)")
    }

    @Test func aPacedRunStatesItsRateAndNoClosedLoopFloor() throws {
        let report = Self.report(rate: 10)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        #expect(json["rate"] as? Int == 10)
        #expect(json["closed_loop_mean_latency_floor_ms"] is NSNull)
        let text = report.text()
        #expect(text.contains("paced: 10 operations/s offered, 10.00/s completed"))
        #expect(!text.contains("closed loop"))
    }

    @Test func onlyAndRateRefuseWhatDoesNotExist() throws {
        #expect(throws: (any Error).self) { try LoadBenchCommand.parse(["--rate", "0"]).validate() }
        do {
            try LoadBenchCommand.parse(["--only", "scpms-chek"]).validate()
            Issue.record("--only scpms-chek was accepted")
        } catch {
            #expect(LoadBenchCommand.message(for: error).contains("did you mean 'scpms-check'?"))
        }
    }
}
