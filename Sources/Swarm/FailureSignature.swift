import Scenario

/// What makes two failures "the same" for shrinking: the same invariant, else the same expectation, else the same
/// step error. `key` includes the line (shrinking runs one file); `place` does not (the shrunk file has extra lines).
public struct FailureSignature: Equatable, Sendable {
    /// The failure as a person reads it.
    public let text: String
    private let key: String
    private let place: String

    /// The first failure of `result`; nil if it passed.
    public init?(_ result: ScenarioRunner.Result) {
        if let violation = result.violations.first {
            key = "invariant \(violation.invariant)"
            place = key
            text = "invariant \(violation.invariant) broken (\(violation.message))"
        } else if let expectation = result.failures.first {
            key = "expectation \(expectation.line) \(expectation.text)"
            place = "expectation \(expectation.text)"
            text = "line \(expectation.line): \(expectation.text) (\(expectation.failure ?? ""))"
        } else if let error = result.error {
            // "FILE:LINE: directive: what happened": the part after the location says which step failed and how.
            let parts = error.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            key = "error \(error)"
            place = "error " + (parts.count == 3 ? String(parts[2]) : error)
            text = error
        } else {
            return nil
        }
    }

    public static func == (a: FailureSignature, b: FailureSignature) -> Bool { a.key == b.key }

    /// The same failure wherever its line now is.
    public func sameFailure(as other: FailureSignature) -> Bool { place == other.place }

    /// What ``sameFailure(as:)`` compares, as text: the failure without its line (a corpus files seeds under it).
    public var identity: String { place }
}
