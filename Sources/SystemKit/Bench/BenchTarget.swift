import ArgumentParser
import JSONEscaping

/// A figure a bench holds to a goal ("sign ≥ 0.97× openssl speed"), and whether this run reached it.
///
/// The figure is rounded once, here, and judged in that rounded form: the text, the JSON and the verdict all show
/// the same number, so a reader never sees "0.97×, target ≥ 0.97: NOT met" (a 0.9696 judged unrounded).
package struct BenchTarget: Equatable {
    package enum Comparison: String, Equatable {
        case atLeast = "≥"
        case below = "<"
        case atMost = "≤"
    }

    package let name: String
    /// The measured figure, rounded by ``BenchTarget/rounded(_:)``.
    package let figure: Double
    package let comparison: Comparison
    package let goal: Double
    /// What follows a figure or goal in the text: "×" for a ratio, " MiB", or nothing.
    package let unit: String

    package init(_ name: String, measured: Double, _ comparison: Comparison, _ goal: Double, unit: String = "×") {
        self.name = name
        figure = Self.rounded(measured)
        self.comparison = comparison
        self.goal = goal
        self.unit = unit
    }

    /// A figure that is not a number (a peer measured at zero, so an infinite ratio) never meets a target: it is
    /// a broken measurement, not a fast one.
    package var met: Bool {
        guard figure.isFinite else { return false }
        switch comparison {
        case .atLeast: return figure >= goal
        case .below: return figure < goal
        case .atMost: return figure <= goal
        }
    }

    /// Hundredths: the precision every target is stated in.
    package static func rounded(_ value: Double) -> Double {
        value.isFinite ? (value * 100).rounded() / 100 : value
    }

    /// A rounded figure as both text and JSON write it: at most two decimals, no trailing zeros ("0.97", "10",
    /// "51.5"); a figure that is not finite is "null" (so the JSON stays JSON).
    package static func text(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        var digits = String(format: "%.2f", rounded(value))
        while digits.hasSuffix("0") { digits.removeLast() }
        if digits.hasSuffix(".") { digits.removeLast() }
        return digits == "-0" ? "0" : digits
    }

    /// One line of a bench's text: "met     NAME: 0.97× (target ≥ 0.97×)".
    package var textLine: String {
        "\(met ? "met    " : "MISSED ") \(name): \(Self.text(figure))\(unit) (target \(comparison.rawValue) \(Self.text(goal))\(unit))"
    }

    /// One element of a bench's JSON `targets` array.
    package var json: String {
        "{\"target\":\(JSONString.quoted(name)),\"figure\":\(Self.text(figure)),\"comparison\":\(JSONString.quoted(comparison.rawValue))"
            + ",\"goal\":\(Self.text(goal)),\"met\":\(met)}"
    }

    /// The `targets` array of a bench's JSON.
    package static func jsonArray(_ targets: [BenchTarget]) -> String {
        "[" + targets.map(\.json).joined(separator: ",") + "]"
    }
}

/// What `--check` makes of a bench's targets: a pure function of the targets, so it is tested without a bench.
package struct BenchVerdict: Equatable {
    /// The line `--check` prints (to standard error, so `--json` output stays one object); nil without `--check`.
    package let summary: String?
    package let exitCode: Int32

    package init(summary: String?, exitCode: Int32) {
        self.summary = summary
        self.exitCode = exitCode
    }
}

extension BenchVerdict {
    package init(_ targets: [BenchTarget], checking: Bool) {
        // Without --check a bench is a measurement: its figures are the result, whatever they are.
        guard checking else {
            self.init(summary: nil, exitCode: 0)
            return
        }
        let missed = targets.filter { !$0.met }
        if targets.isEmpty {
            self.init(summary: "check: no targets were checked (this run measured none)", exitCode: 0)
        } else if missed.isEmpty {
            self.init(summary: "check: \(targets.count) of \(targets.count) targets met", exitCode: 0)
        } else {
            self.init(
                summary: "check: \(missed.count) of \(targets.count) targets missed: "
                    + missed.map { "\($0.name) \(BenchTarget.text($0.figure))\($0.unit)" }.joined(separator: "; "),
                exitCode: 1)
        }
    }
}

/// `--check`, declared once for every bench.
package struct BenchCheckOption: ParsableArguments {
    @Flag(help: "Exit 1 when a target is missed, after printing every figure. Without it a bench is a measurement and exits 0 whatever the figures.")
    package var check = false

    package init() {}

    /// Said under the figures, on standard error, by every bench of a debug build: without the optimiser its figures
    /// are several times slower than a release build's, and a newcomer's `swift run workbench bench ipp` would read
    /// them as ours.
    package static let debugBuildNote =
        "note: a debug build: its figures are not a release build's; for figures to compare, build with "
        + "swift build -c release --product workbench"

    /// Ends a bench: under `--check`, says what was checked and exits 1 when a target was missed.
    package func finish(_ targets: [BenchTarget]) throws {
        #if DEBUG
            printError(Self.debugBuildNote)
        #endif
        let verdict = BenchVerdict(targets, checking: check)
        if let summary = verdict.summary { printError(summary) }
        if verdict.exitCode != 0 { throw ExitStatus.checkFailed }
    }
}
