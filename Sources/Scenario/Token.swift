/// One word of a scenario line: a bare word or a quoted string, with its 1-based column.
///
/// `${name}` inside either is replaced by the variable's value when the step runs, so a line can be
/// checked for shape before anything runs and still use values captured along the way.
public struct Token: Sendable, Equatable {
    public let text: String
    public let column: Int
    public let quoted: Bool
}

/// Splits one line into tokens.
///
/// Words are separated by spaces or tabs. `"…"` strings may contain spaces and the escapes `\n`, `\t`,
/// `\r`, `\"`, `\\`, `\xHH`. `#` starts a comment where a word could start.
enum Lexer {
    static func tokens(of line: String, file: String, lineNumber: Int) throws(ScenarioError) -> [Token] {
        var tokens: [Token] = []
        let chars = Array(line)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == " " || c == "\t" || c == "\r" {
                i += 1
                continue
            }
            if c == "#" { break }
            let start = i
            if c == "\"" {
                var text = ""
                i += 1
                var closed = false
                while i < chars.count {
                    let d = chars[i]
                    if d == "\"" {
                        closed = true
                        i += 1
                        break
                    }
                    if d == "\\" {
                        guard i + 1 < chars.count else { break }
                        let e = chars[i + 1]
                        switch e {
                        case "n": text.append("\n")
                        case "t": text.append("\t")
                        case "r": text.append("\r")
                        case "\"": text.append("\"")
                        case "\\": text.append("\\")
                        case "$": text.append("\u{E000}")  // a literal "$", kept out of interpolation
                        case "x":
                            guard i + 3 < chars.count, let value = UInt8(String(chars[i + 2...i + 3]), radix: 16) else {
                                throw ScenarioError(
                                    file: file, line: lineNumber, column: i + 1,
                                    message: "expected two hex digits after \\x")
                            }
                            text.unicodeScalars.append(Unicode.Scalar(value))
                            i += 2
                        default:
                            throw ScenarioError(
                                file: file, line: lineNumber, column: i + 1,
                                message: "unknown escape \\\(e); expected one of \\n \\t \\r \\\" \\\\ \\$ \\xHH")
                        }
                        i += 2
                        continue
                    }
                    text.append(d)
                    i += 1
                }
                guard closed else {
                    throw ScenarioError(
                        file: file, line: lineNumber, column: start + 1,
                        message: "unterminated string; expected a closing \"")
                }
                tokens.append(Token(text: text, column: start + 1, quoted: true))
            } else {
                var text = ""
                while i < chars.count, chars[i] != " ", chars[i] != "\t", chars[i] != "\r" {
                    text.append(chars[i])
                    i += 1
                }
                tokens.append(Token(text: text, column: start + 1, quoted: false))
            }
        }
        return tokens
    }
}

/// A scenario problem with its place: `file:line:column: message`.
public struct ScenarioError: Error, CustomStringConvertible, Sendable {
    public let file: String
    public let line: Int
    public let column: Int
    public let message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "\(file):\(line):\(column): \(message)" }
}
