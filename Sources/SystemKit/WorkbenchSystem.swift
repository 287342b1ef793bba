import ArgumentParser
import Reports
import Scenario
import Swarm
import Wire

/// One system's face in the `workbench` command: what it adds to `start`, the scenario language, `serve`, `bench`,
/// `fuzz-scenario` and the timeline report. Each folder under `Systems/` defines one (`extension WorkbenchSystem {
/// static let x = … }`), and ``Catalog/systems`` lists them; docs/adding-a-system.md walks through one.
package struct WorkbenchSystem: Sendable {
    /// The system's name, as its folder under `Systems/` is named.
    package let name: String
    /// The kinds of actor `start KIND` runs and `serve` serves, in the order `help start` and `serve` list them.
    package let actorKinds: [ActorKind]
    /// Directives the system adds to the scenario language (its clients and admin knobs).
    package let directives: [Directive]
    /// Options `serve` passes, by actor kind name, unless the user overrides them (loopback ports a normal user may open).
    package let liveOptions: [String: [String: String]]
    /// Other deployments `serve --topology NAME` offers, each a set of options over `liveOptions`.
    package let liveTopologies: [LiveTopology]
    /// What `serve` adds to the options it is about to pass, the user's included, before anything starts: values
    /// that must be fresh for each deployment (a secret two actors share).
    package let completeLiveOptions: @Sendable (inout [String: [String: String]]) -> Void
    /// The promises the system's actors and clients keep in every run (checked after every statement).
    package let invariants: [Invariant]
    /// The outcomes worth reaching the system's actors and clients declare (counted by every run, reported by the swarm).
    package let reachPoints: [ReachPoint]
    /// Every event the system's actors, clients and directives record in the trace, with the keys of its fields: all
    /// that `expect trace EVENT KEY=VALUE` may name of it, and all a run may record (WorkbenchTests'
    /// TraceEventRegistryTests compare it with the sources).
    package let traceEvents: [TraceEventDeclaration]
    /// `workbench bench` subcommands that measure a protocol core the system is built on (e.g. `bench ipp`).
    package let coreBenches: [any ParsableCommand.Type]
    /// `workbench bench` subcommands that measure the system's actors (a server against its real-world peers).
    package let actorBenches: [any ParsableCommand.Type]
    /// The system's operations in `workbench bench load` (nil: it takes no part).
    package let loadBench: LoadBenchPart?
    /// What `workbench fuzz-scenario` mixes into generated lines for the system's directives and actors.
    package let fuzzSamples: FuzzSamples
    /// How the timeline report (`run --report`) draws the system's own trace events.
    package let timelineEvents: [TimelineEvent]
    /// The realistic bugs its actors and clients can be made to have, for `workbench swarm --planted` (never on in a
    /// normal run).
    package let plantedBugs: [PlantedBugEntry]
    /// The account each actor kind signs clients in with unless told otherwise: what `record --to-scenario` puts where
    /// a recording's credentials were redacted.
    package let demoAccounts: [String: DemoAccount]

    package init(
        name: String, actorKinds: [ActorKind], directives: [Directive] = [], liveOptions: [String: [String: String]] = [:],
        liveTopologies: [LiveTopology] = [], completeLiveOptions: @escaping @Sendable (inout [String: [String: String]]) -> Void = { _ in },
        invariants: [Invariant] = [], reachPoints: [ReachPoint] = [], traceEvents: [TraceEventDeclaration],
        coreBenches: [any ParsableCommand.Type] = [],
        actorBenches: [any ParsableCommand.Type] = [],
        loadBench: LoadBenchPart? = nil, fuzzSamples: FuzzSamples = FuzzSamples(), timelineEvents: [TimelineEvent] = [],
        plantedBugs: [PlantedBugEntry] = [], demoAccounts: [String: DemoAccount] = [:]
    ) {
        self.name = name
        self.actorKinds = actorKinds
        self.directives = directives
        self.liveOptions = liveOptions
        self.liveTopologies = liveTopologies
        self.completeLiveOptions = completeLiveOptions
        self.invariants = invariants
        self.reachPoints = reachPoints
        self.traceEvents = traceEvents
        self.coreBenches = coreBenches
        self.actorBenches = actorBenches
        self.loadBench = loadBench
        self.fuzzSamples = fuzzSamples
        self.timelineEvents = timelineEvents
        self.plantedBugs = plantedBugs
        self.demoAccounts = demoAccounts
    }
}

/// A named deployment for `serve --topology`: options applied over the served defaults (and under `--set`).
package struct LiveTopology: Sendable {
    package let name: String
    package let summary: String
    /// Options by actor kind name.
    package let options: [String: [String: String]]

    package init(name: String, summary: String, options: [String: [String: String]]) {
        self.name = name
        self.summary = summary
        self.options = options
    }
}

/// Values `workbench fuzz-scenario` fills a system's placeholders with, plausible or hostile.
package struct FuzzSamples: Sendable {
    /// `HOST:PORT`s where the system's actors listen by default.
    package var addresses: [String] = []
    /// URLs the system's clients use.
    package var urls: [String] = []
    /// Node names the system's actors run on.
    package var nodes: [String] = []
    /// Values at and past the boundaries of the system's options and addresses.
    package var hostile: [String] = []

    /// Every system's samples, one after the other.
    package static func + (lhs: FuzzSamples, rhs: FuzzSamples) -> FuzzSamples {
        FuzzSamples(
            addresses: lhs.addresses + rhs.addresses, urls: lhs.urls + rhs.urls, nodes: lhs.nodes + rhs.nodes,
            hostile: lhs.hostile + rhs.hostile)
    }

    package init(addresses: [String] = [], urls: [String] = [], nodes: [String] = [], hostile: [String] = []) {
        self.addresses = addresses
        self.urls = urls
        self.nodes = nodes
        self.hostile = hostile
    }
}
