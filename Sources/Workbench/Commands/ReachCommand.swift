import ArgumentParser
import Scenario

/// `workbench reach`: the outcomes the systems declare worth reaching, with the actor kinds that can reach each.
struct ReachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reach",
        abstract: "List the reach points every run watches for: outcomes worth exploring that no run has to reach.",
        discussion: """
            A swarm counts, for each point a file can reach (one of an actor kind it starts, or a 'sometimes' line of its \
            own), the seeds that reached it, and lists the points no seed reached (`workbench swarm --require-reach` fails \
            on them). A plain run can check one with 'expect reached POINT'.
            """)

    func run() {
        let width = Catalog.reachPoints.map(\.name.count).max() ?? 0
        for point in Catalog.reachPoints {
            print(
                point.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + point.outcome + " ("
                    + point.actorKinds.joined(separator: ", ") + ")")
        }
    }
}
