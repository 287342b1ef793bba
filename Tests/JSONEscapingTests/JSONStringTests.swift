import Foundation
import JSONEscaping
import Testing

/// The one JSON string escaper (RFC 8259 section 7), checked against the RFC's rules character by character and
/// against an independent parser (Foundation's JSONSerialization) for every code point class.
@Suite struct JSONStringTests {
    @Test func quotesAndBackslashesAreEscaped() {
        #expect(JSONString.quoted(#"say "hi" \ bye"#) == #""say \"hi\" \\ bye""#)
        #expect(JSONString.quoted("") == #""""#)
    }

    @Test func everyControlCharacterIsEscapedWithTheShortFormOrUPlusFourHex() {
        let short: [UInt32: String] = [0x08: #"\b"#, 0x09: #"\t"#, 0x0A: #"\n"#, 0x0C: #"\f"#, 0x0D: #"\r"#]
        for value in UInt32(0)..<0x20 {
            let scalar = Unicode.Scalar(value)!
            let expected = short[value] ?? "\\u00" + (value < 0x10 ? "0" : "") + String(value, radix: 16)
            #expect(JSONString.quoted(String(scalar)) == "\"" + expected + "\"", "U+\(String(value, radix: 16))")
        }
        #expect(JSONString.quoted("\u{1}\u{1F}") == #""\u0001\u001f""#)
    }

    @Test func everythingElseIsKeptAsItIs() {
        // DEL, slash, non-ASCII, astral plane, line/paragraph separators: none has to be escaped.
        let kept = "\u{7F}/é€😀\u{2028}\u{2029}a"
        #expect(JSONString.quoted(kept) == "\"" + kept + "\"")
    }

    @Test func theTextBetweenEscapesIsKeptWholeWhereverItStarts() {
        // An escape that begins a grapheme (a quote with a combining accent, CR LF) and multibyte text on each side:
        // the text after an escape starts inside a grapheme and must be copied from there, no byte lost or doubled.
        let text = "é\"\u{301}😀\r\nx\\€"
        let expected = "\"é\\\"\u{301}😀\\r\\nx\\\\€\""
        #expect(Array(JSONString.quoted(text).utf8) == Array(expected.utf8))
    }

    @Test func appendingAddsOneLiteralToWhatIsThere() {
        var out = "["
        JSONString.appendQuoted("a\"b", to: &out)
        out += ","
        JSONString.appendQuoted("c", to: &out)
        #expect(out == #"["a\"b","c""#)
    }

    @Test func anIndependentParserReadsBackEveryString() throws {
        var nasty = (0..<0x20).map { String(Unicode.Scalar(UInt8($0))) }.joined()
        nasty += #""\/'"# + "\u{7F}é€😀\u{2028}"
        for text in [nasty, "plain", "", "\\", "\"", "tab\there", String(repeating: "\u{0}", count: 3)] {
            let document = "[" + JSONString.quoted(text) + "]"
            let parsed = try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String]
            #expect(parsed == [text], "\(document)")
        }
    }
}
