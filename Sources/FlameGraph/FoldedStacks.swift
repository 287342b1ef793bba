/// Call stacks with how many samples ended in each: the "folded" form flame graphs are drawn from
/// (`root;caller;callee 42`, one line per distinct stack).
public struct FoldedStacks: Equatable, Sendable {
    /// Each distinct stack, outermost frame first, with its samples.
    public private(set) var samples: [[String]: Int] = [:]

    public init() {}

    /// All samples.
    public var total: Int { samples.values.reduce(0, +) }

    /// Counts `count` samples of `stack` (outermost frame first). An empty stack counts nothing.
    public mutating func add(_ stack: [String], count: Int = 1) {
        guard !stack.isEmpty, count > 0 else { return }
        samples[stack, default: 0] += count
    }

    /// One line per stack, `frame;frame;frame count`, sorted so the text is the same for the same samples.
    /// A `;` inside a frame's name is written as `:`, so the line splits back into the same frames.
    public var text: String {
        samples.map { stack, count in stack.map { $0.replacingSemicolons }.joined(separator: ";") + " \(count)" }
            .sorted().joined(separator: "\n")
    }

    /// Reads the folded text ``text`` writes (and Brendan Gregg's stackcollapse scripts): `a;b;c 12` per line.
    /// - throws: ``FoldedStacks/FormatError`` naming the line that has no sample count.
    public init(text: String) throws(FormatError) {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            guard let space = line.lastIndex(of: " "), let count = Int(line[line.index(after: space)...]), count >= 0 else {
                throw FormatError(line: index + 1, message: "expected `frame;frame;… count`, found \"\(line.prefix(80))\"")
            }
            add(line[..<space].split(separator: ";").map(String.init), count: count)
        }
    }

    public struct FormatError: Error, Equatable, CustomStringConvertible {
        public let line: Int
        public let message: String
        public var description: String { "folded stacks, line \(line): \(message)" }
    }
}

extension String {
    fileprivate var replacingSemicolons: String { contains(";") ? String(map { $0 == ";" ? ":" : $0 }) : self }
}
