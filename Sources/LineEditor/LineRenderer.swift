/// Produces the bytes that redraw the prompt line.
///
/// The line never wraps: when prompt and text are wider than the terminal, the text scrolls
/// horizontally to keep the cursor visible. Wrapped redraws need exact knowledge of how the
/// terminal wraps wide characters at the margin; a single row cannot get out of step with it.
/// The last column stays empty so the terminal's deferred-wrap state never comes into play.
struct LineRenderer: Sendable {
    /// Index of the first visible character; kept between redraws so the view does not jump.
    private(set) var scroll = 0

    /// Bytes that redraw `prompt` and the visible part of `buffer` on the current row and put the
    /// cursor in place.
    mutating func render(prompt: String, buffer: LineBuffer, columns: Int) -> String {
        let characters = buffer.contents
        let widths = characters.map(DisplayWidth.of)
        let cursor = buffer.cursor
        var promptWidth = DisplayWidth.of(prompt)
        var available = columns - 1 - promptWidth
        var showPrompt = true
        if available < 4 {
            // A prompt that fills the terminal would push the text onto the next row; drop it.
            showPrompt = false
            promptWidth = 0
            available = max(columns - 1, 1)
        }

        scroll = min(scroll, cursor)
        func span(_ range: Range<Int>) -> Int { widths[range].reduce(0, +) }
        let cursorCell = cursor < widths.count ? max(widths[cursor], 1) : 1
        while scroll < cursor, span(scroll..<cursor) + cursorCell > available { scroll += 1 }
        // After deletions, scroll back while everything from one character earlier still fits.
        while scroll > 0, span((scroll - 1)..<characters.count) + 1 <= available { scroll -= 1 }

        var visible = ""
        var used = 0
        var index = scroll
        while index < characters.count, used + widths[index] <= available {
            visible += DisplayWidth.rendered(characters[index])
            used += widths[index]
            index += 1
        }

        let column = promptWidth + span(scroll..<cursor)
        var output = "\r"
        if showPrompt { output += prompt }
        output += visible + "\u{1B}[0K\r"
        if column > 0 { output += "\u{1B}[\(column)C" }
        return output
    }

    /// Bytes that show the whole accepted line (letting the terminal wrap it, so scrollback holds
    /// all of it), then `suffix` (`^C`), and move to the start of the next row.
    func renderFinal(prompt: String, buffer: LineBuffer, suffix: String = "") -> String {
        "\r" + prompt + buffer.contents.map(DisplayWidth.rendered).joined() + suffix + "\u{1B}[0K\r\n"
    }
}
