import LineEditor
import Testing

@Suite struct CompletionTests {
    @Test func wordsCompletesTheWordBeforeTheCursor() {
        let completion = Completion.words(["run", "rerun", "help", "run"], line: "help ru", cursor: 7)
        #expect(completion == Completion(start: 5, candidates: ["run"]))
        let middle = Completion.words(["run", "rerun"], line: "r x", cursor: 1)
        #expect(middle == Completion(start: 0, candidates: ["rerun", "run"]))
        let empty = Completion.words(["b", "a"], line: "", cursor: 0)
        #expect(empty.candidates == ["a", "b"])
    }

    @Test func commonPrefixComparesCharacters() {
        #expect(Completion.commonPrefix(of: ["hello", "help"]) == "hel")
        #expect(Completion.commonPrefix(of: ["café", "cafe"]) == "caf")
        #expect(Completion.commonPrefix(of: ["x"]) == "x")
        #expect(Completion.commonPrefix(of: []) == "")
    }

    @Test func layoutFillsColumnsTopToBottom() {
        let lines = CompletionLayout.lines(for: ["a", "bb", "ccc", "d", "e"], width: 15)
        // Column width is the widest candidate plus two: 5, so three columns fit in 15.
        #expect(lines == ["a    ccc  e", "bb   d"])
    }

    @Test func layoutOnANarrowTerminalUsesOneColumn() {
        let lines = CompletionLayout.lines(for: ["alpha", "beta"], width: 4)
        #expect(lines == ["alpha", "beta"])
        #expect(CompletionLayout.lines(for: [], width: 80) == [])
    }
}
