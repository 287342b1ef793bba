import SCPms
import Testing

@Suite struct ClientLogLineTests {
    @Test func linesRoundTripWithEscapedHashes() throws {
        let line = ClientLogLine(
            timestamp: "2026-01-01 10:00:00.250", severity: .warn, correlationId: "c-1", source: "App",
            location: "Login.swift:12", message: "issue #42 \\ fixed #again")
        #expect(line.text == ##"#2026-01-01 10:00:00.250#WARN#c-1#App#Login.swift:12#issue \#42 \\ fixed \#again#"##)
        #expect(try ClientLogLine.parse(Substring(line.text)).get() == line)
        #expect(ClientLogLine.timestamp(milliseconds: 1_767_225_600_250) == "2026-01-01 00:00:00.250")
    }

    @Test func badLinesAreNamed() {
        func why(_ text: String) -> String {
            if case .failure(let error) = ClientLogLine.parseUpload(text, maxLines: 3) { return error.description }
            return "accepted"
        }
        #expect(why("") == "no log lines in the upload")
        #expect(why("hello").contains("line 1: a log line must start and end with '#'"))
        #expect(why("#2026-01-01 00:00:00#INFO#a#b#c#ok#\n#2026-01-01 00:00:00#LOUD#a#b#c#x#").contains("line 2: unknown severity 'LOUD'"))
        #expect(why("#2026-01-01#INFO#a#b#c#x#").contains("bad date"))
        #expect(why("#2026-01-01 00:00:00#INFO#a#b#x#").contains("has 5 fields"))
        #expect(why(##"#2026-01-01 00:00:00#INFO#a#b#c#x\n#"##).contains("unknown escape"))
        #expect(why(##"#2026-01-01 00:00:00#INFO#a#b#c#x\#"##).contains("ends inside a field"))
        let four = Array(repeating: "#2026-01-01 00:00:00#INFO####x#", count: 4).joined(separator: "\n")
        #expect(why(four) == "more than 3 log lines in one upload")
        #expect((try? ClientLogLine.parseUpload("#2026-01-01 00:00:00#INFO####x#\r\n\n", maxLines: 3).get().count) == 1)
    }
}
