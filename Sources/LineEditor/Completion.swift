/// What a completer proposes for the text before the cursor.
///
/// Candidates replace the characters from `start` up to the cursor, so a completer can complete
/// just the current word (the usual case) or rewrite more of the line.
public struct Completion: Hashable, Sendable {
    /// Character offset in the line where the replaced text begins; clamped to the cursor.
    public var start: Int
    /// Full replacements for the text between `start` and the cursor, in display order.
    public var candidates: [String]
    /// Whether a sole candidate is a finished word and gets a space after it. Set to false for
    /// partial completions such as a directory `scenarios/` where the user keeps typing.
    public var appendsSpace: Bool

    /// Creates a completion replacing the text from `start` to the cursor.
    public init(start: Int, candidates: [String], appendsSpace: Bool = true) {
        self.start = start
        self.candidates = candidates
        self.appendsSpace = appendsSpace
    }

    /// No candidates: Tab rings the bell.
    public static let none = Completion(start: 0, candidates: [])

    /// Completes the whitespace-delimited word before the cursor from a fixed vocabulary;
    /// enough for command names and keywords.
    ///
    ///     let editor = LineEditor(prompt: "> ", history: history) { line, cursor in
    ///         .words(["help", "run", "quit"], line: line, cursor: cursor)
    ///     }
    public static func words(_ vocabulary: some Sequence<String>, line: String, cursor: Int) -> Completion {
        let characters = Array(line)
        let end = min(max(cursor, 0), characters.count)
        var start = end
        while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
        let word = String(characters[start..<end])
        var seen = Set<String>()
        let matches = vocabulary.filter { $0.hasPrefix(word) && seen.insert($0).inserted }
        return Completion(start: start, candidates: matches.sorted())
    }

    /// The longest string every candidate starts with, compared by `Character`.
    public static func commonPrefix(of candidates: [String]) -> String {
        guard var prefix = candidates.first.map(Array.init) else { return "" }
        for candidate in candidates.dropFirst() {
            var length = 0
            for character in candidate {
                guard length < prefix.count, prefix[length] == character else { break }
                length += 1
            }
            prefix.removeSubrange(length...)
        }
        return String(prefix)
    }
}
