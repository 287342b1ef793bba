/// Lays out completion candidates in columns, filled top to bottom like `ls` and readline.
public enum CompletionLayout {
    /// Returns the display lines (without line terminators) for `candidates` on a terminal
    /// `width` columns wide. Columns are separated by at least two spaces; a candidate wider than
    /// the terminal gets a line of its own.
    public static func lines(for candidates: [String], width: Int) -> [String] {
        guard !candidates.isEmpty else { return [] }
        let widths = candidates.map(DisplayWidth.of)
        let columnWidth = (widths.max() ?? 0) + 2
        let columns = max(1, min(candidates.count, max(width, 1) / columnWidth))
        let rows = (candidates.count + columns - 1) / columns
        var lines: [String] = []
        for row in 0..<rows {
            var line = ""
            for column in 0..<columns {
                let index = column * rows + row
                guard index < candidates.count else { break }
                let isLastInRow = column == columns - 1 || (column + 1) * rows + row >= candidates.count
                line += candidates[index]
                if !isLastInRow {
                    line += String(repeating: " ", count: columnWidth - widths[index])
                }
            }
            lines.append(line)
        }
        return lines
    }
}
