import ArgumentParser
import Foundation
import Scenario
import Swarm

/// `workbench swarm --explore`: the batches of a ``SwarmExploration`` run in this process or by worker processes,
/// and a failing mutant's schedule written where its replay line says.
struct SwarmExplore {
    let swarm: SwarmRunner
    let scripts: [Script]
    let share: Double?

    /// Every batch in turn; returns the runs in the exploration's order and how they were spent. Without workers, each
    /// failing run is printed to `failures` as it ends.
    func run(
        seeds: [UInt64], workers: SwarmWorkerPool?, failures: SwarmFailurePrinter
    ) throws -> (runs: [SwarmRun], spent: SwarmResult.Explore) {
        var exploration = try commandLine {
            try SwarmExploration(scripts: scripts, seeds: seeds, swarm: swarm, share: share ?? SwarmExploration.defaultShare)
        }
        let runs = try exploration.explore { batch in
            if let workers, batch.count > 1 { return try workers.run(batch) }
            return swarm.run(batch, scripts: scripts) { run in
                // With workers the failures are printed once all have run.
                if workers == nil, !run.passed { failures.print(run) }
            }
        }
        let mutants = runs.filter { $0.mutant != nil }.count
        return (runs.map(\.withoutBehaviours), SwarmResult.Explore(share: exploration.share, freshRuns: runs.count - mutants, mutantRuns: mutants))
    }

    /// Writes each failing mutant's schedule to the current folder, under the name its replay line gives.
    static func writeSchedules(of result: SwarmResult) throws {
        for run in result.failed where run.mutant != nil {
            let name = SwarmSchedule.fileName(of: run)
            try SwarmSchedule(run, faultClass: result.faults).jsonText.write(toFile: name, atomically: true, encoding: .utf8)
            print("wrote \(name): the faults of \(run.file) \(run.name), for --schedule")
        }
    }
}
