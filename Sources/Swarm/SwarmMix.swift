import Wire

/// What one seed makes of the swarm's options when the mix is drawn (`workbench swarm --mix drawn`): which fault
/// classes fire and how often, which systems' fault points are on, how links slow down, which way partitions cut and
/// how clocks move.
///
/// Swarm testing (Groce et al., "Swarm Testing", ISSTA 2012) and TigerBeetle's `options_swarm` vary the features a
/// test may use from one test to the next: a fault that is on in every run can hide the bug another exposes (a
/// partition that always comes first keeps a race from happening), and a bug that needs many faults of one kind
/// is likelier in a run that has only that kind. With the fixed mix (the default), every seed draws within the same
/// options, as before: no draw is added, so every seed's faults stay what they were.
///
/// The mix comes from its own streams (`swarm-mix`, and `swarm-mix system NAME` per system), never from a site's, so
/// drawing it moves no other draw; the same seed draws the same mix in any process.
public struct SwarmMix: Sendable, Equatable, CustomStringConvertible {
    /// Whether the seed draws its mix.
    public enum Mode: String, Sendable, Codable, CaseIterable {
        case fixed, drawn
    }

    /// Which latency distributions a link that slows down takes.
    public enum Latency: String, Sendable, CaseIterable {
        case any, uniform, normal, exponential
    }

    /// Which way a partition cuts a link.
    public enum Partitions: String, Sendable, CaseIterable {
        case any
        case oneWay = "one-way"
        case bothWays = "both-ways"
    }

    /// How a clock that moves moves: a step (a skew of up to the options' bound, either way), a drift (small steps,
    /// always the same way for a host), or a wobble (small steps either way).
    public enum Clock: String, Sendable, CaseIterable {
        case step, drift, wobble
    }

    public let mode: Mode
    /// The chance a site is on for the seed.
    public let siteEnabledRate: Double
    /// Each class's rate times this (0: the class never fires in the seed).
    public let linkScale: Double
    public let clockScale: Double
    public let pointScale: Double
    public let swizzleScale: Double
    public let crashScale: Double
    /// The chance that a system's fault points (those named `SYSTEM.…`) are on for the seed at all.
    public let systemRate: Double
    public let latency: Latency
    public let partitions: Partitions
    public let clock: Clock
    /// How far a clock's step may go: the options' bound (minutes), or twelve times it (hours: a device set to another
    /// time zone, a server whose clock was never synced). Only a step takes it; a drift or a wobble stays small.
    public let clockReach: ClockReach
    let seed: UInt64

    /// How far a clock's step may go (``clockReach``).
    public enum ClockReach: String, Sendable, CaseIterable {
        case minutes, hours

        /// How much farther than the options' bound a step may go.
        var factor: Int { self == .hours ? 12 : 1 }
    }

    /// The mix every seed has without `--mix drawn`: the options as they are.
    public static func fixed(_ options: SwarmOptions) -> SwarmMix {
        SwarmMix(
            mode: .fixed, siteEnabledRate: options.siteEnabledRate, linkScale: 1, clockScale: 1, pointScale: 1, swizzleScale: 1,
            crashScale: 1, systemRate: 1, latency: .any, partitions: .any, clock: .step, clockReach: .minutes, seed: 0)
    }

    /// The mix of `seed`: a class is off a quarter of the time and otherwise scaled by ½, 1, 2 or 4; sites are on with a
    /// chance from ¼ to 1; systems with ½ or 1; one latency family or any, one partition direction or any, one clock
    /// shape, and how far a clock's step goes (minutes or hours, each half the time).
    public static func drawn(seed: UInt64) -> SwarmMix {
        let random = RandomStream(seed: seed, name: "swarm-mix")
        func scale() -> Double { [0, 0, 0.5, 1, 1, 2, 4, 0][random.int(in: 0...7)] }
        let siteEnabledRate = 0.25 + 0.75 * random.unit()
        let (link, clock, point, swizzle) = (scale(), scale(), scale(), scale())
        let systemRate = random.int(in: 0...1) == 0 ? 0.5 : 1
        let latency = Latency.allCases[random.int(in: 0...(Latency.allCases.count - 1))]
        let partitions = Partitions.allCases[random.int(in: 0...(Partitions.allCases.count - 1))]
        let clockShape = Clock.allCases[random.int(in: 0...(Clock.allCases.count - 1))]
        // Drawn last, in the order they came: each later axis leaves every earlier draw of a seed's mix what it was.
        let crash = scale()
        let clockReach = ClockReach.allCases[random.int(in: 0...(ClockReach.allCases.count - 1))]
        return SwarmMix(
            mode: .drawn, siteEnabledRate: siteEnabledRate, linkScale: link, clockScale: clock, pointScale: point, swizzleScale: swizzle,
            crashScale: crash, systemRate: systemRate, latency: latency, partitions: partitions, clock: clockShape, clockReach: clockReach,
            seed: seed)
    }

    /// The mix of `seed` in `mode`.
    public static func of(seed: UInt64, mode: Mode, options: SwarmOptions) -> SwarmMix {
        mode == .fixed ? .fixed(options) : .drawn(seed: seed)
    }

    /// Whether the fault points of `system` (the part of a point's name before its first dot) are on for the seed.
    public func systemIsOn(_ system: String) -> Bool {
        systemRate >= 1 || RandomStream(seed: seed, name: "swarm-mix system " + system).unit() < systemRate
    }

    /// The options a seed of this mix draws its faults within.
    func applied(to options: SwarmOptions) -> SwarmOptions {
        guard mode == .drawn else { return options }
        var applied = options
        applied.siteEnabledRate = siteEnabledRate
        applied.linkRate *= linkScale
        applied.clockRate *= clockScale
        applied.pointRate *= pointScale
        applied.swizzleRate *= swizzleScale
        applied.crashRate *= crashScale
        applied.clockSkewSeconds = options.clockSkewSeconds.lowerBound...(options.clockSkewSeconds.upperBound * clockReach.factor)
        return applied
    }

    /// One line, printed with a failing seed of a drawn mix: `sites on 0.62, link ×2 clock ×0 point ×1 swizzle ×0.5, …`.
    public var description: String {
        guard mode == .drawn else { return "fixed" }
        func times(_ scale: Double) -> String { scale == 0.5 ? "×½" : "×\(Int(scale))" }
        return "sites on \(String(format: "%.2f", siteEnabledRate)), link \(times(linkScale)) clock \(times(clockScale)) "
            + "point \(times(pointScale)) swizzle \(times(swizzleScale)) crash \(times(crashScale)), systems on \(systemRate == 1 ? "all" : "half"), "
            + "latency \(latency.rawValue), partitions \(partitions.rawValue), clock \(clock.rawValue)"
            + (clock == .step ? " up to \(clockReach.rawValue)" : "")
    }
}
