/// A command line the host's shell refuses, worded like dash (`sh: 1: Syntax error: …`); exit status 2.
public struct ShellSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Parses one exec request into the words of one simple command, the POSIX way — single and double quotes,
/// backslash escapes, `~` — and never by handing the text to a real shell.
///
/// What a command line could do beyond one simple command is refused with a clear error, not run: pipelines, lists
/// (`;`, `&&`, `||`, `&`), redirections, subshells, and every expansion (`$VAR`, `$(…)`, backquotes) — even inside
/// double quotes, where a real shell would expand them. So a file name such as `$(rm -rf ~)` can only ever fail, and
/// `; rm -rf ~` inside quotes is just a name. Unquoted glob characters stay literal (as sh leaves a pattern that
/// matches nothing); the app quotes its names anyway.
public enum ShellParser {
    /// Longest command line accepted (Linux's ARG_MAX-style limit for one word list is far larger; a print host needs
    /// little, and a bound keeps a hostile client from making the host parse megabytes).
    public static let maximumLineBytes = 131_072
    public static let maximumWords = 4096

    /// The words of `line`; an unquoted `~` at the start of a word becomes `home`.
    public static func parse(_ line: String, home: String = "~") throws(ShellSyntaxError) -> [String] {
        let bytes = Array(line.utf8)
        guard bytes.count <= maximumLineBytes else {
            throw ShellSyntaxError("sh: command line too long: \(bytes.count) bytes (limit \(maximumLineBytes))")
        }
        guard !bytes.contains(0) else { throw ShellSyntaxError("sh: 1: Syntax error: NUL byte in the command line") }
        var words: [String] = []
        var word: [UInt8] = []
        var inWord = false
        var index = 0

        func finish() throws(ShellSyntaxError) {
            guard inWord else { return }
            guard words.count < maximumWords else { throw ShellSyntaxError("sh: too many words (limit \(maximumWords))") }
            words.append(String(decoding: word, as: UTF8.self))
            word = []
            inWord = false
        }

        func refuseExpansion(at position: Int) throws(ShellSyntaxError) {
            let next = position + 1 < bytes.count ? bytes[position + 1] : 0
            let what: String
            switch next {
            case UInt8(ascii: "("): what = "command substitution '$(…)'"
            case UInt8(ascii: "{"): what = "parameter expansion '${…}'"
            default:
                // The whole parameter as sh reads it: a name runs on over letters, digits and '_' ($HOME, not $H).
                func isNameByte(_ byte: UInt8) -> Bool {
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                }
                var end = position + 2
                if isNameByte(next), !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) {
                    while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
                }
                what = "parameter expansion '\(String(decoding: bytes[position..<end], as: UTF8.self))'"
            }
            throw ShellSyntaxError(
                "sh: 1: \(what) is not available on this host: it runs one simple command per exec and never expands (quote a literal $ as '$')")
        }

        /// `$` starts an expansion when a name, digit, special parameter, `(` or `{` follows; otherwise it is a `$`.
        func isExpansion(at position: Int) -> Bool {
            guard position + 1 < bytes.count else { return false }
            let next = bytes[position + 1]
            switch next {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "_"), UInt8(ascii: "("), UInt8(ascii: "{"), UInt8(ascii: "?"), UInt8(ascii: "$"), UInt8(ascii: "!"),
                UInt8(ascii: "#"), UInt8(ascii: "@"), UInt8(ascii: "*"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }

        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                try finish()
                index += 1
            case UInt8(ascii: "\n"):
                throw ShellSyntaxError(
                    "sh: 1: Syntax error: an unquoted newline would start a second command; this host runs one simple command per exec")
            case UInt8(ascii: "'"):
                inWord = true
                guard let close = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "'")) else {
                    throw ShellSyntaxError("sh: 1: Syntax error: Unterminated quoted string")
                }
                word += bytes[(index + 1)..<close]
                index = close + 1
            case UInt8(ascii: "\""):
                inWord = true
                index += 1
                var closed = false
                while index < bytes.count {
                    let inner = bytes[index]
                    if inner == UInt8(ascii: "\"") {
                        closed = true
                        index += 1
                        break
                    }
                    if inner == UInt8(ascii: "\\"), index + 1 < bytes.count {
                        let escaped = bytes[index + 1]
                        switch escaped {
                        case UInt8(ascii: "$"), UInt8(ascii: "`"), UInt8(ascii: "\""), UInt8(ascii: "\\"): word.append(escaped)
                        case UInt8(ascii: "\n"): break  // line continuation
                        default: word += [inner, escaped]
                        }
                        index += 2
                        continue
                    }
                    if inner == UInt8(ascii: "`") {
                        throw ShellSyntaxError(
                            "sh: 1: command substitution '`…`' is not available on this host: it runs one simple command per exec and never expands")
                    }
                    if inner == UInt8(ascii: "$"), isExpansion(at: index) { try refuseExpansion(at: index) }
                    word.append(inner)
                    index += 1
                }
                guard closed else { throw ShellSyntaxError("sh: 1: Syntax error: Unterminated quoted string") }
            case UInt8(ascii: "\\"):
                inWord = true
                guard index + 1 < bytes.count else {
                    index += 1
                    continue  // a trailing backslash escapes nothing
                }
                if bytes[index + 1] != UInt8(ascii: "\n") { word.append(bytes[index + 1]) }
                index += 2
            case UInt8(ascii: "`"):
                throw ShellSyntaxError(
                    "sh: 1: command substitution '`…`' is not available on this host: it runs one simple command per exec and never expands")
            case UInt8(ascii: "$") where isExpansion(at: index):
                try refuseExpansion(at: index)
            case UInt8(ascii: "|"), UInt8(ascii: "&"), UInt8(ascii: ";"), UInt8(ascii: "<"), UInt8(ascii: ">"),
                UInt8(ascii: "("), UInt8(ascii: ")"):
                var operatorText = String(UnicodeScalar(byte))
                if index + 1 < bytes.count, [UInt8(ascii: "|"), UInt8(ascii: "&"), UInt8(ascii: ">"), UInt8(ascii: "<")].contains(bytes[index + 1]) {
                    operatorText.append(Character(UnicodeScalar(bytes[index + 1])))
                }
                let kind =
                    "<>".contains(Character(UnicodeScalar(byte)))
                    ? "redirection" : (byte == UInt8(ascii: "(") || byte == UInt8(ascii: ")") ? "subshell" : "pipeline or list")
                throw ShellSyntaxError(
                    "sh: 1: Syntax error: '\(operatorText)' (a \(kind)) is not available on this host: it runs one simple command per exec; quote it to use it as data"
                )
            case UInt8(ascii: "#") where !inWord:
                index = bytes.count  // a comment runs to the end of the line
            case UInt8(ascii: "~")
            where !inWord
                && (index + 1 == bytes.count || bytes[index + 1] == UInt8(ascii: "/")
                    || bytes[index + 1] == UInt8(ascii: " ") || bytes[index + 1] == UInt8(ascii: "\t")):
                inWord = true
                word += Array(home.utf8)
                index += 1
            default:
                inWord = true
                word.append(byte)
                index += 1
            }
        }
        try finish()
        return words
    }

    /// `word` quoted so that ``parse(_:home:)`` gives it back unchanged (single quotes, `'` as `'\''`).
    public static func quote(_ word: String) -> String {
        // By scalar, not by Character: a quote followed by a combining mark is one Character but still a quote to sh.
        var out = "'"
        for scalar in word.unicodeScalars {
            if scalar == "'" { out += #"'\''"# } else { out.unicodeScalars.append(scalar) }
        }
        return out + "'"
    }
}
