import Synchronization

/// Named fault points that actors declare and scenarios switch: "printer.media-empty", "scpms.503", …
///
/// A point is checked where the fault would happen (`node.fault("printer.media-empty")`). How often it
/// fires is the scenario's choice; `chance` draws from a seeded stream so a run is reproduced by its seed.
public final class FaultPoints: Sendable {
    /// How a fault point behaves when checked.
    public enum Mode: Sendable, Equatable, CustomStringConvertible {
        /// Never fires.
        case off
        /// Fires every time.
        case on
        /// Fires the next `n` times, then turns off.
        case times(Int)
        /// Fires with probability `p` each time (seeded).
        case chance(Double)
        /// Stays quiet for `n` checks, then fires every time.
        case after(Int)

        /// The mode in words: `off`, `on`, `once`, `times 3`, `chance 0.2`, `after 5`.
        public var description: String {
            switch self {
            case .off: "off"
            case .on: "on"
            case .times(let n): n == 1 ? "once" : "times \(n)"
            case .chance(let p): "chance \(p)"
            case .after(let n): "after \(n)"
            }
        }
    }

    /// What is known about one point.
    public struct Point: Sendable, Equatable {
        /// The point's name, e.g. `printer.media-empty`, as ``Node/fault(_:)`` checks it and scenarios switch it.
        public let name: String
        /// How the point behaves at its next check; a `.times` mode counts down as it fires and ends `.off`.
        public var mode: Mode
        /// How many times the point has been checked (``FaultPoints/fires(_:)``), whether it fired or not.
        public var checks: Int
        /// How many of those checks fired the fault.
        public var fired: Int
    }

    private let points = Mutex<[String: Point]>([:])
    private let random: RandomStream

    /// No points known yet; each is declared, off, by its first check or `declare`.
    ///
    /// - parameter random: the stream `chance` draws from.
    public init(random: RandomStream) {
        self.random = random
    }

    /// Makes a point known (so `fault` directives can name it) without changing its mode.
    public func declare(_ name: String) {
        points.withLock { all in
            if all[name] == nil { all[name] = Point(name: name, mode: .off, checks: 0, fired: 0) }
        }
    }

    /// Switches a point.
    public func set(_ name: String, _ mode: Mode) {
        points.withLock { all in
            var point = all[name] ?? Point(name: name, mode: .off, checks: 0, fired: 0)
            point.mode = mode
            all[name] = point
        }
    }

    /// Checks a point: whether the fault happens now.
    public func fires(_ name: String) -> Bool {
        // Draw outside the lock only when needed, but always in check order, so runs stay reproducible.
        let mode = points.withLock { all -> Mode in
            var point = all[name] ?? Point(name: name, mode: .off, checks: 0, fired: 0)
            point.checks += 1
            all[name] = point
            return point.mode
        }
        let fired: Bool
        switch mode {
        case .off: fired = false
        case .on: fired = true
        case .times(let n): fired = n > 0
        case .chance(let p): fired = random.unit() < p
        case .after(let n):
            fired = points.withLock { $0[name]!.checks > n }
        }
        points.withLock { all in
            guard var point = all[name] else { return }
            if fired {
                point.fired += 1
                if case .times(let n) = point.mode { point.mode = n > 1 ? .times(n - 1) : .off }
            }
            all[name] = point
        }
        return fired
    }

    /// Every known point, by name.
    public var all: [Point] {
        points.withLock { Array($0.values) }.sorted { $0.name < $1.name }
    }

    /// One point, if known.
    public func point(_ name: String) -> Point? {
        points.withLock { $0[name] }
    }
}
