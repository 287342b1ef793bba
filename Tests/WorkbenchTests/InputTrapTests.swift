import Foundation
import Kernel
import Scenario
import TestSupport
import Testing

@testable import MiGSystem
@testable import Workbench

/// Numbers and names a user types are checked where they are read: an error that says what is allowed,
/// never a trap. Each case here trapped the process before.
@Suite struct InputTrapTests {
    let language = Catalog.language
    var runner: ScenarioRunner { ScenarioRunner(language: language, catalog: Catalog.actorKinds) }

    func parseError(_ line: String) -> ScenarioError? {
        language.parse(file: "t.scn", text: line).1.first
    }

    func run(_ text: String) -> ScenarioRunner.Result {
        let (script, errors) = language.parse(file: "t.scn", text: text)
        #expect(errors.isEmpty, "\(errors)")
        return runner.run(script, seed: 1) { _ in }
    }

    @Test func durationsBeyondTenYearsAreRefusedWithTheLimit() throws {
        let error = try #require(parseError("advance 3000000h"))
        #expect(error.column == 9)
        #expect(error.message == "expected a duration like 250ms or 2s, found '3000000h' (at most 87600h, ten years)")
        #expect(parseError("advance 1e400s") != nil)
        #expect(parseError("advance 87600h") == nil)
    }

    @Test func virtualTimeStopsAtTheHorizonWithAnError() {
        let result = run(Array(repeating: "advance 87600h", count: 12).joined(separator: "\n"))
        #expect(result.error?.contains("t.scn:11: advance: advance 87600h") == true)
        #expect(result.error?.contains("would pass the simulation's horizon") == true)
        #expect(result.virtualTime == .seconds(10 * 10 * 365 * 86_400))
    }

    @Test func countsRatesAndDelaysNameTheirRange() throws {
        #expect(try #require(parseError("fault x times 0")).message == "expected how many times, a whole number from 1 to 1000000000, found '0'")
        #expect(try #require(parseError("fault x times 99999999999999999999")).column == 15)
        #expect(try #require(parseError("link phone -> echo bandwidth 1e30GB/s")).message.contains("from 1B/s to 100GB/s"))
        #expect(try #require(parseError("link phone -> echo latency 2d")).message.contains("from 0 to 24h"))
        #expect(try #require(parseError("link phone -> echo latency 25h")).message.contains("from 0 to 24h"))
        #expect(try #require(parseError("connect c to echo:70000")).message.contains("with a port from 1 to 65535"))
        #expect(try #require(parseError("mig print copies 3000000000")).message.contains("from 0 to 2147483647"))
        #expect(try #require(parseError("socprint print per-sheet 9999999999999999999999")).message.contains("from 1 to 8"))
    }

    @Test func anHTTPPortOutOfRangeIsAStepError() {
        let result = run("start echo\nhttp GET http://echo:70000/ as r")
        #expect(result.error?.contains("the port must be a number from 1 to 65535, found '70000'") == true)
    }

