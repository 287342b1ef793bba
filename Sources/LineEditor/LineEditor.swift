#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads console lines with editing, history and tab completion, like a small readline.
///
/// On a terminal it switches to raw mode for the duration of `readLine()`. When standard input is
/// not a terminal (`echo help | workbench`) it reads plain lines without prompting or echoing, so
/// scripted input works unchanged.
///
///     let history = History()
///     try? history.load(from: History.defaultPath())
///     let editor = LineEditor(prompt: "workbench> ", history: history) { line, cursor in
///         .words(["help", "run", "quit"], line: line, cursor: cursor)
///     }
///     while let line = editor.readLine() {
///         if line.isEmpty { continue }  // blank line, or Ctrl-C
///         handle(line)
///     }
///
/// Keys: arrows, Home/End, Delete and Backspace; Ctrl-A/E/B/F move; Ctrl-K/U/W kill, Ctrl-Y yanks;
/// Up/Down or Ctrl-P/N walk history; Ctrl-R searches it; Tab completes (twice lists candidates);
/// Ctrl-L clears the screen; Ctrl-C abandons the line; Ctrl-D on an empty line ends input;
/// Ctrl-Z suspends.
public final class LineEditor {
    /// Shown before the line; may contain ANSI colour sequences.
    public var prompt: String
    /// Accepted lines are added here (and appended to its file).
    public let history: History
    private let completer: @Sendable (_ line: String, _ cursor: Int) -> Completion
    /// Kept across calls: keys typed ahead or pasted after an Enter belong to the next line.
    private var decoder = KeyDecoder()
    private var pendingKeys: [Key] = []

    private let input: Int32 = 0
    private let output: Int32 = 1

    /// Creates an editor. `completer` gets the line and the cursor (in `Character`s) when Tab is
    /// pressed and returns the candidates for the text before the cursor.
    public init(
        prompt: String,
        history: History = History(),
        completer: @escaping @Sendable (_ line: String, _ cursor: Int) -> Completion = { _, _ in .none }
    ) {
        self.prompt = prompt
        self.history = history
        self.completer = completer
    }

    /// Reads one line. Returns nil at end of input (Ctrl-D on an empty line, or EOF on a pipe), and
    /// an empty string when the user abandons the line with Ctrl-C, so the caller simply prompts
    /// again. Non-empty lines typed on a terminal are added to `history`.
    public func readLine() -> String? {
        // Output the caller printed through stdio must appear before the prompt.
        fflush(nil)
        guard isatty(input) != 0 else { return readPiped() }
        let term = getenv("TERM").map { String(cString: $0) } ?? ""
        guard isatty(output) != 0, term != "dumb", Terminal.enableRawMode(input) else {
            return readCooked()
        }
        defer { Terminal.disableRawMode() }
        return edit()
    }

    private func edit() -> String? {
        var core = EditorCore(history: history.entries, completer: completer)
        var renderer = LineRenderer()
        func redraw() {
            let text = renderer.render(
                prompt: core.prompt(base: prompt), buffer: core.buffer, columns: Terminal.columns(output))
            Terminal.write(text, to: output)
        }
        redraw()
        while true {
            guard !pendingKeys.isEmpty else {
                guard readKeys() else {
                    // The terminal went away or failed: end input like Ctrl-D.
                    Terminal.write(renderer.renderFinal(prompt: prompt, buffer: core.buffer), to: output)
                    return nil
                }
                let restored = Terminal.takeRestoreRequest()
                let resized = Terminal.takeResize()
                if restored || resized { redraw() }
                continue
            }
            switch core.handle(pendingKeys.removeFirst()) {
            case .none:
                break
            case .redraw:
                redraw()
            case .bell:
                // Redrawn as well: a failed search changes its prompt while ringing.
                Terminal.write("\u{7}", to: output)
                redraw()
            case .clearScreen:
                Terminal.write("\u{1B}[H\u{1B}[2J", to: output)
                redraw()
            case .showCompletions(let candidates):
                let lines = CompletionLayout.lines(for: candidates, width: Terminal.columns(output) - 1)
                Terminal.write("\r\n" + lines.joined(separator: "\r\n") + "\r\n", to: output)
                redraw()
            case .accept(let line):
                Terminal.write(renderer.renderFinal(prompt: prompt, buffer: core.buffer), to: output)
                history.add(line)
                return line
            case .endOfFile:
                Terminal.write("\r\n", to: output)
                return nil
            case .interrupt:
                Terminal.write(
                    renderer.renderFinal(prompt: prompt, buffer: core.buffer, suffix: "^C"), to: output)
                return ""
            case .suspend:
                if Terminal.suspend() {
                    _ = Terminal.takeRestoreRequest()
                    redraw()
                } else {
                    Terminal.write("\u{7}", to: output)
                }
            }
        }
    }

    /// Reads what is available and decodes it; false at end of input or on an error.
    private func readKeys() -> Bool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
        if count < 0 { return errno == EINTR }
        guard count > 0 else { return false }
        pendingKeys += decoder.feed(bytes[0..<count])
        // A lone ESC is the Escape key only if nothing follows promptly; sequences arrive together.
        if decoder.isAwaitingEscapeSequence, !inputArrives(withinMilliseconds: 100) {
            pendingKeys += decoder.flush()
        }
        return true
    }

    private func inputArrives(withinMilliseconds timeout: Int32) -> Bool {
        var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, timeout) > 0
    }

    /// Scripted input: no prompt, no echo, no history.
    private func readPiped() -> String? {
        guard var line = Swift.readLine(strippingNewline: true) else { return nil }
        if line.hasSuffix("\r") { line.removeLast() }
        return line
    }

    /// A terminal that cannot do raw mode or cursor movement (TERM=dumb, output redirected):
    /// prompt and let the terminal's own line discipline edit.
    private func readCooked() -> String? {
        Terminal.write(prompt, to: isatty(output) != 0 ? output : 2)
        guard let line = readPiped() else { return nil }
        history.add(line)
        return line
    }
}
