/// The text being edited and a cursor, with the editing operations of the console.
///
/// The cursor counts `Character`s (grapheme clusters), so it never lands inside a multi-byte
/// character or between a letter and its combining accent.
public struct LineBuffer: Hashable, Sendable {
    /// Kept as an array so cursor arithmetic is O(1); lines are short enough that the copy to and
    /// from `String` costs nothing noticeable.
    private var characters: [Character]

    /// Position of the cursor, from 0 (before the first character) to `count` (after the last).
    public private(set) var cursor: Int

    /// Creates a buffer holding `text` with the cursor at `cursor`, or at the end when omitted.
    public init(_ text: String = "", cursor: Int? = nil) {
        characters = Array(text)
        self.cursor = min(max(cursor ?? characters.count, 0), characters.count)
    }

    /// The whole line.
    public var text: String { String(characters) }

    /// Number of characters in the line.
    public var count: Int { characters.count }

    /// Whether the line has no characters.
    public var isEmpty: Bool { characters.isEmpty }

    /// The characters, for rendering.
    public var contents: [Character] { characters }

    /// Inserts `string` at the cursor and moves the cursor past it.
    public mutating func insert(_ string: String) {
        replace(cursor..<cursor, with: string)
    }

    /// Replaces the characters in `range` (clamped to the line) and leaves the cursor after the new text.
    public mutating func replace(_ range: Range<Int>, with string: String) {
        let lower = min(max(range.lowerBound, 0), characters.count)
        let upper = min(max(range.upperBound, lower), characters.count)
        // Rebuilt through String so a combining mark typed after a letter merges with it into one
        // Character instead of becoming a separate, invisible cursor stop.
        let head = String(characters[..<lower]) + string
        let whole = head + String(characters[upper...])
        characters = Array(whole)
        cursor = min(head.count, characters.count)
    }

    /// Moves the cursor to `position`, clamped to the line.
    public mutating func moveCursor(to position: Int) {
        cursor = min(max(position, 0), characters.count)
    }

    /// Moves one character left; returns false at the start of the line.
    @discardableResult
    public mutating func moveLeft() -> Bool {
        guard cursor > 0 else { return false }
        cursor -= 1
        return true
    }

    /// Moves one character right; returns false at the end of the line.
    @discardableResult
    public mutating func moveRight() -> Bool {
        guard cursor < characters.count else { return false }
        cursor += 1
        return true
    }

    /// Moves before the first character (Home, Ctrl-A).
    public mutating func moveToStart() { cursor = 0 }

    /// Moves after the last character (End, Ctrl-E).
    public mutating func moveToEnd() { cursor = characters.count }

    /// Moves to the start of the current or previous word (letters and digits), like Alt-B.
    public mutating func moveWordLeft() {
        while cursor > 0, !Self.isWordCharacter(characters[cursor - 1]) { cursor -= 1 }
        while cursor > 0, Self.isWordCharacter(characters[cursor - 1]) { cursor -= 1 }
    }

    /// Moves past the end of the current or next word (letters and digits), like Alt-F.
    public mutating func moveWordRight() {
        while cursor < characters.count, !Self.isWordCharacter(characters[cursor]) { cursor += 1 }
        while cursor < characters.count, Self.isWordCharacter(characters[cursor]) { cursor += 1 }
    }

    /// Deletes the character before the cursor; returns whether there was one.
    @discardableResult
    public mutating func deleteBackward() -> Bool {
        guard cursor > 0 else { return false }
        characters.remove(at: cursor - 1)
        cursor -= 1
        return true
    }

    /// Deletes the character under the cursor; returns whether there was one.
    @discardableResult
    public mutating func deleteForward() -> Bool {
        guard cursor < characters.count else { return false }
        characters.remove(at: cursor)
        return true
    }

    /// Removes the text from the cursor to the end of the line (Ctrl-K) and returns it.
    @discardableResult
    public mutating func killToEnd() -> String {
        kill(cursor..<characters.count)
    }

    /// Removes the text from the start of the line to the cursor (Ctrl-U) and returns it.
    @discardableResult
    public mutating func killToStart() -> String {
        kill(0..<cursor)
    }

    /// Removes the whitespace-delimited word before the cursor, with the blanks after it (Ctrl-W),
    /// and returns it. Whitespace delimits, not punctuation, so `run scenarios/a.wb` loses the whole path.
    @discardableResult
    public mutating func killPreviousWord() -> String {
        var start = cursor
        while start > 0, characters[start - 1].isWhitespace { start -= 1 }
        while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
        return kill(start..<cursor)
    }

    private mutating func kill(_ range: Range<Int>) -> String {
        let removed = String(characters[range])
        characters.removeSubrange(range)
        cursor = range.lowerBound
        return removed
    }

    private static func isWordCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }
}
