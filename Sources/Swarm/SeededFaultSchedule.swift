import Kernel
import Scenario
import Synchronization
import Wire

/// Chooses a run's faults from its seed, statement by statement, within ``SwarmOptions``, from what the world holds at
/// that moment: the links that carried a connection or that this statement's step will use (``LinkForecast``), the
/// nodes' clocks, the fault points actors declared.
///
/// Two levels, as FoundationDB's BUGGIFY: each fault site is switched on or off once for the seed, and a site that is
/// on fires before each statement with its own probability (its seed-drawn weight times its class's share). Each
/// site draws from its own stream (named by the seed and the site), so whether a site is on, its weight and what it
/// fires never depend on the draws of another site. Each fault is a plain
/// scenario line that names its site; half are deferred with `later` so they land in the middle of the next step,
/// and partitions and holds end by themselves (`for`), so a step never waits for a statement that would heal it.
/// The swizzle site clogs a few links one after the other and unclogs them in another order (FoundationDB's
/// swizzle-clogging), as one `hold … for` line per link: each line can be shrunk away alone.
///
/// The order of the draws within a site is part of every seed's meaning: reordering them changes every swarm digest.
public struct SeededFaultSchedule: FaultScheduler {
    /// The options the seed draws within: the swarm's, as the seed's mix (``SwarmMix``) makes them.
    public let options: SwarmOptions
    public let mix: SwarmMix
    public let seed: UInt64
    let forecast: LinkForecast
    private let sites: SiteTable

    /// - parameter forecast: the links the workload's statements use; without one, a link is a site only once a
    ///   connection used it.
    init(options: SwarmOptions, seed: UInt64, forecast: LinkForecast) {
        mix = SwarmMix.of(seed: seed, mode: options.mix, options: options)
        self.options = mix.applied(to: options)
        self.seed = seed
        self.forecast = forecast
        sites = SiteTable()
    }

    public init(options: SwarmOptions, seed: UInt64) { self.init(options: options, seed: seed, forecast: .none) }

    public func faults(before index: Int, in context: ScenarioContext) -> [ScheduledFault] {
        guard options.faults != .none else { return [] }
        let network = context.kernel.network
        let links = forecast.links(before: index, used: network.usedLinks)
        return draw(links: links, hosts: network.hostNames, points: context.kernel.faults.all.map(\.name), crashable: context.crashableActors)
            .map { ScheduledFault(before: index, line: $0.line, site: $0.site) }
    }

    /// The faults drawn before one statement, site by site in a fixed order (links, clocks, the swizzle, points,
    /// crashes), among the sites the fault classes allow.
    func draw(
        links allLinks: [(String, String)], hosts allHosts: [String], points allPoints: [String], crashable allCrashable: [String] = []
    ) -> [(site: String, line: String)] {
        let links = options.faults.network ? allLinks : []
        let hosts = options.faults.network ? allHosts : []
        let points = options.faults.actors ? allPoints.filter { mix.systemIsOn(String($0.prefix { $0 != "." })) } : []
        let crashable = options.faults.actors ? allCrashable : []
        var drawn: [(site: String, line: String)] = []
        for (a, b) in links {
            let name = "link \(a)<->\(b)"
            if let site = fires(name, share: options.linkRate / Double(links.count)) { drawn.append((name, linkFault(a, b, site.random))) }
        }
        for host in hosts {
            let name = "clock \(host)"
            if let site = fires(name, share: options.clockRate / Double(hosts.count)) { drawn.append((name, clockFault(host, site.random))) }
        }
        if links.count >= 2, let site = fires("swizzle", share: options.swizzleRate) {
            site.swizzles += 1
            let name = "swizzle \(site.swizzles)"
            drawn += swizzle(links, site.random).map { (name, $0) }
        }
        for point in points {
            let name = "point \(point)"
            if let site = fires(name, share: options.pointRate / Double(points.count)) { drawn.append((name, pointFault(point, site.random))) }
        }
        for actor in crashable {
            let name = "crash \(actor)"
            if let site = fires(name, share: options.crashRate / Double(crashable.count)) { drawn.append((name, crashFault(actor, site.random))) }
        }
        return drawn
    }

