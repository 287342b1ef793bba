import ArgumentParser
import Scenario

/// `workbench invariants`: the promises every run checks, with what each one checks.
struct InvariantsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invariants",
        abstract: "List the invariants every run checks after each statement and at the end.")

    func run() {
        let width = Catalog.invariants.map(\.name.count).max() ?? 0
        for invariant in Catalog.invariants {
            print(invariant.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + invariant.promise)
        }
    }
}
