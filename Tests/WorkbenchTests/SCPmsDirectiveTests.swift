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
        for line in [
            "scpms launch", "scpms launch app b from tablet server http://x:81 application com.x device iPad retries 2 retry-delay 1s no-reregister",
            "scpms relaunch app b", "scpms start-session user demo password \"\" as s", "scpms register as r",
            "scpms upload-log severity WARN message \"a b\"", "scpms delete-registration ${s.id}",
            "scpms add-user alice pw on other", "scpms add-app com.y log-upload off",
            "scpms launch app c trust ca ca-file tls/ca.pem device-name \"Roberto’s iPhone\" body none log-level WARN header X-A b",
            "scpms odata metadata", "scpms odata Products top 2 skip 1 filter \"Category eq 'A'\" as p", "scpms odata Products key 3 app c",
            "scpms log severity INFO message hi as l", "scpms upload-logs as u", "scpms end app c as e",
        ] {
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
        #expect(try #require(Self.problem("scpms launch trust everyone")).contains("any"))
        #expect(try #require(Self.problem("scpms launch ca-file tls/ca.pem")).contains("needs 'trust ca'"))
        #expect(try #require(Self.problem("scpms launch body json")).contains("device-info"))
        #expect(try #require(Self.problem("scpms odata metadata top 1")).contains("takes no key, top, skip or filter"))
        #expect(try #require(Self.problem("scpms odata Products key 1 top 2")).contains("no top, skip or filter"))
        #expect(try #require(Self.problem("scpms odata Products top -1")).contains("whole number"))
        #expect(try #require(Self.problem("scpms odata Products orderby Name")).contains("expected"))
        #expect(try #require(Self.problem("scpms log severity INFO")).contains("needs 'message TEXT'"))
        #expect(try #require(Self.problem("scpms relaunch now")).contains("end of line") || Self.problem("scpms relaunch now")!.contains("now"))
    }

    @Test func asNamesTheResultOfEveryLineThatGivesOne() throws {
        let text = """
            start scpms
            scpms launch retries 0 as first
            scpms relaunch as again
            expect ${first.launches} == 1
            expect ${again.launches} == 2
            scpms delete-registration no-such-registration as gone
            expect ${gone} == false
            """
        let (script, errors) = Catalog.language.parse(file: "t.scn", text: text)
        #expect(errors.isEmpty, "\(errors)")
        let result = SwarmScripts.runner.run(script, seed: 1) { _ in }
        #expect(result.passed, "\(result.failures.map { $0.failure ?? "" }) \(result.error ?? "")")
        #expect(Self.problem("scpms launch as") != nil)
    }

    @Test func everyDefaultIsInTheHelp() throws {
        for directive in Catalog.language.directives where directive.usage.contains("[") {
            #expect(!directive.defaults.isEmpty, "\(directive.name) takes optional words but 'help \(directive.name)' names no default")
        }
        let session = ConsoleSession(seed: 1, write: { _ in })
        let help = try session.help("scpms").get()
        #expect(help.contains("defaults: app app, on scpms; launch: from phone"), "\(help)")
        #expect(help.contains("retries 0, retry-delay 2s"), "\(help)")
    }
}
