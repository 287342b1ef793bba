import Kernel
import Wire

/// Which faults a swarm lets the seed choose: `network` (latency distributions, partitions, holds, resets, clock
/// skew), `actors` (every declared fault point), both, or none (the seed still drives every random draw).
public enum FaultClass: String, CaseIterable, Sendable, Codable {
    case none, network, actors, all

    /// The chance that a fault is injected before a statement.
    public static let injectionRate = 0.3

    var network: Bool { self == .network || self == .all }
    var actors: Bool { self == .actors || self == .all }
}

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
    /// Chosen from the run seed as the run goes (the hosts and fault points that exist at each statement).
    case seeded(FaultClass)
    /// Exactly these (a replayed or shrunk schedule).
    case explicit([ScheduledFault])
}

/// Chooses a run's faults from its seed, statement by statement, from what the world holds at that moment: the
/// hosts on the network and the fault points actors declared. Each fault is a plain scenario line; half are
/// deferred with `later` so they land in the middle of the next step (an upload, a handshake), and partitions and
/// holds end by themselves (`for`), so a step never waits for a statement that would heal it.
struct FaultScheduleGenerator {
    let classes: FaultClass
    let random: RandomStream
    init(classes: FaultClass, seed: UInt64) {
        self.classes = classes
        random = RandomStream(seed: seed, name: "swarm-faults")
    }

    func lines(before index: Int, in context: ScenarioContext) -> [String] {
        guard classes != .none, random.unit() < FaultClass.injectionRate else { return [] }
        let hosts = context.kernel.network.hostNames
        let points = classes.actors ? context.kernel.faults.all.map(\.name) : []
        var kinds: [Kind] = []
        if classes.network, hosts.count >= 2 { kinds += [.latency, .partition, .hold, .reset, .resetAfterBytes, .skew] }
        if !points.isEmpty { kinds += [.point, .point, .point] }
        guard !kinds.isEmpty else { return [] }
        // Half of them act at once, half a little into the next step (the middle of an upload, a handshake).
        let delay = random.int(in: 0...1) == 0 ? "" : "later \(random.int(in: 1...3_000))ms "
        switch kinds[random.int(in: 0...(kinds.count - 1))] {
        case .latency:
            let (a, b) = pair(hosts)
            let latency: String
            switch random.int(in: 0...2) {
            case 0: let low = random.int(in: 0...50); latency = "uniform \(low)ms..\(low + random.int(in: 1...500))ms"
            case 1: let mean = random.int(in: 1...200); latency = "normal \(mean)ms \(random.int(in: 1...max(1, mean / 2)))ms"
            default: latency = "exponential \(random.int(in: 1...200))ms"
            }
            return ["link \(a) <-> \(b) latency \(latency)"]
        case .partition:
            let (a, b) = pair(hosts)
            return [delay + "partition \(a) \(random.int(in: 0...1) == 0 ? "->" : "<->") \(b) for \(random.int(in: 1...30))s"]
        case .hold:
            let (a, b) = pair(hosts)
            return [delay + "hold \(a) -> \(b) for \(random.int(in: 1...20))s"]
        case .reset:
            let (a, b) = pair(hosts)
            return [delay + "reset \(a) <-> \(b)"]
        case .resetAfterBytes:
            let (a, b) = pair(hosts)
            return ["reset \(a) -> \(b) after \(random.int(in: 1...300_000)) bytes"]
        case .skew:
            let seconds = random.int(in: 1...600)
            return ["clock \(hosts[random.int(in: 0...(hosts.count - 1))]) skew \(random.int(in: 0...1) == 0 ? "-" : "+")\(seconds)s"]
        case .point:
            let point = points[random.int(in: 0...(points.count - 1))]
            return [delay + "fault \(point) times \(random.int(in: 1...3))"]
        }
    }

    private enum Kind { case latency, partition, hold, reset, resetAfterBytes, skew, point }

    /// Two different hosts, in a seed-chosen order.
    private func pair(_ hosts: [String]) -> (String, String) {
        let a = random.int(in: 0...(hosts.count - 1))
        var b = random.int(in: 0...(hosts.count - 2))
        if b >= a { b += 1 }
        return (hosts[a], hosts[b])
    }
}
