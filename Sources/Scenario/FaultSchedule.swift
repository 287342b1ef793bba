import Kernel

/// One fault of a run: a scenario line run just before statement `before` (0-based). A swarm's seed makes them;
/// `shrink` removes them; written into a `.scn` they reproduce the run without the seed's schedule.
public struct ScheduledFault: Sendable, Codable, Equatable {
    public let before: Int
    public let line: String

    public init(before: Int, line: String) {
        self.before = before
        self.line = line
    }
}

/// Where a run's faults come from.
public enum FaultSource: Sendable {
    /// Chosen as the run goes, statement by statement (a swarm's schedule, drawn from the run seed).
    case drawn(any FaultScheduler)
    /// Exactly these (a replayed or shrunk schedule).
    case explicit([ScheduledFault])
}

/// Chooses a run's faults as it goes, from what the world holds before each statement (the hosts on the network,
/// the fault points actors declared).
public protocol FaultScheduler: Sendable {
    /// The scenario lines to run just before statement `index` (0-based); usually none.
    func lines(before index: Int, in context: ScenarioContext) -> [String]
}
