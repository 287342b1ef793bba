import ArgumentParser
import Scenario

/// One system's face in the `workbench` command: what it adds to `start`, the scenario language, `serve` and
/// `bench`. Each folder under `Systems/` defines one (`extension WorkbenchSystem { static let mig = … }`), and
/// ``Catalog/systems`` lists them.
struct WorkbenchSystem: Sendable {
    /// The system's name, as its folder under `Systems/` is named.
    let name: String
    /// The kinds of actor `start KIND` runs and `serve` serves, in the order `help start` and `serve` list them.
    let actorKinds: [ActorKind]
    /// Directives the system adds to the scenario language (its clients and admin knobs).
    let directives: [Directive]
    /// Options `serve` passes, by actor kind name, unless the user overrides them (loopback ports a normal user may open).
    let liveOptions: [String: [String: String]]
    /// Other deployments `serve --topology NAME` offers, each a set of options over `liveOptions`.
    let liveTopologies: [LiveTopology]
    /// The promises the system's actors and clients keep in every run (checked after every statement).
    let invariants: [Invariant]
    /// `workbench bench` subcommands that measure a protocol core the system is built on (e.g. `bench ipp`).
    let coreBenches: [any ParsableCommand.Type]
    /// `workbench bench` subcommands that measure the system's actors (e.g. `bench mig`).
    let actorBenches: [any ParsableCommand.Type]

    init(name: String, actorKinds: [ActorKind], directives: [Directive] = [], liveOptions: [String: [String: String]] = [:],
         liveTopologies: [LiveTopology] = [], invariants: [Invariant] = [], coreBenches: [any ParsableCommand.Type] = [], actorBenches: [any ParsableCommand.Type] = []) {
        self.name = name
        self.actorKinds = actorKinds
        self.directives = directives
        self.liveOptions = liveOptions
        self.liveTopologies = liveTopologies
        self.invariants = invariants
        self.coreBenches = coreBenches
        self.actorBenches = actorBenches
    }
}

/// A named deployment for `serve --topology`: options applied over the served defaults (and under `--set`).
struct LiveTopology: Sendable {
    let name: String
    let summary: String
    /// Options by actor kind name.
    let options: [String: [String: String]]
}
