/// A realistic bug an actor or client can be made to have, to prove that the swarm finds such bugs
/// (`workbench swarm --planted`). A simulated actor's is declared by its module and checked at the one place the bug
/// lives (`node.planted(.someBug)`). A client an app ships carries none: the workbench declares the bug and, when it
/// is planted, builds the client with the wrong variant of a policy the client takes (MiG's answer policy, the Ivanti
/// client's credential lookup). Which system each belongs to and what it does is said next to the system's face in
/// the workbench.
///
/// Nothing turns one on in a normal run: a ``Node`` carries an empty ``PlantedBugs`` unless the kernel was made
/// with some, which only the swarm's `--planted` and tests do. No scenario line can name one.
public struct PlantedBug: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// `system.what-goes-wrong`, e.g. `mig.status-ignored`.
    public let name: String

    /// The bug called `name`; a module declares each of its bugs once, as a static constant.
    public init(_ name: String) { self.name = name }

    /// The bug's name, e.g. `mig.status-ignored`.
    public var description: String { name }

    /// Orders bugs by name, so lists of them read the same in every run.
    public static func < (a: PlantedBug, b: PlantedBug) -> Bool { a.name < b.name }
}

/// The planted bugs a run's nodes have: none, normally.
public struct PlantedBugs: Sendable, Equatable, ExpressibleByArrayLiteral {
    /// The bugs planted in the run; empty in every normal run.
    public let bugs: Set<PlantedBug>

    /// The bugs in `bugs`, each once.
    public init(_ bugs: some Sequence<PlantedBug>) { self.bugs = Set(bugs) }

    /// The bugs listed, each once: `[.someBug, .otherBug]`.
    public init(arrayLiteral bugs: PlantedBug...) { self.init(bugs) }

    /// No bug: the behaviour of every normal run.
    public static let none = PlantedBugs([])

    /// Whether `bug` is planted: what ``Node/planted(_:)`` asks.
    public func contains(_ bug: PlantedBug) -> Bool { !bugs.isEmpty && bugs.contains(bug) }
}

extension Node {
    /// Whether `bug` is planted in this run (never, outside `workbench swarm --planted` and tests).
    public func planted(_ bug: PlantedBug) -> Bool { plantedBugs.contains(bug) }
}
