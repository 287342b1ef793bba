extension TimelineReport.Check {
    /// An expectation that held, and held by seeing the failure it asked for (a 401, an `error` outcome).
    var heldAnExpectedFailure: Bool { kind == .expectation && failure == nil && Self.expectsFailure(text) }

    /// Whether the expectation asks for a failure, so that when it holds the page draws the failure it saw as the
    /// expected outcome, not in the red of a broken run.
    ///
    /// The rule, on the expectation's text: the value it compares against (right of `==`, any of the outcomes
    /// after `in`, the text after `contains`) or the event of `expect trace` names a failure: an HTTP status
    /// 400–599, a negative error code (AppConnect's −1000…), or a word such as error, failed, refused, denied,
    /// unauthorized, expired, invalid, unavailable, timed out. `!=`, `no trace` and `elapsed` never do: they say
    /// what must not happen, not which failure must.
    static func expectsFailure(_ text: String) -> Bool {
        let words = text.split(separator: " ").map(String.init)
        guard words.first == "expect", words.count >= 3, words[1] != "no", words[1] != "elapsed" else { return false }
        if words[1] == "trace" { return Self.namesFailure(words[2]) }
        guard let op = words.firstIndex(where: { ["==", "in", "contains"].contains($0) }), op > 1 else { return false }
        let expected = words[(op + 1)...]
        // `contains` takes one value, which may be a quoted phrase ("timed out"); the others take one word each.
        if words[op] == "contains" { return Self.namesFailure(expected.joined(separator: " ")) }
        return expected.contains(where: Self.namesFailure)
    }

    /// A value or event name that reads as a failure (see ``expectsFailure(_:)``).
    static func namesFailure(_ value: String) -> Bool {
        var bare = Substring(value.lowercased())
        if bare.first == "\"" { bare = bare.dropFirst() }
        if bare.last == "\"" { bare = bare.dropLast() }
        if bare.count == 3, let status = Int(bare), (400...599).contains(status) { return true }
        if bare.hasPrefix("-"), Int(bare) != nil { return true }
        return failureWords.contains { bare.contains($0) }
    }

    private static let failureWords = [
        "error", "fail", "refus", "reject", "denied", "unauthori", "forbidden", "expired", "invalid", "unavailable",
        "timed out", "timeout", "not-found", "no-service", "no-credential", "abort",
    ]
}
