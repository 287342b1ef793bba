import PercentEncoding
import Testing

/// The one strict percent codec of bus URLs, the SOC Print inbox URL and SCPms paths.
@Suite struct PercentTests {
    @Test func unreservedCharactersStayAndEveryOtherByteIsUpperCaseHex() {
        #expect(Percent.encode("Term project (v2).pptx") == "Term%20project%20%28v2%29.pptx")
        #expect(Percent.encode("a-b._~Z9+/é") == "a-b._~Z9%2B%2F%C3%A9")
    }

    @Test func decodingRoundTripsAndKeepsPlus() {
        #expect(Percent.decode("Term%20project%20%28v2%29.pptx") == "Term project (v2).pptx")
        #expect(Percent.decode(Percent.encode("Übung ünd 日本.pdf")) == "Übung ünd 日本.pdf")
        #expect(Percent.decode("a+b%2b%2B") == "a+b++", "+ is not a space outside form bodies")
        #expect(Percent.decode("") == "")
    }

    @Test func brokenEscapesAndNonUTF8AreRefused() {
        for broken in ["bad%2", "bad%zz", "%", "%+a", "%-1", "%2g"] {
            #expect(Percent.decode(broken) == nil, "\(broken)")
        }
        #expect(Percent.decode("%FF%FE") == nil, "not UTF-8")
    }
}
