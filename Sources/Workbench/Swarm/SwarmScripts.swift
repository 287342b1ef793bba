import ArgumentParser
import Reports
import Scenario
import Swarm
import SystemKit

extension FaultClass: ExpressibleByArgument {}
extension SwarmMix.Mode: ExpressibleByArgument {}

/// Binding the swarm to the workbench: every system's language, actors and invariants, and files read strictly.
enum SwarmScripts {
    static var runner: ScenarioRunner {
        ScenarioRunner(language: Catalog.language, catalog: Catalog.actorKinds, invariants: Catalog.invariants)
    }

    /// A swarm's workloads, read strictly: a fault point none of its actors checks would make a seed's faults do nothing.
    static func load(_ files: [String]) throws -> [Script] {
        try ScenarioFiles.load(files)
    }
}

/// Runs `body`, reporting a ``SwarmError`` as the command line does: an unusable result file as an input error
/// (exit status 2), anything else as a wrong command line (64).
func commandLine<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as SwarmError {
        throw error.kind == .resultFile ? ExitStatus.inputWrong(error.description) : ValidationError(error.description)
    }
}

extension SwarmResult {
    /// The reach table as the timeline report draws it.
    var reportReach: TimelineReport.Reach {
        TimelineReport.Reach(
            seeds: reachTotal, points: reach, required: requireReach, explore: explore.map { (fresh: $0.freshRuns, mutants: $0.mutantRuns) })
    }
}
