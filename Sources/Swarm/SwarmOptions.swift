import Foundation

/// Which faults a swarm lets the seed choose: `network` (latency distributions, partitions, holds, resets, clock
/// skew), `actors` (every declared fault point), both, or none (the seed still drives every random draw).
public enum FaultClass: String, CaseIterable, Sendable, Codable {
    case none, network, actors, all

    var network: Bool { self == .network || self == .all }
    var actors: Bool { self == .actors || self == .all }
}

/// The knobs of a swarm's fault schedule, in one value: which faults, how often, how long and how strong. A seed
/// draws its faults within these bounds (``SeededFaultSchedule``); the value is printed with every failing seed,
/// as TigerBeetle's VOPR prints its swarm options, so a failure can be read as well as replayed.
public struct SwarmOptions: Sendable, Equatable {
    /// Which faults the seed may choose.
    public var faults: FaultClass
    /// The chance that a fault is injected before a statement.
    public var injectionRate: Double
    /// How far into the next step a deferred fault (half of them, `later`) lands, in milliseconds.
    public var deferralMilliseconds: ClosedRange<Int>
    /// A uniform latency's lower bound, and how much wider its upper bound is, in milliseconds.
    public var uniformLatencyLowMilliseconds: ClosedRange<Int>
    public var uniformLatencySpreadMilliseconds: ClosedRange<Int>
    /// A normal latency's mean (its deviation is at most half of it), in milliseconds.
    public var normalLatencyMeanMilliseconds: ClosedRange<Int>
    /// An exponential latency's mean, in milliseconds.
    public var exponentialLatencyMeanMilliseconds: ClosedRange<Int>
    /// How long a partition lasts before it heals by itself, in seconds.
    public var partitionSeconds: ClosedRange<Int>
    /// How long a hold lasts before it releases by itself, in seconds.
    public var holdSeconds: ClosedRange<Int>
    /// After how many bytes a `reset … after N bytes` cuts a path.
    public var resetAfterBytes: ClosedRange<Int>
    /// How far a clock skews, either way, in seconds.
    public var clockSkewSeconds: ClosedRange<Int>
    /// How many checks a fault point fires for once switched on.
    public var faultPointTimes: ClosedRange<Int>

    /// The options every swarm runs with. Changing one changes the fault schedule of every seed (and so its
    /// digest): old seeds would no longer replay.
    public init(faults: FaultClass) {
        self.faults = faults
        injectionRate = 0.3
        deferralMilliseconds = 1...3_000
        uniformLatencyLowMilliseconds = 0...50
        uniformLatencySpreadMilliseconds = 1...500
        normalLatencyMeanMilliseconds = 1...200
        exponentialLatencyMeanMilliseconds = 1...200
        partitionSeconds = 1...30
        holdSeconds = 1...20
        resetAfterBytes = 1...300_000
        clockSkewSeconds = 1...600
        faultPointTimes = 1...3
    }
}

// MARK: - CustomStringConvertible

extension SwarmOptions: CustomStringConvertible {
    /// One line: `faults all, injection 0.30, deferral 1-3000ms (half), latency uniform 0-50ms+1-500ms …`.
    public var description: String {
        func span(_ range: ClosedRange<Int>, _ unit: String) -> String { "\(range.lowerBound)-\(range.upperBound)\(unit)" }
        return "faults \(faults.rawValue), injection \(String(format: "%.2f", injectionRate)), "
            + "deferral \(span(deferralMilliseconds, "ms")) (half), "
            + "latency uniform \(span(uniformLatencyLowMilliseconds, "ms"))+\(span(uniformLatencySpreadMilliseconds, "ms"))"
            + " normal \(span(normalLatencyMeanMilliseconds, "ms")) exponential \(span(exponentialLatencyMeanMilliseconds, "ms")), "
            + "partition \(span(partitionSeconds, "s")), hold \(span(holdSeconds, "s")), "
            + "reset after \(span(resetAfterBytes, " bytes")), skew ±\(span(clockSkewSeconds, "s")), "
            + "fault points \(span(faultPointTimes, " times"))"
    }
}
