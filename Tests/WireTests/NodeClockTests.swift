import Synchronization
import Testing
import Wire

/// A time source the test moves by hand.
final class ManualTime: TimeSource {
    private let state = Mutex<(uptime: Duration, sleeps: [Duration])>((.zero, []))
    let epoch: Duration

    init(epoch: Duration) { self.epoch = epoch }

    var uptime: Duration { state.withLock { $0.uptime } }
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func move(to uptime: Duration) { state.withLock { $0.uptime = uptime } }

    func sleep(untilUptime deadline: Duration) async throws {
        state.withLock {
            $0.sleeps.append(deadline)
            $0.uptime = max($0.uptime, deadline)
        }
    }
}

/// A node's clock: monotonic uptime from its wiring, calendar time from the epoch plus the node's own skew.
@Suite struct NodeClockTests {
    static let epoch = Duration.seconds(1_767_225_600)  // 2026-01-01T00:00:00Z

    @Test func monotonicTimeIsTheSourcesUptime() {
        let time = ManualTime(epoch: Self.epoch)
        let clock = NodeClock(source: time)
        #expect(clock.now.uptime == .zero)
        time.move(to: .milliseconds(1_500))
        #expect(clock.now == NodeClock.Instant(uptime: .milliseconds(1_500)))
        #expect(clock.minimumResolution == .nanoseconds(1))
    }

    @Test func calendarTimeIsEpochPlusUptimePlusSkew() {
        let time = ManualTime(epoch: Self.epoch)
        let skew = ClockSkew(.seconds(-30))
        let clock = NodeClock(source: time, skew: skew)
        time.move(to: .milliseconds(90_700))
        #expect(clock.unixTime == Self.epoch + .milliseconds(90_700) - .seconds(30))
        #expect(clock.unixSeconds == 1_767_225_600 + 90 - 30)
        #expect(clock.skew == .seconds(-30))
    }

    @Test func skewIsSharedByEveryClockOfTheNodeAndChangesAtOnce() {
        let time = ManualTime(epoch: Self.epoch)
        let skew = ClockSkew()
        let app = NodeClock(source: time, skew: skew)
        let library = NodeClock(source: time, skew: skew)
        let other = NodeClock(source: time)
        skew.set(.seconds(3_600))
        #expect(app.unixSeconds == 1_767_229_200)
        #expect(library.unixSeconds == 1_767_229_200)
        #expect(other.unixSeconds == 1_767_225_600, "another node's clock is not skewed")
        skew.value = .zero
        #expect(app.unixSeconds == 1_767_225_600)
    }

    @Test func instantsCompareAndMeasure() {
        let a = NodeClock.Instant(uptime: .seconds(1))
        let b = a.advanced(by: .milliseconds(250))
        #expect(b.uptime == .milliseconds(1_250))
        #expect(a < b && !(b < a))
        #expect(a.duration(to: b) == .milliseconds(250))
        #expect(b.duration(to: a) == .milliseconds(-250))
    }

    @Test func sleepingAsksTheSourceForTheDeadlinesUptime() async throws {
        let time = ManualTime(epoch: Self.epoch)
        let clock = NodeClock(source: time)
        time.move(to: .seconds(2))
        try await clock.sleep(for: .milliseconds(500))
        try await clock.sleep(until: NodeClock.Instant(uptime: .seconds(10)), tolerance: nil)
        #expect(time.sleeps == [.milliseconds(2_500), .seconds(10)])
        #expect(clock.now.uptime == .seconds(10))
    }
}