    @Test func actorOptionsAreRangeCheckedAndTyposRefused() throws {
        let typo = try #require(parseError("start mig pmm=5"))
        #expect(typo.column == 11)
        #expect(typo.message.hasPrefix("mig has no option 'pmm' (did you mean 'ppm'?); expected one of tls-port, plain-port"))
        #expect(try #require(parseError("start nothing")).message.hasPrefix("no actor kind 'nothing'"))
        // Values are checked when the line is read, at the option's column; from a variable, when the actor starts.
        let ppm = try #require(parseError("start mig ppm=3000000000"))
        #expect((ppm.column, ppm.message) == (11, "mig: option ppm=3000000000: expected a whole number 1…100000"))
        let maxJobs = try #require(parseError("start mig max-jobs=-1"))
        #expect((maxJobs.column, maxJobs.message) == (11, "mig: option max-jobs=-1: expected a whole number 0…10000000"))
        #expect(try #require(parseError("start mig max-job=5")).message.contains("(did you mean 'max-jobs'?)"))
        #expect(
            try #require(parseError("start mig-proxy upstream=mig:99999")).message
                == "mig-proxy: option upstream=mig:99999: expected HOST:PORT with a port 1…65535")
        #expect(try #require(parseError("start mig proxy-secret=short")).message.contains("expected a secret of 16 to 256 printable characters"))
        let late = run("let s = short\nstart mig proxy-secret=${s}")
        #expect(late.error?.contains("mig: option proxy-secret: expected a secret of 16 to 256 printable characters") == true)
    }

    @Test func theTraceDoesNotDependOnHowThePathWasTyped() throws {
        let text = "start echo\nhttp GET http://echo/ as r\nexpect ${r.status} == 200"
        let digests = try ["Simulations/x.scn", "./Simulations/x.scn", "/somewhere/else/Simulations/x.scn"].map { file in
            let (script, errors) = language.parse(file: file, text: text)
            try #require(errors.isEmpty)
            return runner.run(script, seed: 5) { _ in }.digest
        }
        #expect(Set(digests).count == 1)
    }

    @Test func sourcePathsInErrorTextsDoNotReachTheTrace() throws {
        let kernel = Kernel(seed: 1)
        kernel.trace.record(
            actor: "t", event: "e",
            fields: [
                (
                    "error",
                    "handshakeFailed(sslError([Error: 268435581 CERTIFICATE_VERIFY_FAILED at /home/me/w/.build/checkouts/swift-nio-ssl/Sources/CNIOBoringSSL/ssl/handshake.cc:393]))"
                )
            ])
        let value = try #require(kernel.trace.all.first?.fields.first?.1)
        #expect(value == "handshakeFailed(sslError([Error: 268435581 CERTIFICATE_VERIFY_FAILED at handshake.cc:393]))")
    }

    @Test func generatedLinesNeverTrapTheParserOrTheRunner() throws {
        // A short run of `workbench fuzz-scenario`; tools/fuzz-scenario.sh runs ten million lines.
        let command = try FuzzScenarioCommand.parse(["--runs", "3000", "--seed", "7"])
        try command.run()
        #expect(throws: (any Error).self) { _ = try FuzzScenarioCommand.parse(["--runs", "0"]) }
    }

    @Test func benchMigChecksItsClientCountsAndJobs() throws {
        #expect(try MiGBench.clientCounts("1,16") == [1, 16])
        #expect(try MiGBench.clientCounts(" 4 ") == [4])
        for wrong in ["0", "257", "1,,16", "1,1", "x", "-3", "99999999999999999999", "1,2,3,4,5,6,7,8,9", ""] {
            #expect(throws: (any Error).self, "--clients '\(wrong)'") { _ = try MiGBench.clientCounts(wrong) }
        }
        _ = try MiGBench.parse(["--jobs", "16", "--clients", "1,16"])
        for wrong in [
            ["--jobs", "15"], ["--jobs", "0"], ["--jobs", "100001"], ["--size", "-1"], ["--ingest-mib", "65537"], ["--clients", "0"],
            ["--frobnicate"],
        ] {
            #expect(throws: (any Error).self, "\(wrong)") { _ = try MiGBench.parse(wrong) }
        }
    }
}

/// `serve` and `run` refuse what they do not understand, and find Fixtures/ from anywhere.
@Suite(.serialized) struct CommandInputTests {
    static func run(_ arguments: [String], in directory: URL) throws -> (Int32, String) {
        let result = try ExternalProcess.run(Repository.workbenchBinary.path, arguments, currentDirectory: directory.path, timeout: 300)
        return (result.status, result.output)
    }

    @Test func serveRefusesAnOptionWithATypo() throws {
        let (status, text) = try Self.run(["serve", "--set", "mig.pmm=5"], in: Repository.root)
        #expect(status != 0)
        #expect(text.contains("--set mig.pmm=5: mig has no option 'pmm' (did you mean 'ppm'?)"))
    }

    @Test func scenariosFindFixturesWhenRunFromAnotherFolder() throws {
        let (status, text) = try Self.run(
            ["run", "mig-client-certificate.scn", "--seed", "2"],
            in: Repository.root.appendingPathComponent("Simulations"))
        #expect(status == 0, "\(text)")
        let (again, other) = try Self.run(["run", "Simulations/mig-client-certificate.scn", "--seed", "2"], in: Repository.root)
        #expect(again == 0)
        #expect(text.split(separator: "\n").last == other.split(separator: "\n").last, "same digest from either folder")
    }
}
