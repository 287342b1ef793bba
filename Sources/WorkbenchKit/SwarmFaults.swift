import Wire

/// The changes a swarm may make to each seed's world: the candidates, how many of them a seed draws, and the window of
/// virtual time they happen in.
///
/// Each seed draws its own plan — which candidates, and when each happens — from a stream of its own, derived from the
/// seed by a name no world uses: the same seed always draws the same plan, and drawing it changes none of the world's
/// draws (a body sees the same random streams with or without a plan).
public struct SwarmFaults: Sendable, Equatable {
    /// The changes a seed may draw, each at most once: fault points with their modes (``Simulation/faultPoints(of:)``
    /// lists an actor kind's), partitions, holds, links, resets and clock skews between named nodes.
    public let candidates: [WorldChange]
    /// How many candidates a seed draws (at most all of them).
    public let count: ClosedRange<Int>
    /// When a drawn change happens, from the start of the world (to the millisecond).
    public let window: ClosedRange<Duration>
    /// Why no plan can be drawn from these (a count or a window that starts below zero), or nil: a swarm over them
    /// records it as its one issue and runs nothing, and ``draw(seed:)`` draws within zero and up.
    public let problem: String?

    /// The changes a seed may draw, how many it draws, and when they happen.
    ///
    /// - parameters:
    ///   - candidates: the changes a seed may draw.
    ///   - count: how many a seed draws; a seed draws every candidate when there are fewer than its lower bound.
    ///   - window: when each drawn change happens, from the start of the world.
    ///   Both start at zero or later; otherwise ``problem`` says which does not.
    public init(_ candidates: [WorldChange], count: ClosedRange<Int>, within window: ClosedRange<Duration>) {
        (self.candidates, self.count, self.window) = (candidates, count, window)
        problem =
            count.lowerBound < 0
            ? "SwarmFaults: a count of \(count) draws fewer than no change; expected a range from 0 up"
            : window.lowerBound < .zero
                ? "SwarmFaults: a window of \(ScenarioText.duration(window.lowerBound))…\(ScenarioText.duration(window.upperBound)) "
                    + "starts before the world does; expected one from 0s up" : nil
    }

    /// The plan `seed` draws: its changes, in the order they happen (by time, then by their order in ``candidates``).
    public func draw(seed: UInt64) -> [DrawnChange] {
        // A name of its own: the world's streams are named by node ("node:phone"), so this stream is none of them.
        let random = RandomStream(seed: seed, name: "workbench-testing swarm faults")
        let most = max(0, min(count.upperBound, candidates.count))
        let drawn = random.int(in: min(max(0, count.lowerBound), most)...most)
        var order = Array(candidates.indices)
        for position in 0..<drawn { order.swapAt(position, random.int(in: position...(order.count - 1))) }
        let milliseconds =
            Int(max(0, window.lowerBound.nanosecondsValue) / 1_000_000)...Int(max(0, window.upperBound.nanosecondsValue) / 1_000_000)
        let timed = order.prefix(drawn).map { (candidate: $0, delay: Duration.milliseconds(random.int(in: milliseconds))) }
        return timed.sorted { ($0.delay, $0.candidate) < ($1.delay, $1.candidate) }.map {
            DrawnChange(change: candidates[$0.candidate], delay: $0.delay)
        }
    }
}

/// One change of a seed's plan (``SwarmFaults/draw(seed:)``): what changes, and when.
public struct DrawnChange: Sendable, Equatable, CustomStringConvertible {
    /// The change.
    public let change: WorldChange
    /// When it happens, from the time the plan is applied (the start of the world, in a swarm).
    public let delay: Duration

    /// A change `delay` after the plan is applied.
    public init(change: WorldChange, delay: Duration) { (self.change, self.delay) = (change, delay) }

    /// `at DELAY LINE`: the change's scenario line and when it happens.
    public var description: String { "at \(ScenarioText.duration(delay)) \(change.line)" }
}
