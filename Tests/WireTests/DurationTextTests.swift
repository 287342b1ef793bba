import Testing
import Wire

/// `Duration.workbenchText` is what traces, reports and the console print; `nanosecondsValue` is what the kernel
/// schedules with. Both must be exact.
@Suite struct DurationTextTests {
    @Test(arguments: [
        (Duration.zero, "0s"),
        (.nanoseconds(999), "999ns"),
        (.nanoseconds(1_500), "1.5µs"),
        (.microseconds(12), "12µs"),
        (.milliseconds(250), "250ms"),
        (.nanoseconds(1_000_001), "1.000001ms"),
        (.milliseconds(1_500), "1.5s"),
        (.seconds(1), "1s"),
        (.seconds(59), "59s"),
        (.seconds(60), "1m"),
        (.seconds(120), "2m"),
        (.milliseconds(90_250), "1m30.25s"),
        (.seconds(3_600), "1h"),
        (.seconds(5_400), "1h30m"),
        (.seconds(3_723), "1h2m3s"),
        (.milliseconds(3_600_500), "1h0m0.5s"),
        (.milliseconds(-250), "-250ms"),
        (.seconds(-90), "-1m30s"),
    ])
    func compactText(duration: Duration, text: String) {
        #expect(duration.workbenchText == text)
    }

    @Test func wholeNanoseconds() {
        #expect(Duration.zero.nanosecondsValue == 0)
        #expect((Duration.seconds(2) + .nanoseconds(5)).nanosecondsValue == 2_000_000_005)
        #expect(Duration.milliseconds(-3).nanosecondsValue == -3_000_000)
        #expect((Duration.seconds(-1) - .nanoseconds(1)).nanosecondsValue == -1_000_000_001)
        #expect(Duration.seconds(86_400 * 365).nanosecondsValue == 31_536_000_000_000_000)
        // Below a nanosecond is dropped, not rounded.
        #expect(Duration(secondsComponent: 0, attosecondsComponent: 999_999_999).nanosecondsValue == 0)
    }
}
