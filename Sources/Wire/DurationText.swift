extension Duration {
    /// Compact human text: `0s`, `250ms`, `1.5s`, `2m`, `1h30m`, `12µs`.
    public var workbenchText: String {
        let (seconds, attoseconds) = components
        let totalNanos = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        if totalNanos == 0 { return "0s" }
        let sign = totalNanos < 0 ? "-" : ""
        let n = abs(totalNanos)
        if n % 1_000_000_000 == 0 {
            var s = n / 1_000_000_000
            var text = ""
            if s >= 3600 {
                text += "\(s / 3600)h"
                s %= 3600
            }
            if s >= 60 {
                text += "\(s / 60)m"
                s %= 60
            }
            if s > 0 { text += "\(s)s" }
            return sign + text
        }
        func decimal(_ value: Int64, _ unit: Int64, _ suffix: String) -> String {
            let whole = value / unit
            let fraction = value % unit
            if fraction == 0 { return "\(whole)\(suffix)" }
            var digits = String(fraction)
            digits = String(repeating: "0", count: String(unit).count - 1 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            return "\(whole).\(digits)\(suffix)"
        }
        if n >= 60_000_000_000 {
            let minutes = n / 60_000_000_000
            let prefix = minutes >= 60 ? "\(minutes / 60)h\(minutes % 60)m" : "\(minutes)m"
            return sign + prefix + decimal(n % 60_000_000_000, 1_000_000_000, "s")
        }
        if n >= 1_000_000_000 { return sign + decimal(n, 1_000_000_000, "s") }
        if n >= 1_000_000 { return sign + decimal(n, 1_000_000, "ms") }
        if n >= 1_000 { return sign + decimal(n, 1_000, "µs") }
        return sign + "\(n)ns"
    }

    /// Whole nanoseconds, saturating at `Int64.min`/`Int64.max` (about ±292 years) instead of trapping.
    public var nanosecondsValue: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflowAgain else { return seconds < 0 ? .min : .max }
        return total
    }
}
