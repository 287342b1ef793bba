// How the benches state their figures: rates in seconds, `--json` objects.

extension Duration {
    /// The duration in seconds, for rates.
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// One JSON object of whole-number figures, as the benches print with `--json`.
package func jsonObject(_ figures: [(String, Double)]) -> String {
    "{" + figures.map { "\"\($0.0)\":\(Int($0.1.rounded()))" }.joined(separator: ",") + "}"
}
