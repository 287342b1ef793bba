import ArgumentParser
import EchoSystem
import IMSSystem
import IvantiSystem
import Kernel
import MiGSystem
import Reports
import SCPmsSystem
import Scenario
import StubSystem
import SunfireSystem
import Swarm
import SystemKit
import Wire
import WireHTTP

/// Every actor the workbench can start, adapted to the scenario language and `serve`, gathered from the
/// systems under `Systems/`.
///
/// Each actor kind names the ports it uses on the simulated wire (its real ports) and on loopback for `serve`
/// (unprivileged ones, so a normal user can run it).
public enum Catalog {
    /// Every system the workbench simulates; adding one is its folder under `Systems/` plus one entry here.
    static let systems: [WorkbenchSystem] = [.echo, .mig, .scpms, .ivanti, .ims, .sunfire, .stub]

    public static let actorKinds: [ActorKind] = systems.flatMap(\.actorKinds)

    /// The kinds `serve` starts by default: those that need no option (a stub needs its recording: `serve --start`).
    static let servedKinds: [ActorKind] = actorKinds.filter(\.requiredOptions.isEmpty)

    /// Directives the systems add to the scenario language (their clients and admin knobs).
    public static let directives: [Directive] = systems.flatMap(\.directives)

    /// The scenario language with every system's directives.
    public static var language: ScenarioLanguage { language(of: systems) }

    /// The scenario language with the directives, actor kinds, reach points and trace events of `systems`: the
    /// catalogue's own, or another list (a test's, with a system of its own added).
    static func language(of systems: [WorkbenchSystem]) -> ScenarioLanguage {
        ScenarioLanguage(
            extra: systems.flatMap(\.directives), actorKinds: systems.flatMap(\.actorKinds), reachPoints: systems.flatMap(\.reachPoints),
            traceEvents: libraryTraceEvents + systems.flatMap(\.traceEvents), kindTraceEvents: kindTraceEvents(of: systems))
    }

    /// Every event a run may record, with its fields' keys: the systems' and those of the libraries under them all (the
    /// simulated network, any node's fault points, the URL bus, the HTTP server, the scenario runner).
    public static let traceEventDeclarations: [TraceEventDeclaration] = libraryTraceEvents + systems.flatMap(\.traceEvents)

    /// The events of the libraries under every system: the simulated network's, any node's fault points', the URL
    /// bus's, the HTTP server's and the scenario runner's. The timeline report draws these itself.
    static let libraryTraceEvents: [TraceEventDeclaration] =
        SimulatedNetwork.traceEvents + Node.traceEvents + URLBus.traceEvents + HTTPServer.traceEvents + ScenarioRunner.traceEvents

    /// The declarations merged by name: the keys each event may carry, the values of its closed keys, and the events' names.
    public static let traceVocabulary = TraceVocabulary(traceEventDeclarations)
    public static let traceEventFields: [String: Set<String>] = traceVocabulary.fields
    public static let traceEvents: Set<String> = traceVocabulary.events

    /// What the actors of each kind may record on their node: their system's events, a fault point that fired, and what
    /// the HTTP server under several of them records (the network's, the bus's and the runner's events have their own
    /// authors).
    static func kindTraceEvents(of systems: [WorkbenchSystem]) -> [String: [TraceEventDeclaration]] {
        systems.reduce(into: [:]) { kinds, system in
            for kind in system.actorKinds { kinds[kind.name] = system.traceEvents + Node.traceEvents + HTTPServer.traceEvents }
        }
    }

    /// How the timeline report draws the systems' own trace events.
    static let timelineEvents: [TimelineEvent] = systems.flatMap(\.timelineEvents)

    /// Every system's invariants, checked by every run.
    public static let invariants: [Invariant] = systems.flatMap(\.invariants)

    /// Every system's planted bugs (`workbench swarm --planted`), system by system.
    static let plantedBugs: [PlantedBugEntry] = systems.flatMap(\.plantedBugs)

    /// Every system's reach points, watched by every run.
    public static let reachPoints: [ReachPoint] = systems.flatMap(\.reachPoints)

    /// Options `serve` passes, per kind, unless the user overrides them.
    public static let liveOptions: [String: [String: String]] = systems.reduce(into: [:]) { options, system in
        options.merge(system.liveOptions) { _, kind in kind }
    }

    /// Each actor kind's demo account, of the systems that have one.
    static let demoAccounts: [String: DemoAccount] = systems.reduce(into: [:]) { accounts, system in
        accounts.merge(system.demoAccounts) { _, kind in kind }
    }

    /// The deployments `serve --topology` offers, of every system.
    static let liveTopologies: [LiveTopology] = systems.flatMap(\.liveTopologies)

    /// The systems' `workbench bench` subcommands: those of the protocol cores first, then those of the actors.
    static let benches: [any ParsableCommand.Type] = systems.flatMap(\.coreBenches) + systems.flatMap(\.actorBenches)

    /// The systems' shares of `workbench bench load`, whose operations a client goes round in this order.
    static let loadBenchParts: [LoadBenchPart] = systems.compactMap(\.loadBench)

    /// The systems' values for `workbench fuzz-scenario`.
    static let fuzzSamples: FuzzSamples = systems.reduce(FuzzSamples()) { $0 + $1.fuzzSamples }
}
