/// Parses the durations scenarios use: `250ms`, `1.5s`, `2m`, `1h30m`, `+30s`, `-2m`, `12us`, `12µs`, `10ns`.
public enum DurationParser {
    /// The longest duration a scenario may name: ten years. Virtual time is kept in signed 64-bit nanoseconds
    /// (about 292 years), so bounding every duration keeps sums of a few of them far from overflow.
    public static let limit: Duration = .seconds(10 * 365 * 86_400)
    public static let limitText = "87600h, ten years"

    /// The duration, or nil when the text is not one or is longer than ``limit``.
    public static func parse(_ text: String) -> Duration? {
        var rest = Substring(text)
        var sign: Int64 = 1
        if rest.hasPrefix("-") {
            sign = -1
            rest = rest.dropFirst()
        } else if rest.hasPrefix("+") {
            rest = rest.dropFirst()
        }
        guard !rest.isEmpty else { return nil }
        var total: Double = 0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count)
            let scale: Double
            switch unit {
            case "h": scale = 3_600e9
            case "m": scale = 60e9
            case "s": scale = 1e9
            case "ms": scale = 1e6
            case "us", "µs": scale = 1e3
            case "ns": scale = 1
            default: return nil
            }
            total += value * scale
            // Checked per term, so a huge number never reaches the integer conversion below.
            guard total.isFinite, total <= Double(limit.nanosecondsValue) else { return nil }
        }
        return .nanoseconds(sign * Int64(total.rounded()))
    }
}

/// Parses data rates: `56kbit/s`, `10Mbit/s`, `1MB/s`, `500kB/s`, `100B/s` → bytes per second.
public enum RateParser {
    /// Rates a link may have: 1 B/s to 100 GB/s.
    public static let range = 1...100_000_000_000
    public static let rangeText = "1B/s to 100GB/s"

    /// Bytes per second, or nil when the text is not a rate in ``range``.
    public static func parse(_ text: String) -> Int? {
        guard text.hasSuffix("/s") else { return nil }
        let body = text.dropLast(2)
        let number = body.prefix { $0.isNumber || $0 == "." }
        guard let value = Double(number) else { return nil }
        let scale: Double
        switch body.dropFirst(number.count) {
        case "B": scale = 1
        case "kB", "KB": scale = 1e3
        case "MB": scale = 1e6
        case "GB": scale = 1e9
        case "bit": scale = 1.0 / 8
        case "kbit": scale = 1e3 / 8
        case "Mbit": scale = 1e6 / 8
        case "Gbit": scale = 1e9 / 8
        default: return nil
        }
        let rate = (value * scale).rounded()
        guard rate.isFinite, rate >= Double(range.lowerBound), rate <= Double(range.upperBound) else { return nil }
        return Int(rate)
    }
}
