/// A change to a simulated world, as the scenario language's lines make them (docs/scenario-language.md):
/// ``Simulation/apply(_:)-(WorldChange)`` runs it now, ``Simulation/apply(_:after:)`` later. Nodes are named as ``Simulation/node(_:)``
/// and ``Simulation/start(_:as:on:options:)`` name them (`phone` is every client's default node).
public enum WorldChange: Sendable, Equatable {
    /// Latency and bandwidth on the path from `from` to `to` (and back, unless `bothWays` is false); what is nil stays
    /// as it was. Bandwidth is in bytes a second. The line `link A <-> B latency … bandwidth …`.
    case link(from: String, to: String, latency: Latency? = nil, bandwidth: Int? = nil, bothWays: Bool = true)
    /// Cuts the path between two nodes both ways: data waits, connection attempts are retried, senders give up after
    /// 60 s; with a duration, it heals that much later. The line `partition A <-> B [for D]`.
    case partition(String, String, for: Duration? = nil)
    /// Ends a partition; waiting traffic flows. The line `heal A <-> B`.
    case heal(String, String)
    /// Holds the traffic from `from` to `to` (nobody times out) until released, or for a duration. The line
    /// `hold A -> B [for D]`.
    case hold(from: String, to: String, for: Duration? = nil)
    /// Lets held traffic through, in order. The line `release A -> B`.
    case release(from: String, to: String)
    /// Resets the open connections between two nodes. The line `reset A <-> B`.
    case reset(String, String)
    /// Resets the connection that carries the `bytes`-th byte from now from `from` to `to`. The line
    /// `reset A -> B after N bytes`.
    case resetAfter(bytes: Int, from: String, to: String)
    /// Switches a fault point (``Simulation/faultPoints(of:)`` lists an actor kind's). The line `fault POINT MODE`.
    case fault(String, FaultMode)
    /// Sets a node's calendar clock ahead (positive) or behind (negative) true time. The line `clock NODE skew ±D`.
    case clockSkew(node: String, by: Duration)

    /// The scenario line that makes the change.
    public var line: String {
        let word = ScenarioText.word
        let duration = ScenarioText.duration
        switch self {
        case .link(let from, let to, let latency, let bandwidth, let bothWays):
            var words = ["link", word(from), bothWays ? "<->" : "->", word(to)]
            if let latency { words += ["latency", latency.text] }
            if let bandwidth { words += ["bandwidth", "\(bandwidth)B/s"] }
            return words.joined(separator: " ")
        case .partition(let a, let b, let time):
            return "partition \(word(a)) <-> \(word(b))" + (time.map { " for \(duration($0))" } ?? "")
        case .heal(let a, let b): return "heal \(word(a)) <-> \(word(b))"
        case .hold(let from, let to, let time):
            return "hold \(word(from)) -> \(word(to))" + (time.map { " for \(duration($0))" } ?? "")
        case .release(let from, let to): return "release \(word(from)) -> \(word(to))"
        case .reset(let a, let b): return "reset \(word(a)) <-> \(word(b))"
        case .resetAfter(let bytes, let from, let to): return "reset \(word(from)) -> \(word(to)) after \(bytes) bytes"
        case .fault(let point, let mode): return "fault \(word(point)) \(mode.text)"
        case .clockSkew(let node, let skew): return "clock \(word(node)) skew \(skew < .zero ? "" : "+")\(duration(skew))"
        }
    }
}

/// How a link's delay is drawn (from the world's seeded stream).
public enum Latency: Sendable, Equatable {
    /// Always this long.
    case fixed(Duration)
    /// Evenly between the two bounds.
    case uniform(Duration, Duration)
    /// Normally distributed around `mean` (never below zero).
    case normal(mean: Duration, deviation: Duration)
    /// Exponentially distributed with this mean.
    case exponential(mean: Duration)

    var text: String {
        let duration = ScenarioText.duration
        switch self {
        case .fixed(let delay): return duration(delay)
        case .uniform(let low, let high): return "uniform \(duration(low))..\(duration(high))"
        case .normal(let mean, let deviation): return "normal \(duration(mean)) \(duration(deviation))"
        case .exponential(let mean): return "exponential \(duration(mean))"
        }
    }
}

/// When a fault point fires.
public enum FaultMode: Sendable, Equatable {
    /// Every time it is checked.
    case on
    /// Never.
    case off
    /// The next time only.
    case once
    /// The next `count` times.
    case times(Int)
    /// Each time with probability `p` (0…1), drawn from the world's seeded stream.
    case chance(Double)
    /// Every time after the next `count` checks have passed.
    case after(Int)

    var text: String {
        switch self {
        case .on: "on"
        case .off: "off"
        case .once: "once"
        case .times(let count): "times \(count)"
        case .chance(let p): "chance \(p)"
        case .after(let count): "after \(count)"
        }
    }
}
