#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// How one direction of the path between two hosts behaves.
public struct LinkConditions: Sendable, Equatable, CustomStringConvertible {
    /// One-way delay of each segment.
    public var latency: Latency = .fixed(0)
    /// Bytes per second; `nil` is unlimited.
    public var bandwidth: Int? = nil

    /// Conditions with `latency` for each segment and at most `bandwidth` bytes per second (nil: unlimited); the
    /// defaults make a perfect link.
    public init(latency: Latency = .fixed(0), bandwidth: Int? = nil) {
        self.latency = latency
        self.bandwidth = bandwidth
    }

    /// The conditions in words, e.g. `latency 20ms, bandwidth 100000 B/s`; no bandwidth part when unlimited.
    public var description: String {
        "latency \(latency)" + (bandwidth.map { ", bandwidth \($0) B/s" } ?? "")
    }
}

/// A distribution of one-way delays, sampled from the network's seeded stream.
public enum Latency: Sendable, Equatable, CustomStringConvertible {
    /// Always the same delay (nanoseconds).
    case fixed(Int64)
    /// Uniform between two delays (nanoseconds, inclusive).
    case uniform(Int64, Int64)
    /// Normal with a mean and standard deviation (nanoseconds), never below zero.
    case normal(mean: Int64, deviation: Int64)
    /// Exponential with a mean (nanoseconds): mostly short, occasionally long.
    case exponential(mean: Int64)

    /// Draws one delay.
    public func sample(_ random: RandomStream) -> Int64 {
        switch self {
        case .fixed(let value):
            return value
        case .uniform(let low, let high):
            return low + Int64(Double(high - low) * random.unit())
        case .normal(let mean, let deviation):
            // Box–Muller; two draws per sample keeps the stream's use predictable.
            let u1 = max(random.unit(), 1e-12)
            let u2 = random.unit()
            let z = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
            return max(0, mean + Int64(z * Double(deviation)))
        case .exponential(let mean):
            return Int64(-log(max(1 - random.unit(), 1e-12)) * Double(mean))
        }
    }

    /// The distribution in words: the delay alone when fixed, else e.g. `uniform 10ms..30ms`, `normal 20ms±5ms`,
    /// `exponential 20ms`.
    public var description: String {
        switch self {
        case .fixed(let v): Duration.nanoseconds(v).workbenchText
        case .uniform(let a, let b): "uniform \(Duration.nanoseconds(a).workbenchText)..\(Duration.nanoseconds(b).workbenchText)"
        case .normal(let m, let d): "normal \(Duration.nanoseconds(m).workbenchText)±\(Duration.nanoseconds(d).workbenchText)"
        case .exponential(let m): "exponential \(Duration.nanoseconds(m).workbenchText)"
        }
    }
}
