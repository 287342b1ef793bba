import CivilDate
import Testing

/// The one calendar of the pure cores: days since 1970 to a UTC date, as `date -u` gives it.
@Suite struct CivilDateTests {
    @Test func knownDays() {
        #expect(CivilDate(daysSinceEpoch: 0) == CivilDate.split(unixSeconds: 0).date)
        let epoch = CivilDate(daysSinceEpoch: 0)
        #expect((epoch.year, epoch.month, epoch.day) == (1970, 1, 1))
        let leap = CivilDate(daysSinceEpoch: 11_016)  // 2000-02-29
        #expect((leap.year, leap.month, leap.day) == (2000, 2, 29))
        let before = CivilDate(daysSinceEpoch: -1)
        #expect((before.year, before.month, before.day) == (1969, 12, 31))
    }

    @Test func secondsSplitAtMidnightUTCBeforeTheEpochToo() {
        let (date, seconds) = CivilDate.split(unixSeconds: 1_767_225_600 + 3_661)  // 2026-01-01 01:01:01
        #expect((date.year, date.month, date.day, seconds) == (2026, 1, 1, 3_661))
        let (earlier, rest) = CivilDate.split(unixSeconds: -1)
        #expect((earlier.year, earlier.month, earlier.day, rest) == (1969, 12, 31, 86_399))
    }
}
