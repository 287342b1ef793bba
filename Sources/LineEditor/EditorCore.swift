/// The line editor without a terminal: takes `Key`s, edits the line, walks history, completes,
/// searches, and says what the screen needs (`EditorAction`). One value edits one line.
public struct EditorCore: Sendable {
    /// The line as currently shown (while searching, the matching history entry).
    public private(set) var buffer: LineBuffer
    /// History entries followed by the draft line. Edits to a recalled entry stay here while the
    /// user moves around, as in readline, and are dropped when the line is accepted.
    private var lines: [String]
    /// Which of `lines` the buffer holds; `lines.count - 1` is the draft.
    public private(set) var historyIndex: Int
    private let completer: @Sendable (_ line: String, _ cursor: Int) -> Completion
    private var lastKeyWasTab = false
    /// The last killed text, for Ctrl-Y.
    private var killRing = ""
    private var search: SearchState?

    private struct SearchState: Sendable {
        var query = ""
        /// Index into `lines` of the entry shown, nil before anything matched.
        var match: Int?
        var failed = false
        let startIndex: Int
        let originIndex: Int
        let originBuffer: LineBuffer
    }

    /// Starts editing an empty line with `history` (oldest first) available to Up/Down and Ctrl-R.
    public init(
        history: [String],
        completer: @escaping @Sendable (_ line: String, _ cursor: Int) -> Completion = { _, _ in .none }
    ) {
        lines = history + [""]
        historyIndex = history.count
        buffer = LineBuffer()
        self.completer = completer
    }

    /// Whether a reverse incremental search (Ctrl-R) is in progress.
    public var isSearching: Bool { search != nil }

    /// The prompt to show: `base`, or the search prompt while searching.
    public func prompt(base: String) -> String {
        guard let search else { return base }
        return "(\(search.failed ? "failed " : "")reverse-i-search)`\(search.query)': "
    }

    /// Applies one key.
    public mutating func handle(_ key: Key) -> EditorAction {
        if search != nil, let action = handleSearch(key) { return action }
        let wasTab = lastKeyWasTab
        lastKeyWasTab = false
        switch key {
        case .text(let text):
            buffer.insert(text)
        case .enter:
            return .accept(buffer.text)
        case .tab:
            lastKeyWasTab = true
            return complete(listing: wasTab)
        case .backspace:
            return buffer.deleteBackward() ? .redraw : .none
        case .delete:
            return buffer.deleteForward() ? .redraw : .none
        case .control("d"):
            if buffer.isEmpty { return .endOfFile }
            return buffer.deleteForward() ? .redraw : .none
        case .left, .control("b"):
            return buffer.moveLeft() ? .redraw : .none
        case .right, .control("f"):
            return buffer.moveRight() ? .redraw : .none
        case .home, .control("a"):
            buffer.moveToStart()
        case .end, .control("e"):
            buffer.moveToEnd()
        case .wordLeft, .meta("b"):
            buffer.moveWordLeft()
        case .wordRight, .meta("f"):
            buffer.moveWordRight()
        case .control("k"):
            remember(buffer.killToEnd())
        case .control("u"):
            remember(buffer.killToStart())
        case .control("w"):
            remember(buffer.killPreviousWord())
        case .control("y"):
            guard !killRing.isEmpty else { return .none }
            buffer.insert(killRing)
        case .up, .control("p"):
            return recall(historyIndex - 1)
        case .down, .control("n"):
            return recall(historyIndex + 1)
        case .control("r"):
            startSearch()
        case .control("l"):
            return .clearScreen
        case .control("c"):
            return .interrupt
        case .control("z"):
            return .suspend
        case .control("g"):
            return .bell
        default:
            return .none
        }
        return .redraw
    }

    private mutating func remember(_ killed: String) {
        if !killed.isEmpty { killRing = killed }
    }

    private mutating func recall(_ index: Int) -> EditorAction {
        guard lines.indices.contains(index) else { return .none }
        lines[historyIndex] = buffer.text
        historyIndex = index
        buffer = LineBuffer(lines[index])
        return .redraw
    }

    // MARK: Completion

    private mutating func complete(listing: Bool) -> EditorAction {
        let cursor = buffer.cursor
        let completion = completer(buffer.text, cursor)
        var seen = Set<String>()
        let candidates = completion.candidates.filter { seen.insert($0).inserted }
        let start = min(max(completion.start, 0), cursor)
        let typed = String(buffer.contents[start..<cursor])
        switch candidates.count {
        case 0:
            return .bell
        case 1:
            let needsSpace =
                completion.appendsSpace
                && !(cursor < buffer.count && buffer.contents[cursor].isWhitespace)
            buffer.replace(start..<cursor, with: candidates[0] + (needsSpace ? " " : ""))
            lastKeyWasTab = false
            return .redraw
        default:
            let prefix = Completion.commonPrefix(of: candidates)
            if prefix.count > typed.count || (prefix.count == typed.count && prefix != typed && !prefix.isEmpty) {
                buffer.replace(start..<cursor, with: prefix)
                return .redraw
            }
            return listing ? .showCompletions(candidates) : .bell
        }
    }

    // MARK: Reverse incremental search

    private mutating func startSearch() {
        lines[historyIndex] = buffer.text
        // The draft is what is being searched for, not a place to find it.
        let start = min(historyIndex, lines.count - 2)
        search = SearchState(startIndex: start, originIndex: historyIndex, originBuffer: buffer)
    }

    /// Handles a key during a search; nil means the search ended and the key is handled normally.
    private mutating func handleSearch(_ key: Key) -> EditorAction? {
        guard var state = search else { return nil }
        switch key {
        case .text(let text):
            state.query += text
            // The current match stays if it still contains the longer query.
            let from = state.match ?? state.startIndex
            apply(find(state.query, from: from), to: &state)
        case .backspace:
            guard !state.query.isEmpty else { return .bell }
            state.query.removeLast()
            if state.query.isEmpty {
                state.match = nil
                state.failed = false
                buffer = state.originBuffer
            } else {
                apply(find(state.query, from: state.startIndex), to: &state)
            }
        case .control("r"):
            guard !state.query.isEmpty else { return EditorAction.none }
            let from = (state.match ?? (state.startIndex + 1)) - 1
            let found = find(state.query, from: from)
            apply(found, to: &state)
            if found == nil {
                search = state
                return .bell
            }
        case .control("g"), .escape:
            buffer = state.originBuffer
            historyIndex = state.originIndex
            search = nil
            return .redraw
        default:
            // Any other key leaves the search on the matched entry, then does its usual job.
            if let match = state.match {
                historyIndex = match
            }
            search = nil
            lastKeyWasTab = false
            let action = handle(key)
            return action == EditorAction.none ? .redraw : action
        }
        search = state
        return .redraw
    }

    private mutating func apply(_ found: (index: Int, position: Int)?, to state: inout SearchState) {
        guard let found else {
            state.failed = true
            return
        }
        state.failed = false
        state.match = found.index
        buffer = LineBuffer(lines[found.index], cursor: found.position)
    }

    /// The newest entry at or before `index` that contains `query`, and where in it.
    private func find(_ query: String, from index: Int) -> (index: Int, position: Int)? {
        let needle = Array(query)
        guard !needle.isEmpty, index >= 0 else { return nil }
        for candidate in stride(from: min(index, lines.count - 2), through: 0, by: -1) {
            let haystack = Array(lines[candidate])
            guard haystack.count >= needle.count else { continue }
            for position in 0...(haystack.count - needle.count)
            where haystack[position..<(position + needle.count)].elementsEqual(needle) {
                return (candidate, position)
            }
        }
        return nil
    }
}
