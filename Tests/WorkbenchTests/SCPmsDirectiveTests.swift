import Scenario
import Testing
@testable import Workbench

/// The `scpms` directive refuses malformed lines at parse time, saying what was expected.
@Suite struct SCPmsDirectiveTests {
    static func problem(_ line: String) -> String? {
        do {
            _ = try Catalog.language.parse(line: line, file: "t.scn", lineNumber: 1)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func wellFormedLinesParse() {
        for line in ["scpms launch", "scpms launch app b from tablet server http://x:81 application com.x device iPad retries 2 retry-delay 1s no-reregister",
                     "scpms relaunch app b", "scpms start-session user demo password \"\" as s", "scpms register as r",
                     "scpms upload-log severity WARN message \"a b\"", "scpms delete-registration ${s.id}",
                     "scpms add-user alice pw on other", "scpms add-app com.y log-upload off"] {
            #expect(Self.problem(line) == nil, "\(line)")
        }
    }

    @Test func malformedLinesSayWhatWasExpected() throws {
        #expect(try #require(Self.problem("scpms fly")).contains("launch"))
        #expect(try #require(Self.problem("scpms start-session user demo")).contains("start-session needs 'user USER password PASSWORD'"))
        #expect(try #require(Self.problem("scpms upload-log severity LOUD message x")).contains("DEBUG"))
        #expect(try #require(Self.problem("scpms upload-log")).contains("needs 'message TEXT'"))
        #expect(try #require(Self.problem("scpms launch retries many")).contains("whole number"))
        #expect(try #require(Self.problem("scpms register user demo")).contains("expected"))
        #expect(try #require(Self.problem("scpms delete-registration x log-upload on")).contains("'on ACTOR'"))
        #expect(try #require(Self.problem("scpms relaunch now")).contains("end of line") || Self.problem("scpms relaunch now")!.contains("now"))
    }
}
