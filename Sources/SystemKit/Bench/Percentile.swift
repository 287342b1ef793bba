/// The one definition of a percentile every bench reports (p50, p99): nearest rank, the smallest value with at least
/// that fraction of the values at or below it. No interpolation: a reported p99 is a latency that was measured.
package enum Percentile {
    /// The `fraction` (0…1) percentile of `sorted` (ascending); nil when there are no values.
    package static func nearestRank(_ sorted: [Double], _ fraction: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }
}
