import Reports
import Scenario
import Testing
import Wire

@testable import SystemKit
@testable import Workbench

/// docs/adding-a-system.md, followed by a test: a system of its own (a bell that rings when asked), with one actor
/// kind, one directive, one trace event, one reach point and how the timeline draws its event, added to a catalogue
/// the test builds, and a scenario run against it.
@Suite struct ToySystemTests {
    /// The actor: what a system's actor module holds. It records only what its system declares.
    struct Bell: RunningActor {
        let node: Node
        var endpoints: [(label: String, url: String)] { [] }

        func ring(times: Int) {
            for peal in 1...times { node.trace("rang", [("peal", "\(peal)")]) }
        }

        func stop() async throws {}
    }

    /// The system's one value, as `Systems/<X>/<X>.swift` defines it.
    static let bell = WorkbenchSystem(
        name: "Bell",
        actorKinds: [ActorKind(name: "bell", summary: "a bell that rings when asked", defaultHost: "bell") { node, _ in Bell(node: node) }],
        directives: [ring],
        reachPoints: [.event("bell.rang-twice", outcome: "the bell rang a second peal", actorKinds: ["bell"], event: "rang") { $0["peal"] == "2" }],
        traceEvents: [.event("rang", fields: "peal")],
        timelineEvents: [
            TimelineEvent(event: "rang", isMessage: true, draw: "function (a, f, e, draw) { return draw.mark(a, 'bus', 'peal ' + f.peal); }")
        ]
    )

    /// `ring [times N] [as NAME]`: the system's client, in the scenario language; `${NAME.peals}` says how many rang.
    static let ring = Directive("ring", usage: "ring [times N] [as NAME]", summary: "ring the bell: ${NAME.peals}", defaults: "times 1, as ring") {
        args throws(ScenarioError) in
        let times = args.accept("times") ? try args.integer("how many peals", in: 1...10) : 1
        let label = args.accept("as") ? try args.name("a variable name") : "ring"
        try args.end()
        args.binds(label, fields: ["peals"])
        return Run { context in
            guard let bell = context.startedActors.lazy.compactMap({ $0.actor as? Bell }).first else {
                throw StepError("no bell is running; start it with 'start bell'")
            }
            bell.ring(times: times)
            context.world.settle()
            context.publish(label, ["peals": "\(times)"])
            return nil
        }
    }

    /// The catalogue the test builds: every system of the workbench's, and the bell.
    static let systems = Catalog.systems + [bell]

    static let scenario = """
        start bell
        ring times 2 as peal
        expect ${peal.peals} == 2
        expect trace rang by bell peal=2
        expect reached bell.rang-twice

        """

    @Test func aScenarioRunsAgainstTheToySystem() throws {
        let (script, errors) = Catalog.language(of: Self.systems).parse(file: "bell.scn", text: Self.scenario)
        try #require(errors.isEmpty, "\(errors.map(\.message))")
        let runner = ScenarioRunner(
            language: Catalog.language(of: Self.systems), catalog: Self.systems.flatMap(\.actorKinds),
            invariants: Self.systems.flatMap(\.invariants))
        let result = runner.run(script, seed: 1) { _ in }
        #expect(result.passed, "\(result.error ?? "") \(result.failures.map { $0.failure ?? "" })")
        #expect(result.expectations.count == 3)
        #expect(result.reached.contains("bell.rang-twice"))
        // The same seed, the same trace.
        #expect(runner.run(script, seed: 1) { _ in }.digest == result.digest)

        let page = TimelineReport(results: [result], systemEvents: Self.systems.flatMap(\.timelineEvents)).html
        #expect(page.contains("\"rang\": { message: true, draw: function (a, f, e, draw)"), "the page draws the bell's event")
    }

    /// The workbench's own catalogue knows nothing of the bell: a scenario line naming it is refused when read.
    @Test func theWorkbenchsCatalogueIsUnchanged() {
        let (_, errors) = Catalog.language.parse(file: "bell.scn", text: "start bell\n")
        #expect(!errors.isEmpty)
        #expect(!Catalog.actorKinds.contains { $0.name == "bell" })
    }
}
