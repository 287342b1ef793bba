import Foundation
import Scenario
import TestSupport
import Testing

@testable import Recordings
@testable import StubSystem
@testable import SystemKit
@testable import Workbench

/// A recording played back as an actor: the matching (sequences, chosen parts, near misses), a scenario that talks to a
/// stub and one that asks it something it never recorded, the read-time checks, and `serve --start` with real clients
/// (curl, and ipptool against a recording of itself).
@Suite(.serialized) struct StubTests {
    static let folder = Repository.fixture("recordings/scpms-registration")
    static let connection = "/odata/applications/v1/com.workbench.demo/Connection"

    static func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: String = "") -> StubRequest {
        StubRequest(method: method, target: target, headers: headers.map { (name: $0.0, value: $0.1) }, body: Array(body.utf8))
    }

    /// An outcome as `NUMBER SEQUENCE/OF` (the exchange that answered, which of its answers), or `miss`.
    static func played(_ outcome: StubPlayback.Outcome) -> String {
        guard case .answer(let exchange, let sequence, let count) = outcome else { return "miss" }
        return "\(exchange.number) \(sequence)/\(count)"
    }

    /// The recorded id of the registration, as the recording's first answer gives it.
    static func recordedID() throws -> String {
        let recording = try Recording(folder: folder)
        let text = try #require(recording.exchanges.first?.response.body?.text)
        let match = try #require(try Regex(#""ApplicationConnectionId":"([^"]*)""#).firstMatch(in: text))
        return try #require(match.output[1].substring.map(String.init))
    }

    @Test func identicalRequestsGetTheRecordedAnswersInOrderThenTheLast() throws {
        var playback = try StubPlayback(recording: Recording(folder: Self.folder), matching: StubMatching())
        let read = Self.request("GET", "\(Self.connection)s('\(try Self.recordedID())')")
        #expect(Self.played(playback.answer(read)) == "2 1/2")
        #expect(Self.played(playback.answer(read)) == "5 2/2")
        #expect(Self.played(playback.answer(read)) == "5 3/2")
        // Other requests keep their own count.
        #expect(Self.played(playback.answer(Self.request("POST", "\(Self.connection)s"))) == "1 1/1")
    }

    @Test func aRequestThatMatchesNothingNamesTheClosestExchangeAndHowItDiffers() throws {
        var playback = try StubPlayback(recording: Recording(folder: Self.folder), matching: StubMatching())
        guard case .miss(let why) = playback.answer(Self.request("POST", "\(Self.connection)")) else {
            Issue.record("a request with a path never recorded was answered")
            return
        }
        #expect(
            why == "no recorded exchange matches POST \(Self.connection); the closest is 0001.json POST \(Self.connection)s: "
                + "target '\(Self.connection)', recorded '\(Self.connection)s'", "\(why)")
    }

    @Test func chosenHeadersAndJSONFieldsTakePartInTheMatch() throws {
        let recording = try Recording(folder: Self.folder)
        var byJSON = try StubPlayback(recording: recording, matching: StubMatching(jsonFields: ["DeviceType"]))
        #expect(
            Self.played(byJSON.answer(Self.request("POST", "\(Self.connection)s", body: #"{"DeviceType":"Android"}"#))) == "1 1/1")
        guard case .miss(let why) = byJSON.answer(Self.request("POST", "\(Self.connection)s", body: #"{"DeviceType":"iOS"}"#)) else {
            Issue.record("a body with another DeviceType was answered")
            return
        }
        #expect(why.hasSuffix(#"json DeviceType '"iOS"', recorded '"Android"'"#), "\(why)")

        var byHeader = try StubPlayback(recording: recording, matching: StubMatching(headers: ["x-smp-appcid"]))
        let products = "/com.workbench.demo/Products?$top=2&$format=json"
        #expect(Self.played(byHeader.answer(Self.request("GET", products, headers: [("X-SMP-APPCID", try Self.recordedID())]))) == "3 1/1")
        guard case .miss(let headerWhy) = byHeader.answer(Self.request("GET", products)) else {
            Issue.record("a request without the header was answered")
            return
        }
        #expect(headerWhy.contains("header x-smp-appcid '(absent)'"), "\(headerWhy)")
    }

    static func run(_ text: String) -> ScenarioRunner.Result {
        let (script, errors) = Catalog.language.parse(file: Repository.root.appendingPathComponent("Simulations/stub-test.scn").path, text: text)
        #expect(errors.isEmpty, "\(errors)")
        return SwarmScripts.runner.run(script, seed: 1) { _ in }
    }

    @Test func aRequestTheRecordingNeverSawFailsTheRunWithTheNearMiss() throws {
        let result = Self.run(
            """
            start stub from=Fixtures/recordings/scpms-registration
            http GET "http://stub/com.workbench.demo/Products?$top=3&$format=json" as r
            expect ${r.status} == 404
            expect ${r.body} contains "the closest is 0003.json"
            """)
        #expect(result.failures.isEmpty, "\(result.failures)")
        #expect(result.violations.map(\.invariant) == ["stub.answers-from-its-recording"])
        #expect(result.violations.first?.message.contains("target '/com.workbench.demo/Products?$top=3&$format=json'") == true)
        #expect(!result.passed)
    }

    @Test func aStartLineWithoutARecordingOrWithAWrongOneIsRefusedWhenRead() throws {
        let missing = Catalog.language.parse(file: "t.scn", text: "start stub as backend\n").1
        #expect(
            missing.map(\.description) == [
                "t.scn:1:7: stub needs from=…: the recording to play back: a folder `workbench record --out` made (required)"
            ])
        let wrong = Catalog.language.parse(file: "t.scn", text: "start stub from=/nonexistent/recording\n").1
        #expect(wrong.first?.description.contains("option from=/nonexistent/recording: /nonexistent/recording: no such folder") == true, "\(wrong)")
    }

    /// `http … body-base64` (what `record --to-scenario` writes for an IPP request) is checked when the line is read.
    @Test func aBodyThatIsNoBase64OrASecondBodyIsRefusedWhenRead() {
        let bad = Catalog.language.parse(file: "t.scn", text: "http POST \"http://stub/\" body-base64 \"!!!\" as r\n").1
        #expect(bad.map(\.description) == ["t.scn:1:38: body-base64: not base64 (RFC 4648, with padding)"], "\(bad)")
        let twice = Catalog.language.parse(file: "t.scn", text: "http POST \"http://stub/\" body \"x\" body-base64 \"AA==\" as r\n").1
        #expect(twice.first?.description.contains("one body only: 'body TEXT' or 'body-base64 BASE64'") == true, "\(twice)")
        #expect(Catalog.language.parse(file: "t.scn", text: "http POST \"http://stub/\" body-base64 \"AQIDBA==\" as r\n").1.isEmpty)
    }

    @Test func serveStartPlaysARecordingToCurl() throws {
        let directory = try RecordTests.scratch("stub-serve")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let served = try WorkbenchBinary.serve(
            [
                "--only", "echo", "--set", "echo.tcp-port=0", "--set", "echo.http-port=0", "--start", "stub as backend from=\(Self.folder)",
                "--start", "stub as secure from=\(Self.folder) tls=true", "--state-dir", "\(directory)/state",
            ],
            until: { $0.contains("listening secure https://") && $0.hasSuffix("\n") })
        defer { served.stop() }
        let base = try served.lastWord(ofLineStartingWith: "listening backend ")
        let created = try RecordTests.curl(["-H", "Content-Type: application/json", "-d", #"{"DeviceType":"Android"}"#, "\(base)\(Self.connection)s"])
        #expect(created.status == "201")
        #expect(created.body.contains(try Self.recordedID()))
        // HTTPS with the workbench's test certificate (RecordTests.curl trusts Fixtures/tls/ca.pem).
        let secure = try served.lastWord(ofLineStartingWith: "listening secure ")
        #expect(secure.hasPrefix("https://127.0.0.1:"))
        #expect(try RecordTests.curl(["\(secure)/com.workbench.demo/Products?$top=2&$format=json"]).status == "200")
        let missed = try RecordTests.curl(["\(base)/nothing/recorded"])
        #expect(missed.status == "404")
        #expect(missed.body.contains("no recorded exchange matches GET /nothing/recorded; the closest is"), "\(missed.body)")
    }

    @Test func serveStartRefusesWhatItCannotServe() throws {
        let unknown = try WorkbenchBinary.run(["serve", "--start", "stubb from=x"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no actor kind 'stubb' (did you mean 'stub'?)"), "\(unknown.output)")
        let bare = try WorkbenchBinary.run(["serve", "--start", "stub as backend"])
        #expect(bare.status == 64)
        #expect(bare.stderr.contains("stub needs from=…"), "\(bare.output)")
        let only = try WorkbenchBinary.run(["serve", "--only", "stub"])
        #expect(only.status == 64)
        #expect(only.stderr.contains("serve it with --start 'stub as NAME …'"), "\(only.output)")
    }

    /// ipptool's get-printer-attributes.test through the recording proxy to a served MiG, then against the recording
    /// played back: the same suite passes against the stub alone (the 401 challenge and its answer included, each
    /// answer carrying the request's own request-id).
    @Test func ipptoolPassesAgainstARecordingOfItself() throws {
        let directory = try RecordTests.scratch("stub-ipp")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let mig = try WorkbenchBinary.serve(
            ["--only", "mig", "--set", "mig.plain-port=0", "--set", "mig.tls-port=none", "--state-dir", "\(directory)/state"],
            until: { $0.contains("listening mig ipp://") && $0.hasSuffix("\n") })
        let port = try #require(URLComponents(string: try mig.lastWord(ofLineStartingWith: "listening mig "))?.port)
        let out = "\(directory)/recording"
        let (recorder, proxy) = try RecordTests.record(["--upstream", "http://127.0.0.1:\(port)", "--listen", "0", "--out", out])
        let proxyPort = try #require(URLComponents(string: proxy)?.port)
        func ipptool(_ port: Int) throws -> ExternalProcess.Result {
            try ExternalProcess.run(
                "/usr/bin/ipptool",
                ["-t", "ipp://demo:demo-password@127.0.0.1:\(port)/ipp/print", "/usr/share/cups/ipptool/get-printer-attributes.test"],
                currentDirectory: directory, timeout: 60)
        }
        let recorded = try ipptool(proxyPort)
        #expect(recorded.status == 0, "\(recorded.output)")
        #expect(RecordTests.interrupt(recorder) == .exited(0), "\(recorder.errorOutput)")
        mig.stop()

        let stub = try WorkbenchBinary.serve(
            [
                "--only", "echo", "--set", "echo.tcp-port=0", "--set", "echo.http-port=0", "--start", "stub as printer from=\(out)",
                "--state-dir", "\(directory)/state2",
            ],
            until: { $0.contains("listening printer http://") && $0.hasSuffix("\n") })
        defer { stub.stop() }
        let stubPort = try #require(URLComponents(string: try stub.lastWord(ofLineStartingWith: "listening printer "))?.port)
        let played = try ipptool(stubPort)
        #expect(played.status == 0, "\(played.output)")
        #expect(played.stdout.contains("1 passed, 0 failed") || played.stdout.contains("PASS"), "\(played.output)")
    }

    /// Fixtures/recordings/ippeveprinter-everywhere: ipptool's ipp-everywhere.test (its include of ipp-1.1.test) against
    /// CUPS' ippeveprinter, recorded through `workbench record`. Played back, the suite gives what ippeveprinter gave, test
    /// by test: the malformed requests' answers (request-id 0, no operation attributes, version 0.0) and the two
    /// failures of a printer without PWG raster.
    @Test func ippEverywhereGetsFromThePlaybackWhatIPPEveprinterGave() throws {
        let directory = try RecordTests.scratch("stub-everywhere")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stub = try WorkbenchBinary.serve(
            [
                "--only", "echo", "--set", "echo.tcp-port=0", "--set", "echo.http-port=0", "--start",
                "stub as printer from=Fixtures/recordings/ippeveprinter-everywhere", "--state-dir", "\(directory)/state",
            ],
            until: { $0.contains("listening printer http://") && $0.hasSuffix("\n") })
        defer { stub.stop() }
        let port = try #require(URLComponents(string: try stub.lastWord(ofLineStartingWith: "listening printer "))?.port)
        let played = try ExternalProcess.run(
            "/usr/bin/ipptool", ["-t", "ipp://127.0.0.1:\(port)/ipp/print", "/usr/share/cups/ipptool/ipp-everywhere.test"],
            currentDirectory: directory, timeout: 120)
        let results = played.stdout.split(separator: "\n").filter { $0.hasSuffix("[PASS]") || $0.hasSuffix("[FAIL]") }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(
            results == [
                "RFC 8011 section 4.1.1: Bad request-id value 0 [PASS]", "RFC 8011 section 4.1.4: No Operation Attributes [PASS]",
                "RFC 8011 section 4.1.4: attributes-charset [PASS]", "RFC 8011 section 4.1.4: attributes-natural-language [PASS]",
                "RFC 8011 section 4.1.4: attributes-natural-language + attributes-cha [PASS]",
                "RFC 8011 section 4.1.4: attributes-charset + attributes-natural-lang [PASS]",
                "RFC 8011 section 4.1.8: Unsupported IPP version 0.0 [PASS]", "RFC 8011 section 4.2: No printer-uri operation attribute [PASS]",
                "RFC 8011 section 4.2.1: Print-Job Operation [FAIL]", "PWG 5100.12 section 6.2 - Required Printer Description Attributes [PASS]",
                "PWG 5100.14 section 5.1/5.2 - Required Operations and Attributes [FAIL]",
            ], "\(played.output)")
    }
}
