import LineEditor
import Testing

@Suite struct EditorCoreTests {
    private func type(_ core: inout EditorCore, _ keys: Key...) -> [EditorAction] {
        keys.map { core.handle($0) }
    }

    @Test func editingAndAccepting() {
        var core = EditorCore(history: [])
        _ = type(&core, .text("hllo"), .home, .right, .text("e"), .end)
        #expect(core.buffer.text == "hello")
        let result1 = core.handle(.enter)
        #expect(result1 == .accept("hello"))
    }

    @Test func controlKeysEdit() {
        var core = EditorCore(history: [])
        _ = type(&core, .text("run scenario fast"), .control("w"))
        #expect(core.buffer.text == "run scenario ")
        _ = type(&core, .control("a"), .control("f"), .control("f"), .control("f"), .control("k"))
        #expect(core.buffer.text == "run")
        _ = type(&core, .control("y"))
        #expect(core.buffer.text == "run scenario ")
        _ = type(&core, .control("b"), .control("u"))
        #expect(core.buffer.text == " ")
        let result2 = core.handle(.control("l"))
        #expect(result2 == .clearScreen)
        let result3 = core.handle(.control("c"))
        #expect(result3 == .interrupt)
    }

    @Test func controlDDeletesOrEndsInput() {
        var core = EditorCore(history: [])
        let result4 = core.handle(.control("d"))
        #expect(result4 == .endOfFile)
        _ = type(&core, .text("ab"), .home)
        let result5 = core.handle(.control("d"))
        #expect(result5 == .redraw)
        #expect(core.buffer.text == "b")
        _ = type(&core, .end)
        let result6 = core.handle(.control("d"))
        #expect(result6 == EditorAction.none)
        let result7 = core.handle(.delete)
        #expect(result7 == EditorAction.none)
    }

    @Test func historyNavigationKeepsTheDraft() {
        var core = EditorCore(history: ["first", "second"])
        _ = type(&core, .text("dra"))
        _ = type(&core, .up)
        #expect(core.buffer.text == "second")
        _ = type(&core, .control("p"))
        #expect(core.buffer.text == "first")
        let olderThanOldest = core.handle(.up)
        #expect(olderThanOldest == EditorAction.none)
        _ = type(&core, .down, .control("n"))
        #expect(core.buffer.text == "dra")
        #expect(core.buffer.cursor == 3)
        let result8 = core.handle(.down)
        #expect(result8 == EditorAction.none)
    }

    @Test func editingARecalledLine() {
        var core = EditorCore(history: ["run one", "run two"])
        _ = type(&core, .up, .backspace, .backspace, .backspace, .text("six"))
        #expect(core.buffer.text == "run six")
        // The edit survives moving away and back within this line...
        _ = type(&core, .up, .down)
        #expect(core.buffer.text == "run six")
        _ = type(&core, .down)
        #expect(core.buffer.text == "")
        _ = type(&core, .up)
        let result9 = core.handle(.enter)
        #expect(result9 == .accept("run six"))
        // ...but the next line starts from the real history again.
        let history = History()
        history.add("run one")
        history.add("run two")
        history.add("run six")
        var next = EditorCore(history: history.entries)
        _ = type(&next, .up, .up)
        #expect(next.buffer.text == "run two")
    }

    @Test func reverseSearch() {
        var core = EditorCore(history: ["make build", "run alpha", "status", "run beta"])
        _ = type(&core, .text("x"), .control("r"))
        #expect(core.isSearching)
        #expect(core.prompt(base: "> ") == "(reverse-i-search)`': ")
        _ = type(&core, .text("run"))
        #expect(core.buffer.text == "run beta")
        _ = type(&core, .control("r"))
        #expect(core.buffer.text == "run alpha")
        let noOlderMatch = core.handle(.control("r"))
        #expect(noOlderMatch == .bell)
        #expect(core.prompt(base: "> ") == "(failed reverse-i-search)`run': ")
        _ = type(&core, .backspace, .backspace, .backspace, .text("ma"))
        #expect(core.buffer.text == "make build")
        #expect(core.buffer.cursor == 0)
        // Escape-like cancel restores the draft.
        _ = type(&core, .control("g"))
        #expect(!core.isSearching)
        #expect(core.buffer.text == "x")
    }

    @Test func reverseSearchThenEditOrAccept() {
        var core = EditorCore(history: ["run alpha", "status"])
        _ = type(&core, .control("r"), .text("alp"))
        _ = type(&core, .end)  // leaves the search on the match
        #expect(!core.isSearching)
        #expect(core.prompt(base: "> ") == "> ")
        _ = type(&core, .text("2"))
        #expect(core.buffer.text == "run alpha2")
        _ = type(&core, .down)
        #expect(core.buffer.text == "status")
        var again = EditorCore(history: ["run alpha", "status"])
        _ = type(&again, .control("r"), .text("stat"))
        let result10 = again.handle(.enter)
        #expect(result10 == .accept("status"))
    }

    private static let vocabulary = ["help", "hello", "history", "run", "scenarios/"]

    private func core(typing text: String) -> EditorCore {
        var core = EditorCore(history: []) { line, cursor in
            let completion = Completion.words(Self.vocabulary, line: line, cursor: cursor)
            let partial = completion.candidates.count == 1 && completion.candidates[0].hasSuffix("/")
            return Completion(start: completion.start, candidates: completion.candidates, appendsSpace: !partial)
        }
        _ = core.handle(.text(text))
        return core
    }

    @Test func completionOfASingleCandidateAddsASpace() {
        var core = core(typing: "ru")
        let result11 = core.handle(.tab)
        #expect(result11 == .redraw)
        #expect(core.buffer.text == "run ")
        var partial = self.core(typing: "run sc")
        _ = partial.handle(.tab)
        #expect(partial.buffer.text == "run scenarios/")
    }

    @Test func completionInTheMiddleOfTheLine() {
        var core = core(typing: "ru x")
        _ = type(&core, .left, .left)
        _ = type(&core, .tab)
        #expect(core.buffer.text == "run x")  // the following blank is reused
        #expect(core.buffer.cursor == 3)
    }

    @Test func completionInsertsCommonPrefixThenListsOnSecondTab() {
        var core = core(typing: "he")
        let result12 = core.handle(.tab)
        #expect(result12 == .redraw)
        #expect(core.buffer.text == "hel")
        let result13 = core.handle(.tab)
        #expect(result13 == .showCompletions(["hello", "help"]))
        #expect(core.buffer.text == "hel")
    }

    @Test func ambiguousCompletionWithoutProgressRingsThenLists() {
        var core = core(typing: "h")
        let result14 = core.handle(.tab)
        #expect(result14 == .bell)
        let result15 = core.handle(.tab)
        #expect(result15 == .showCompletions(["hello", "help", "history"]))
        // Any other key in between starts over.
        _ = core.handle(.left)
        _ = core.handle(.right)
        let result16 = core.handle(.tab)
        #expect(result16 == .bell)
        #expect(core.buffer.text == "h")
    }

    @Test func noCandidatesRingsTheBell() {
        var core = core(typing: "zz")
        let result17 = core.handle(.tab)
        #expect(result17 == .bell)
        #expect(core.buffer.text == "zz")
    }
}
