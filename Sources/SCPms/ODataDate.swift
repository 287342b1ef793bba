import CivilDate

/// The OData v2 JSON date format SCPms uses for `CreatedAt`: `/Date(<milliseconds since the Unix epoch>)/`.
public enum ODataDate {
    /// `/Date(1767225600000)/`.
    public static func format(milliseconds: Int64) -> String { "/Date(\(milliseconds))/" }

    /// The milliseconds in `/Date(ms)/` (an optional `+hhmm`/`-hhmm` offset is accepted and ignored, as
    /// OData v2 readers do); `nil` for anything else.
    public static func parse(_ text: String) -> Int64? {
        guard text.hasPrefix("/Date("), text.hasSuffix(")/") else { return nil }
        var inner = text.dropFirst("/Date(".count).dropLast(")/".count)
        if let offset = inner.dropFirst().firstIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = inner[inner.index(after: offset)...]
            guard zone.count == 4, zone.allSatisfy(\.isASCIIDigit) else { return nil }
            inner = inner[..<offset]
        }
        let digits = inner.hasPrefix("-") ? inner.dropFirst() : inner
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int64(inner)
    }

    /// `2026-01-01T00:00:00.000Z` — the calendar form used for ETags (proleptic Gregorian, UTC).
    public static func iso8601(milliseconds: Int64) -> String {
        let (days, msOfDay) = milliseconds.floorDivided(by: 86_400_000)
        let date = CivilDate(daysSinceEpoch: days)
        let (year, month, day) = (date.year, Int64(date.month), Int64(date.day))
        let seconds = msOfDay / 1000
        return
            "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(msOfDay % 1000, 3))Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> (Int64, Int64) {
        let remainder = self % divisor
        return remainder < 0 ? (self / divisor - 1, remainder + divisor) : (self / divisor, remainder)
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
