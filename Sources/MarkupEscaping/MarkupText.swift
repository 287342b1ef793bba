/// Text made safe for XML or HTML, the one escaper of every module that writes markup by hand: office documents,
/// mysoc's pages, JUnit reports and the timeline page.
///
/// Everything not named by the ``Escapes`` chosen, non-ASCII included, is kept as it is.
public enum MarkupText {
    /// Which characters become references. Both sets are kept because both are observable: documents and pages have
    /// always had the first, reports the second, and their bytes must not change with the escaper.
    public enum Escapes: Sendable {
        /// `&`, `<`, `>` and `"` as `&amp;`, `&lt;`, `&gt;`, `&quot;`: enough for element text and for attribute values
        /// in double quotes (office documents, mysoc's pages).
        case minimal
        /// The minimal four, and `'` as `&#39;` (HTML 4 has no `&apos;`) and a line feed as `&#10;`: a value survives
        /// in an attribute in either quote and keeps its line breaks, which attribute-value normalisation would turn
        /// into spaces (JUnit failure messages, the timeline page's title).
        case attributeSafe
    }

    /// `text` with the characters of `escapes` as references.
    public static func escaped(_ text: String, _ escapes: Escapes) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'" where escapes == .attributeSafe: out += "&#39;"
            case "\n" where escapes == .attributeSafe: out += "&#10;"
            default: out.append(character)
            }
        }
        return out
    }
}
