import ArgumentParser
import Foundation
import Scenario
import Swarm

/// `workbench swarm`: runs scenario files under many seeds, each with a fault schedule its seed chooses, and
/// reports every seed that broke an expectation or an invariant, with the command that replays it.
struct SwarmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "swarm",
        abstract: "Run scenarios under a range of seeds, each with seed-chosen faults; report the seeds that fail.",
        subcommands: [SwarmRunCommand.self, SwarmMergeCommand.self],
        defaultSubcommand: SwarmRunCommand.self
    )
}
