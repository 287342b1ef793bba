import Kernel

/// One fault of a run: a scenario line run just before statement `before` (0-based). A swarm's seed makes them;
/// `shrink` removes them; written into a `.scn` they reproduce the run without the seed's schedule.
public struct ScheduledFault: Sendable, Codable, Equatable {
    public let before: Int
    public let line: String
    /// The fault site that fired it (`link a<->b`, `point mig.busy`, `swizzle 2`…), when a swarm's schedule drew
    /// it: shrinking drops whole sites first, then single faults.
    public let site: String?

    public init(before: Int, line: String, site: String? = nil) {
        self.before = before
        self.line = line
        self.site = site
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
    /// The faults to run just before statement `index` (0-based), each with `before` = `index`; usually none.
    func faults(before index: Int, in context: ScenarioContext) -> [ScheduledFault]
}
