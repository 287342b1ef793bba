import NIOCore
import Synchronization

/// Where a wiring's time comes from: the kernel's virtual clock, or the machine's clocks.
public protocol TimeSource: Sendable {
    /// Monotonic time since the wiring started.
    var uptime: Duration { get }
    /// Calendar time (since the Unix epoch) at uptime zero.
    var epoch: Duration { get }
    /// Suspends the calling task until `uptime` reaches `deadline`.
    func sleep(untilUptime deadline: Duration) async throws
    /// Runs `body` on `loop` after `delay` of this time (``NodeTimer``); by default the loop's own scheduled task.
    func schedule(on loop: any EventLoop, in delay: TimeAmount, _ body: @escaping @Sendable () -> Void) -> NodeTimer
}

/// A node's clock: monotonic time for timeouts and measurements, calendar time for timestamps
/// (JWT claims, job times). Calendar time includes the node's skew, which scenarios can change
/// to model phones, hosts and servers that disagree about the time.
public struct NodeClock: Clock, Sendable {
    /// A point of the wiring's monotonic time, kept as uptime: the node's calendar skew does not move it.
    public struct Instant: InstantProtocol, Sendable {
        /// Monotonic time since the wiring started.
        public let uptime: Duration
        /// The instant `uptime` after the wiring started.
        public init(uptime: Duration) { self.uptime = uptime }
        /// The instant `duration` later (earlier when it is negative).
        public func advanced(by duration: Duration) -> Instant { Instant(uptime: uptime + duration) }
        /// How long from this instant to `other`; negative when `other` is earlier.
        public func duration(to other: Instant) -> Duration { other.uptime - uptime }
        /// Whether `lhs` comes before `rhs` in monotonic time.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.uptime < rhs.uptime }
    }

    let source: any TimeSource
    let skewBox: ClockSkew

    /// A clock on `source`'s time whose calendar is off by `skew`, a box shared with whatever changes it (a scenario's
    /// `clock NODE skew`).
    public init(source: any TimeSource, skew: ClockSkew = ClockSkew()) {
        self.source = source
        self.skewBox = skew
    }

    /// The current instant: the wiring's uptime, virtual under simulation.
    public var now: Instant { Instant(uptime: source.uptime) }
    /// One nanosecond: instants are kept to the nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Suspends until `deadline` (virtual time under simulation); `tolerance` is ignored. Throws `CancellationError`
    /// when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await source.sleep(untilUptime: deadline.uptime)
    }

    /// How far this node's calendar is off from true time.
    public var skew: Duration { skewBox.value }

    /// Calendar time since the Unix epoch, as this node believes it to be.
    public var unixTime: Duration { source.epoch + source.uptime + skewBox.value }

    /// Whole seconds since the Unix epoch (what JWT `nbf`/`exp` and IPP `time-at-*` carry).
    public var unixSeconds: Int64 { unixTime.components.seconds }
}

/// A mutable clock offset shared by everything that reads one node's clock.
public final class ClockSkew: Sendable {
    private let storage = Mutex<Duration>(.zero)
    /// A skew of `initial`; none by default.
    public init(_ initial: Duration = .zero) { storage.withLock { $0 = initial } }
    /// How far the node's calendar time is off (positive: ahead); its monotonic time is not affected.
    public var value: Duration {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
    /// Sets the offset to `value`; every clock sharing this skew reads it at once.
    public func set(_ value: Duration) { storage.withLock { $0 = value } }
}
