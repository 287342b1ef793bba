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

    /// The units people write that the language spells otherwise (`5min`, `2 secs`, `1hour`), by what it writes.
    static let unitSpellings: [String: String] = [
        "min": "m", "mins": "m", "minute": "m", "minutes": "m", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
        "hr": "h", "hrs": "h", "hour": "h", "hours": "h", "msec": "ms", "msecs": "ms", "millis": "ms", "millisecond": "ms",
        "milliseconds": "ms", "H": "h", "M": "m", "S": "s", "MS": "ms",
    ]

    /// `text` with each unit the language does not know but people write (`5min`) spelt as the language does (`5m`),
    /// when that makes a duration; nil otherwise.
    public static func suggestion(for text: String) -> String? {
        var rest = Substring(text)
        var out = ""
        var changed = false
        if let first = rest.first, first == "-" || first == "+" {
            out.append(first)
            rest = rest.dropFirst()
        }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = String(rest.prefix { $0.isLetter })
            rest = rest.dropFirst(unit.count)
            if let spelt = unitSpellings[unit] {
                out += number + spelt
                changed = true
            } else {
                out += number + unit
            }
        }
        return changed && parse(out) != nil ? out : nil
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