    /// The site called `name` if it is on for this seed and fires now, with probability its weight × `share` (one
    /// draw from its stream when it is on, even when it does not fire).
    private func fires(_ name: String, share: Double) -> Site? {
        let site = sites.site(name) {
            let random = RandomStream(seed: seed, name: "swarm-site " + name)
            let (enabled, weight) = Self.decide(random, options)
            return Site(random: random, enabled: enabled, weight: weight)
        }
        guard site.enabled, site.random.unit() < site.weight * share else { return nil }
        return site
    }

    /// Whether the site called `name` is on for this seed, and its weight (0 to 2): the seed and the name decide.
    public func decision(of name: String) -> (enabled: Bool, weight: Double) {
        Self.decide(RandomStream(seed: seed, name: "swarm-site " + name), options)
    }

    /// A site's first two draws: on or off, then its weight.
    private static func decide(_ random: RandomStream, _ options: SwarmOptions) -> (enabled: Bool, weight: Double) {
        let enabled = random.unit() < options.siteEnabledRate
        return (enabled, 2 * random.unit())
    }

    // The lines a site fires, drawn from `random`: shared with the mutants of `--explore`, which add faults as a seed
    // would draw them.

    func clockFault(_ host: String, _ random: RandomStream) -> String {
        switch mix.clock {
        case .step:
            let seconds = random.int(in: options.clockSkewSeconds)
            return "clock \(host) skew \(random.int(in: 0...1) == 0 ? "-" : "+")\(seconds)s"
        case .drift:
            // Small steps, always the same way for a host in the seed: the host's direction is the seed's and the host's.
            let ahead = RandomStream(seed: seed, name: "swarm-mix drift " + host).int(in: 0...1) == 1
            return "clock \(host) skew \(ahead ? "+" : "-")\(random.int(in: 1...5))s"
        case .wobble:
            return "clock \(host) skew \(random.int(in: 0...1) == 0 ? "-" : "+")\(random.int(in: 1...30))s"
        }
    }

    func pointFault(_ point: String, _ random: RandomStream) -> String {
        deferral(random) + "fault \(point) times \(random.int(in: options.faultPointTimes))"
    }

    /// Half the time deferred, so the node loses its power between two steps (between an answer and the write it
    /// promised, when the actor has that bug); else during one of its next disk writes, inside whatever step makes it
    /// (a commit half written, which only a store that can undo it survives). Back by itself either way: the rest of
    /// the workload runs against the restart.
    func crashFault(_ actor: String, _ random: RandomStream) -> String {
        let downtime = random.int(in: options.crashDowntimeSeconds)
        if random.int(in: 0...1) == 0 { return "crash \(actor) at write \(random.int(in: options.crashWrites)) for \(downtime)s" }
        return "later \(random.int(in: options.deferralMilliseconds))ms crash \(actor) for \(downtime)s"
    }

    func linkFault(_ a: String, _ b: String, _ random: RandomStream) -> String {
        let (from, to) = random.int(in: 0...1) == 0 ? (a, b) : (b, a)
        switch random.int(in: 0...4) {
        case 0:
            return "link \(from) <-> \(to) latency \(latency(random))"
        case 1:
            let delay = deferral(random)
            let oneWay = random.int(in: 0...1) == 0
            let arrow = mix.partitions == .any ? (oneWay ? "->" : "<->") : mix.partitions == .oneWay ? "->" : "<->"
            return delay + "partition \(from) \(arrow) \(to) for \(random.int(in: options.partitionSeconds))s"
        case 2:
            let delay = deferral(random)
            return delay + "hold \(from) -> \(to) for \(random.int(in: options.holdSeconds))s"
        case 3:
            return deferral(random) + "reset \(from) <-> \(to)"
        default:
            return "reset \(from) -> \(to) after \(Self.octaveUniform(random, in: options.resetAfterBytes)) bytes"
        }
    }

