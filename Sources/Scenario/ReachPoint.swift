import Kernel

/// An outcome worth exploring that no run has to reach, but that a swarm should reach in some seeds: "a MiG job
/// held, then completed", "an SCPms client registered again after the server forgot its id". Antithesis calls them
/// "sometimes" assertions: they never fail a run, they are counted, and a point no seed reached says what the swarm
/// did not explore.
///
/// Systems declare theirs next to their actors and clients, as they declare invariants; a scenario adds its own
/// with `sometimes CONDITION [as LABEL]`. A point is recognised from the trace, outside it: reaching one records
/// nothing, so no digest depends on which points were reached.
public struct ReachPoint: Sendable {
    /// `system.outcome`, e.g. `mig.job-held-then-completed`.
    public let name: String
    /// What reaching it means, in one sentence (for `workbench reach` and the README).
    public let outcome: String
    /// The actor kinds whose actors (or whose clients' peers) can reach it: a scenario that starts none of them
    /// cannot, so its swarm does not count the point as never reached.
    public let actorKinds: [String]
    /// The trace events the watcher needs to see; it is shown no other.
    public let events: Set<String>
    /// Makes the watcher of one run: it sees each of `events` once, in order, and says when the point is reached.
    public let makeWatcher: @Sendable () -> (Trace.Event) -> Bool

    public init(
        name: String, outcome: String, actorKinds: [String], events: Set<String>,
        makeWatcher: @escaping @Sendable () -> (Trace.Event) -> Bool
    ) {
        self.name = name
        self.outcome = outcome
        self.actorKinds = actorKinds
        self.events = events
        self.makeWatcher = makeWatcher
    }

    /// A point reached by one event (of `actor`, when given) for which `matches` holds.
    public static func event(
        _ name: String, outcome: String, actorKinds: [String], event: String,
        where matches: @escaping @Sendable (Trace.Event) -> Bool = { _ in true }
    ) -> ReachPoint {
        ReachPoint(name: name, outcome: outcome, actorKinds: actorKinds, events: [event]) { { matches($0) } }
    }

    /// A point reached by a sequence of events: `step` sees each of `events` in order with the run's `State`, and
    /// returns true once the sequence is complete.
    public static func sequence<State: Sendable>(
        _ name: String, outcome: String, actorKinds: [String], events: Set<String>, initial: State,
        step: @escaping @Sendable (inout State, Trace.Event) -> Bool
    ) -> ReachPoint {
        ReachPoint(name: name, outcome: outcome, actorKinds: actorKinds, events: events) {
            var state = initial
            return { step(&state, $0) }
        }
    }

    /// A point reached when an event `second` follows one of `first` with the same key — by default the same actor:
    /// "a retry, then a success, by the same client". Each side may also need its event to match.
    public static func then(
        _ name: String, outcome: String, actorKinds: [String], after first: Set<String>,
        where firstMatches: @escaping @Sendable (Trace.Event) -> Bool = { _ in true }, then second: String,
        where secondMatches: @escaping @Sendable (Trace.Event) -> Bool = { _ in true },
        sameKey key: @escaping @Sendable (Trace.Event) -> String? = { $0.actor }
    ) -> ReachPoint {
        sequence(name, outcome: outcome, actorKinds: actorKinds, events: first.union([second]), initial: Set<String>()) { seen, event in
            guard let key = key(event) else { return false }
            if first.contains(event.event), firstMatches(event) {
                seen.insert(key)
                return false
            }
            return event.event == second && secondMatches(event) && seen.contains(key)
        }
    }

    /// The system a point's name puts it under (`mig` for `mig.job-held-then-completed`), if any.
    static func system(of name: String) -> String? {
        name.firstIndex(of: ".").map { String(name[..<$0]) }
    }
}

/// The watchers of one run and how far into the trace they have read: each new event goes only to the watchers
/// of points not yet reached that asked for its name, so a run pays a dictionary look-up per event.
public final class ReachWatch {
    private let names: [String]
    private var watchers: [(Trace.Event) -> Bool]
    private var byEvent: [String: [Int]] = [:]
    private var seen = 0
    /// The declared points reached so far.
    public private(set) var reached: Set<String> = []

    public init(_ points: [ReachPoint]) {
        names = points.map(\.name)
        watchers = points.map { $0.makeWatcher() }
        for (index, point) in points.enumerated() {
            for event in point.events.sorted() { byEvent[event, default: []].append(index) }
        }
    }

    /// Shows the events recorded since the last look to the watchers waiting for them; adds the points reached to
    /// `context.reached`.
    public func check(_ context: ScenarioContext) {
        guard !byEvent.isEmpty else { return }
        let trace = context.kernel.trace
        guard trace.count > seen else { return }
        let fresh = trace.events(from: seen)
        seen += fresh.count
        for event in fresh {
            guard let waiting = byEvent[event.event] else { continue }
            for index in waiting where !reached.contains(names[index]) && watchers[index](event) {
                reached.insert(names[index])
                context.reached.insert(names[index])
            }
        }
    }
}

extension ScenarioLanguage {
    /// The reach points `script` can reach: the declared points of every actor kind it starts, and its own
    /// `sometimes` points, sorted by name.
    public func reachPoints(in script: Script) -> [String] {
        let own = script.statements.flatMap { $0.names.filter { $0.kind == .reachLabel }.map(\.name) }
        return Set(declaredReachPoints(in: script).map(\.name) + own).sorted()
    }

    /// The declared reach points of the actor kinds `script` starts: the only ones its runs watch for (another
    /// system's point could be matched by an event of the same name).
    func declaredReachPoints(in script: Script) -> [ReachPoint] {
        let started = Set(script.statements.flatMap { $0.names.filter { $0.kind == .actorKind }.map(\.name) })
        return reachPoints.filter { !started.isDisjoint(with: $0.actorKinds) }
    }

    /// Why `label` cannot name a scenario's own reach point (it is a declared point, or sits under a system's prefix
    /// without being one of its points), or nil.
    func reachLabelProblem(_ label: String) -> String? {
        // A line's own default label (`FILE:LINE`) is no name a person typed.
        guard !label.contains(":") else { return nil }
        let declared = reachPoints.map(\.name)
        if declared.contains(label) {
            return "'\(label)' is a declared reach point (the system counts it itself); name the scenario's own point differently"
        }
        guard underDeclaredSystem(label), let system = ReachPoint.system(of: label) else { return nil }
        let same = declared.filter { ReachPoint.system(of: $0) == system }.sorted()
        return "no reach point '\(label)'\(didYouMean(label, among: declared)); names under '\(system).' are \(system)'s declared points: "
            + same.joined(separator: ", ") + " ('workbench reach' lists them all)"
    }

    /// Whether `name` sits under the prefix of a system that declares reach points (`mig.` …).
    func underDeclaredSystem(_ name: String) -> Bool {
        guard let system = ReachPoint.system(of: name) else { return false }
        return reachPoints.contains { ReachPoint.system(of: $0.name) == system }
    }

    /// Why `point` names no reach point `expect reached` can check: neither declared nor one of `labels` (the
    /// file's own `sometimes` points), or nil.
    func unknownReachPoint(_ point: String, labels: Set<String>) -> String? {
        let declared = reachPoints.map(\.name)
        guard !declared.contains(point), !labels.contains(point) else { return nil }
        let known = declared + labels.sorted()
        return "no reach point '\(point)'\(didYouMean(point, among: known)); expected a declared point ('workbench reach' lists them) "
            + "or the label of a 'sometimes … as LABEL' line of this file"
    }
}
