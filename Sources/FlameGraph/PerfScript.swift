/// Folds the text `perf script` prints for a `perf record -g` recording.
///
/// Each sample is a header line (`comm pid [cpu] time: period event:`) followed by its call chain, innermost frame
/// first, one frame per indented line (`address symbol+0xoffset (object)`), and a blank line. The fold puts the
/// command name at the root, as Brendan Gregg's stackcollapse-perf.pl does, strips the offsets, names a frame perf
/// could not symbolise after its object (`[libcrypto.so.3]`), and gives each symbol to `symbolName` (to demangle). A run
/// of unsymbolised frames in one object becomes one frame: frame-pointer unwinding through code built without frame
/// pointers can yield dozens of bogus ones, which would only make the drawing tall.
public enum PerfScript {
    /// - parameters:
    ///   - text: `perf script`'s output.
    ///   - symbolName: what a frame is called, from perf's symbol (e.g. ``SwiftDemangler/name(_:)``).
    /// - returns: the samples, folded; lines that are neither a header nor a frame (comments, perf's warnings) are skipped.
    public static func fold(_ text: String, symbolName: (String) -> String = { $0 }) -> FoldedStacks {
        var stacks = FoldedStacks()
        var command: String?
        var frames: [String] = []
        func finish() {
            if let command { stacks.add([command] + frames.reversed()) }
            command = nil
            frames.removeAll(keepingCapacity: true)
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty || line.allSatisfy(\.isWhitespace) {
                finish()
            } else if line.first == " " || line.first == "\t" {
                if command != nil, let frame = frame(line, symbolName: symbolName), !(frame.hasPrefix("[") && frames.last == frame) {
                    frames.append(frame)
                }
            } else if line.first != "#" {
                finish()
                command = self.command(line)
            }
        }
        finish()
        return stacks
    }

    /// The command of a sample header: the words before the pid (a command name may hold spaces).
    static func command(_ header: Substring) -> String {
        let words = header.split(separator: " ", omittingEmptySubsequences: true)
        let pid = words.firstIndex { word in word.allSatisfy { $0.isNumber || $0 == "/" } && word.first?.isNumber == true } ?? 1
        let name = words.prefix(max(pid, 1)).joined(separator: " ")
        return name.isEmpty ? "[unknown]" : name
    }

    /// One frame of a call chain: `7f3a2b1c symbol+0x1f (/usr/lib/libx.so)`; nil for a line without an address.
    static func frame(_ line: Substring, symbolName: (String) -> String) -> String? {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard let space = trimmed.firstIndex(of: " "), trimmed[..<space].allSatisfy(\.isHexDigit) else { return nil }
        var rest = trimmed[trimmed.index(after: space)...]
        while rest.last == " " { rest.removeLast() }
        var object = ""
        if rest.last == ")", let open = lastRange(of: " (", in: rest) {
            object = String(rest[open.upperBound..<rest.index(before: rest.endIndex)])
            rest = rest[..<open.lowerBound]
        }
        var symbol = rest
        if let plus = lastRange(of: "+0x", in: symbol), symbol[plus.upperBound...].allSatisfy(\.isHexDigit) {
            symbol = symbol[..<plus.lowerBound]
        }
        if symbol.isEmpty || symbol == "[unknown]" {
            let file = object.split(separator: "/").last.map(String.init) ?? ""
            return file.isEmpty || file == "[unknown]" ? "[unknown]" : file.hasPrefix("[") ? file : "[\(file)]"
        }
        return symbolName(String(symbol))
    }

    /// Where `needle` last occurs in `text` (this module does without Foundation).
    private static func lastRange(of needle: String, in text: Substring) -> Range<Substring.Index>? {
        let pattern = Array(needle)
        var end = text.endIndex
        while end > text.startIndex {
            guard let start = text.index(end, offsetBy: -pattern.count, limitedBy: text.startIndex) else { return nil }
            if text[start..<end].elementsEqual(pattern) { return start..<end }
            end = text.index(before: end)
        }
        return nil
    }
}
