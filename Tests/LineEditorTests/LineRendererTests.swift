import Testing

@testable import LineEditor

@Suite struct LineRendererTests {
    private let clear = "\u{1B}[0K"

    @Test func shortLinePutsTheCursorAfterPromptAndText() {
        var renderer = LineRenderer()
        let output = renderer.render(prompt: "> ", buffer: LineBuffer("hello", cursor: 2), columns: 80)
        #expect(output == "\r> hello\(clear)\r\u{1B}[4C")
    }

    @Test func promptColoursTakeNoColumns() {
        var renderer = LineRenderer()
        let prompt = "\u{1B}[1;32mwb\u{1B}[0m> "
        let output = renderer.render(prompt: prompt, buffer: LineBuffer("x"), columns: 80)
        #expect(output == "\r\(prompt)x\(clear)\r\u{1B}[5C")
    }

    @Test func wideCharactersCountTwoColumns() {
        var renderer = LineRenderer()
        let output = renderer.render(prompt: "", buffer: LineBuffer("日本a"), columns: 80)
        #expect(output == "\r日本a\(clear)\r\u{1B}[5C")
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("😀") == 2)
    }

    @Test func longLineScrollsToKeepTheCursorVisible() {
        var renderer = LineRenderer()
        let text = String(repeating: "abcdefghij", count: 3)  // 30 characters
        // 20 columns: prompt 2, last column kept free, so 17 for text.
        let atEnd = renderer.render(prompt: "> ", buffer: LineBuffer(text), columns: 20)
        #expect(atEnd == "\r> " + String(text.suffix(16)) + clear + "\r\u{1B}[18C")
        #expect(renderer.scroll == 14)
        // Moving left inside the window does not scroll.
        let inside = renderer.render(prompt: "> ", buffer: LineBuffer(text, cursor: 20), columns: 20)
        #expect(inside.hasPrefix("\r> " + String(text.suffix(16))))
        // Moving before the window scrolls back to the cursor.
        let home = renderer.render(prompt: "> ", buffer: LineBuffer(text, cursor: 0), columns: 20)
        #expect(home == "\r> " + String(text.prefix(17)) + clear + "\r\u{1B}[2C")
    }

    @Test func controlCharactersAreShownInCaretNotation() {
        var renderer = LineRenderer()
        let output = renderer.render(prompt: "", buffer: LineBuffer("a\nb"), columns: 80)
        #expect(output == "\ra^Jb\(clear)\r\u{1B}[4C")
    }

    @Test func finalRenderShowsTheWholeLine() {
        let renderer = LineRenderer()
        let text = String(repeating: "x", count: 100)
        #expect(
            renderer.renderFinal(prompt: "> ", buffer: LineBuffer(text, cursor: 3), suffix: "^C")
                == "\r> \(text)^C\(clear)\r\n")
    }
}
