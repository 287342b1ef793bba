import Kernel
import Scenario
import Wire

/// Chooses a run's faults from its seed, statement by statement, within ``SwarmOptions``, from what the world holds at
/// that moment: the hosts on the network and the fault points actors declared. Each fault is a plain scenario line;
/// half are deferred with `later` so they land in the middle of the next step (an upload, a handshake), and
/// partitions and holds end by themselves (`for`), so a step never waits for a statement that would heal it.
///
/// The order of the draws is part of every seed's meaning: reordering them changes every swarm digest.
public struct SeededFaultSchedule: FaultScheduler {
    public let options: SwarmOptions
    private let random: RandomStream

    public init(options: SwarmOptions, seed: UInt64) {
        self.options = options
        random = RandomStream(seed: seed, name: "swarm-faults")
    }

    public func lines(before index: Int, in context: ScenarioContext) -> [String] {
        guard injects() else { return [] }
        return fault(hosts: context.kernel.network.hostNames, points: context.kernel.faults.all.map(\.name)).map { [$0] } ?? []
    }

    /// Whether a fault comes before the next statement (one draw, even when it does not).
    func injects() -> Bool {
        options.faults != .none && random.unit() < options.injectionRate
    }

    /// One fault among those the fault classes, `hosts` and `points` allow, or nil if they allow none.
    func fault(hosts: [String], points: [String]) -> String? {
        var kinds: [Kind] = []
        if options.faults.network, hosts.count >= 2 { kinds += [.latency, .partition, .hold, .reset, .resetAfterBytes, .skew] }
        if options.faults.actors, !points.isEmpty { kinds += [.point, .point, .point] }
        guard !kinds.isEmpty else { return nil }
        let delay = random.int(in: 0...1) == 0 ? "" : "later \(random.int(in: options.deferralMilliseconds))ms "
        switch kinds[random.int(in: 0...(kinds.count - 1))] {
        case .latency:
            let (a, b) = pair(hosts)
            return "link \(a) <-> \(b) latency \(latency())"
        case .partition:
            let (a, b) = pair(hosts)
            return delay + "partition \(a) \(random.int(in: 0...1) == 0 ? "->" : "<->") \(b) for \(random.int(in: options.partitionSeconds))s"
        case .hold:
            let (a, b) = pair(hosts)
            return delay + "hold \(a) -> \(b) for \(random.int(in: options.holdSeconds))s"
        case .reset:
            let (a, b) = pair(hosts)
            return delay + "reset \(a) <-> \(b)"
        case .resetAfterBytes:
            let (a, b) = pair(hosts)
            return "reset \(a) -> \(b) after \(random.int(in: options.resetAfterBytes)) bytes"
        case .skew:
            let seconds = random.int(in: options.clockSkewSeconds)
            return "clock \(hosts[random.int(in: 0...(hosts.count - 1))]) skew \(random.int(in: 0...1) == 0 ? "-" : "+")\(seconds)s"
        case .point:
            let point = points[random.int(in: 0...(points.count - 1))]
            return delay + "fault \(point) times \(random.int(in: options.faultPointTimes))"
        }
    }

    private enum Kind { case latency, partition, hold, reset, resetAfterBytes, skew, point }

    private func latency() -> String {
        switch random.int(in: 0...2) {
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

    /// Two different hosts, in a seed-chosen order.
    private func pair(_ hosts: [String]) -> (String, String) {
        let a = random.int(in: 0...(hosts.count - 1))
        var b = random.int(in: 0...(hosts.count - 2))
        if b >= a { b += 1 }
        return (hosts[a], hosts[b])
    }
}
