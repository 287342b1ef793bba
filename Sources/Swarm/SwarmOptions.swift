import Foundation

/// Which faults a swarm lets the seed choose: `network` (latency distributions, partitions, holds, resets, clock
/// skew), `actors` (every declared fault point, and crashes of the actors that survive them), both, or none (the seed still drives every random draw).
public enum FaultClass: String, CaseIterable, Sendable, Codable {
    case none, network, actors, all

    var network: Bool { self == .network || self == .all }
    var actors: Bool { self == .actors || self == .all }
}

/// The knobs of a swarm's fault schedule, in one value: which faults, how often, how long and how strong. A seed
/// draws its faults within these bounds (``SeededFaultSchedule``); the value is printed with every failing seed,
/// as TigerBeetle's VOPR prints its swarm options, so a failure can be read as well as replayed.
///
/// Faults come from sites, as FoundationDB's BUGGIFY does it in two levels: each site (a link that carried a
/// connection or that the coming statement connects on, a node's clock, a fault point, the swizzle) is switched on
/// or off for the whole seed, and a site that is on fires before each statement with its own probability: a weight
/// the seed draws for it (0 to 2), times its class's rate shared among the class's sites, so a workload with many
/// fault points is not buried in faults.
public struct SwarmOptions: Sendable, Equatable {
    /// Which faults the seed may choose.
    public var faults: FaultClass
    /// The chance that a site is switched on for the seed.
    public var siteEnabledRate: Double
    /// How many faults a class of sites fires per statement when all its sites are on with the average weight (1):
    /// a site of a class of N fires with probability rate × weight / N.
    public var linkRate: Double
    public var clockRate: Double
    public var pointRate: Double
    public var swizzleRate: Double
    /// How many crashes per statement when every crash site is on with weight 1: a site is an actor whose acknowledged
    /// state survives a crash (``Scenario/RunningActor/survivesCrash``); it is an actor fault (`--faults actors` or `all`).
    public var crashRate: Double
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
    /// Swizzle-clogging: how many links one swizzle clogs, the gap between two clogs (and between two unclogs), and
    /// how long after the last clog the first unclog comes.
    public var swizzleLinks: ClosedRange<Int>
    public var swizzleStaggerMilliseconds: ClosedRange<Int>
    public var swizzleSeconds: ClosedRange<Int>
    /// How long a crashed actor stays down before it restarts by itself (`crash NAME for D`), in seconds.
    public var crashDowntimeSeconds: ClosedRange<Int>
    /// During which of its disk writes from the crash's statement on a node's power is cut, for the half of the
    /// crashes that fall inside a write (`crash NAME at write N`): a print on a durable MiG makes about twenty.
    public var crashWrites: ClosedRange<Int>
    /// Whether each seed draws its own mix of the knobs above (``SwarmMix``), or every seed runs with them as they are.
    public var mix: SwarmMix.Mode

    /// The options every swarm runs with. Changing one changes the fault schedule of every seed (and so its
    /// digest): old seeds would no longer replay.
    public init(faults: FaultClass, mix: SwarmMix.Mode = .fixed) {
        self.faults = faults
        self.mix = mix
        siteEnabledRate = 0.5
        linkRate = 0.3
        clockRate = 0.06
        pointRate = 0.3
        swizzleRate = 0.04
        crashRate = 0.1
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
        swizzleLinks = 2...4
        swizzleStaggerMilliseconds = 50...1_000
        swizzleSeconds = 1...10
        crashDowntimeSeconds = 1...20
        crashWrites = 1...40
    }
}

// MARK: - CustomStringConvertible

extension SwarmOptions: CustomStringConvertible {
    /// One line: `faults all, sites on 0.50, per statement link 0.30 clock 0.06 …, deferral 1-3000ms (half), …`.
    public var description: String {
        func span(_ range: ClosedRange<Int>, _ unit: String) -> String { "\(range.lowerBound)-\(range.upperBound)\(unit)" }
        func rate(_ value: Double) -> String { String(format: "%.2f", value) }
        return "faults \(faults.rawValue), sites on \(rate(siteEnabledRate)), per statement link \(rate(linkRate)) "
            + "clock \(rate(clockRate)) point \(rate(pointRate)) swizzle \(rate(swizzleRate)) crash \(rate(crashRate)), "
            + "deferral \(span(deferralMilliseconds, "ms")) (half), "
            + "latency uniform \(span(uniformLatencyLowMilliseconds, "ms"))+\(span(uniformLatencySpreadMilliseconds, "ms"))"
            + " normal \(span(normalLatencyMeanMilliseconds, "ms")) exponential \(span(exponentialLatencyMeanMilliseconds, "ms")), "
            + "partition \(span(partitionSeconds, "s")), hold \(span(holdSeconds, "s")), "
            + "reset after \(span(resetAfterBytes, " bytes")), skew ±\(span(clockSkewSeconds, "s")), "
            + "fault points \(span(faultPointTimes, " times")), "
            + "swizzle \(span(swizzleLinks, " links")) every \(span(swizzleStaggerMilliseconds, "ms")) for \(span(swizzleSeconds, "s")), "
            + "crashes down \(span(crashDowntimeSeconds, "s")), at write \(span(crashWrites, "")) (half)"
            + (mix == .drawn ? ", each seed drawing its mix of these (--mix drawn)" : "")
    }
}
