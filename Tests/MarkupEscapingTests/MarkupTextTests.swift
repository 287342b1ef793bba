import MarkupEscaping
import Testing

/// The one markup escaper: both sets of references, byte for byte, since documents, pages and reports show them.
@Suite struct MarkupTextTests {
    static let special = "a & b < c > d \"e\" 'f'\ng — é"

    @Test func minimalEscapesTheFourThatTextAndDoubleQuotedAttributesNeed() {
        #expect(MarkupText.escaped(Self.special, .minimal) == "a &amp; b &lt; c &gt; d &quot;e&quot; 'f'\ng — é")
    }

    @Test func attributeSafeAlsoEscapesApostrophesAndLineFeeds() {
        #expect(MarkupText.escaped(Self.special, .attributeSafe) == "a &amp; b &lt; c &gt; d &quot;e&quot; &#39;f&#39;&#10;g — é")
    }

    @Test func entitiesAreNotEscapedTwiceOrLeftAlone() {
        #expect(MarkupText.escaped("&amp;", .minimal) == "&amp;amp;")
        #expect(MarkupText.escaped("", .attributeSafe) == "")
        #expect(MarkupText.escaped("\r\n", .attributeSafe) == "\r\n", "a CR LF is one Character, not a line feed")
    }
}