    /// A count drawn octave by octave: first a power of two in `range`, then a value within that octave. A cut
    /// only matters at a message's edge, and the messages of a run come at every scale — a 300-byte answer after
    /// a 2 KB handshake, a 100 KB upload — so each scale gets the same chance, as a fuzzer draws lengths; a
    /// uniform draw up to 300,000 bytes put 99 % of the cuts past any short exchange. Integers only, so every
    /// machine draws the same.
    static func octaveUniform(_ random: RandomStream, in range: ClosedRange<Int>) -> Int {
        let low = max(1, range.lowerBound)
        let first = Int.bitWidth - 1 - low.leadingZeroBitCount
        let last = Int.bitWidth - 1 - range.upperBound.leadingZeroBitCount
        let octave = random.int(in: first...last)
        return random.int(in: max(low, 1 << octave)...min(range.upperBound, (1 << (octave + 1)) - 1))
    }

    /// The words of a fault line as this schedule writes it, with its deferral (`1234ms` of `later 1234ms …`) apart.
    static func words(of line: String) -> (later: String?, words: [String]) {
        let words = line.split(separator: " ").map(String.init)
        guard words.first == "later" else { return (nil, words) }
        return (words.count > 1 ? words[1] : nil, Array(words.dropFirst(2)))
    }

    /// `later Nms ` for half the faults, else nothing.
    private func deferral(_ random: RandomStream) -> String {
        random.int(in: 0...1) == 0 ? "" : "later \(random.int(in: options.deferralMilliseconds))ms "
    }

    func latency(_ random: RandomStream) -> String {
        let family: Int =
            switch mix.latency {
            case .any: random.int(in: 0...2)
            case .uniform: 0
            case .normal: 1
            case .exponential: 2
            }
        switch family {
        case 0:
            let low = random.int(in: options.uniformLatencyLowMilliseconds)
            return "uniform \(low)ms..\(low + random.int(in: options.uniformLatencySpreadMilliseconds))ms"
        case 1:
            let mean = random.int(in: options.normalLatencyMeanMilliseconds)
            return "normal \(mean)ms \(random.int(in: 1...max(1, mean / 2)))ms"
        default:
            return "exponential \(random.int(in: options.exponentialLatencyMeanMilliseconds))ms"
        }
    }

    /// A few links, clogged one after the other (`stagger` apart), then unclogged in a random order (also `stagger`
    /// apart) from `swizzleSeconds` after the last clog: one `hold A <-> B for D` line per link.
    func swizzle(_ links: [(String, String)], _ random: RandomStream) -> [String] {
        var pool = Array(links.indices)
        let count = min(random.int(in: options.swizzleLinks), links.count)
        var chosen: [Int] = []
        for _ in 0..<count { chosen.append(pool.remove(at: random.int(in: 0...(pool.count - 1)))) }
        let stagger = random.int(in: options.swizzleStaggerMilliseconds)
        var unclogOrder = Array(0..<count)
        for position in stride(from: count - 1, to: 0, by: -1) { unclogOrder.swapAt(position, random.int(in: 0...position)) }
        let firstUnclog = (count - 1) * stagger + random.int(in: options.swizzleSeconds) * 1_000
        return chosen.enumerated().map { position, link in
            let clog = position * stagger
            let unclog = firstUnclog + unclogOrder[position] * stagger
            let (a, b) = links[link]
            return (clog == 0 ? "" : "later \(clog)ms ") + "hold \(a) <-> \(b) for \(unclog - clog)ms"
        }
    }
}

/// One fault site of one run: whether it is on, its weight, its stream, and (for the swizzle) how many swizzles it
/// has run.
final class Site: @unchecked Sendable {
    // @unchecked Sendable: used only by the thread that runs the scenario (the schedule is made per run).
    let random: RandomStream
    let enabled: Bool
    let weight: Double
    var swizzles = 0

    init(random: RandomStream, enabled: Bool, weight: Double) {
        self.random = random
        self.enabled = enabled
        self.weight = weight
    }
}

/// The sites a run has met so far, by name.
final class SiteTable: Sendable {
    private let sites = Mutex<[String: Site]>([:])

    func site(_ name: String, make: () -> Site) -> Site {
        sites.withLock { all in
            if let site = all[name] { return site }
            let site = make()
            all[name] = site
            return site
        }
    }
}
