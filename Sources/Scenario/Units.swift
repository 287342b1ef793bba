/// Parses the durations scenarios use: `250ms`, `1.5s`, `2m`, `1h30m`, `+30s`, `-2m`, `12us`, `12µs`, `10ns`.
public enum DurationParser {
    public static func parse(_ text: String) -> Duration? {
        var rest = Substring(text)
        var sign: Int64 = 1
        if rest.hasPrefix("-") { sign = -1; rest = rest.dropFirst() } else if rest.hasPrefix("+") { rest = rest.dropFirst() }
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
        }
        return .nanoseconds(sign * Int64(total.rounded()))
    }
}

/// Parses data rates: `56kbit/s`, `10Mbit/s`, `1MB/s`, `500kB/s`, `100B/s` → bytes per second.
public enum RateParser {
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
        let rate = Int((value * scale).rounded())
        return rate > 0 ? rate : nil
    }
}
