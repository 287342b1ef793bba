import Swarm

/// Prints a swarm's failing seeds: the swarm options once, above the first (every seed of a swarm draws its faults
/// within the same options, so a failure can be read as well as replayed), then each seed with the commands that
/// replay and shrink it.
final class SwarmFailurePrinter {
    private let options: SwarmOptions
    private var optionsPrinted = false

    init(options: SwarmOptions) {
        self.options = options
    }

    func print(_ run: SwarmRun) {
        if !optionsPrinted {
            Swift.print("swarm options: \(options)")
            optionsPrinted = true
        }
        Swift.print(run.failureLine(faults: options.faults, mix: options.mix))
    }
}
