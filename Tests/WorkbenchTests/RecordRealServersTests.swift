import Foundation
import TestSupport
import Testing

@testable import MiGSystem
@testable import SystemKit
@testable import Workbench

/// `workbench record` in front of real servers, recorded live in the test: ipptool's ipp-everywhere.test against CUPS'
/// ippeveprinter, and curl against a private nginx. What the proxy keeps is whole and decoded, it diffs and plays back
/// as the committed recordings do, and the real client cannot tell the playback from the server.
@Suite(.serialized) struct RecordRealServersTests {
    /// The test results ipptool prints (`NAME [PASS]`), spaces squeezed.
    static func results(_ output: String) -> [String] {
        output.split(separator: "\n").filter { $0.hasSuffix("[PASS]") || $0.hasSuffix("[FAIL]") }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
    }

    /// The exchanges of a recording's index: method, target and status of each.
    static func index(_ folder: String) throws -> [(method: String, target: String, status: Int)] {
        let index = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/index.json"))) as? [String: Any])
        let entries = try #require(index["exchanges"] as? [[String: Any]])
        return entries.map { ($0["method"] as? String ?? "", $0["target"] as? String ?? "", $0["status"] as? Int ?? 0) }
    }

    /// The IPP operation or status each exchange's body holds, in order (`request` or `response` side).
    static func ippCodes(_ folder: String, side: String) throws -> [String] {
        try index(folder).indices.map { position in
            let file = String(format: "%@/%04d.json", folder, position + 1)
            let exchange = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
            let body = (exchange[side] as? [String: Any])?["body"] as? [String: Any]
            return (body?["ipp"] as? [String: Any])?["code"] as? String ?? "-"
        }
    }

    /// ipptool's IPP Everywhere suite through the proxy to a live ippeveprinter gives what the committed recording of
    /// the same suite holds: the same eleven requests and answers (operation and IPP status one by one), and the same
    /// diff against MiG under the committed known.differences. So that recording is what a real server answers today,
    /// not a one-off.
    @Test func ipptoolsEverywhereSuiteAgainstIPPEveprinterRecordsWhatTheCommittedRecordingHolds() throws {
        let directory = try RecordTests.scratch("everywhere-live")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let printer = try Served.ippeveprinter(state: "\(directory)/printer")
        defer { printer.stop() }
        let out = "\(directory)/recording"
        let (recorder, proxy) = try RecordTests.record(["--upstream", "http://127.0.0.1:\(printer.port)", "--listen", "0", "--out", out])
        let proxyPort = try #require(URLComponents(string: proxy)?.port)
        let suite = try ExternalProcess.run(
            "/usr/bin/ipptool", ["-t", "ipp://127.0.0.1:\(proxyPort)/ipp/print", "/usr/share/cups/ipptool/ipp-everywhere.test"],
            currentDirectory: directory, timeout: 120)
        #expect(Self.results(suite.stdout).count == 11, "\(suite.output)")
        #expect(RecordTests.interrupt(recorder) == .exited(0), "\(recorder.output)\(recorder.errorOutput)")

        let committed = Repository.fixture("recordings/ippeveprinter-everywhere")
        #expect(try Self.index(out).map(\.status) == Self.index(committed).map(\.status))
        #expect(try Self.ippCodes(out, side: "request") == Self.ippCodes(committed, side: "request"))
        #expect(try Self.ippCodes(out, side: "response") == Self.ippCodes(committed, side: "response"))
        #expect(try Self.ippCodes(out, side: "response").filter { $0 == "successful-ok" }.count >= 3)

        try FileManager.default.copyItem(atPath: "\(committed)/known.differences", toPath: "\(out)/known.differences")
        let diff = try WorkbenchBinary.run(["diff", out, "--against", "mig", "--sign-in"])
        #expect(diff.status == 0, "\(diff.output)")
        #expect(diff.stdout.split(separator: "\n").last?.hasPrefix("SAME ") == true, "\(diff.output)")
        #expect(
            diff.stdout.contains(
                "known   0009.ipp.status: recorded client-error-attributes-or-values-not-supported, actor client-error-document-format-not-supported"),
            "\(diff.output)")
    }

    /// The committed recording of a private cupsd's raw queue, and how it is made: the recording is made again here, live,
    /// and must hold what the committed one holds (operation and IPP status one by one), and both diff against MiG as
    /// its known.differences say, the queue's `/printers/bench` replayed at MiG's `/ipp/print`. With
    /// `WORKBENCH_UPDATE_RECORDINGS=1` the test writes the fresh recording over the committed one (its known.differences
    /// kept), as snapshot tests record theirs: the way to follow a new CUPS.
    @Test func ipptoolAgainstAPrivateCupsdRecordsWhatTheCommittedRecordingHolds() throws {
        let directory = try RecordTests.scratch("cupsd")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cupsd = try Served.cupsd(state: "\(directory)/cupsd")
        defer { cupsd.stop() }
        let out = "\(directory)/recording"
        let (recorder, proxy) = try RecordTests.record(["--upstream", "http://127.0.0.1:\(cupsd.port)", "--listen", "0", "--out", out])
        let proxyPort = try #require(URLComponents(string: proxy)?.port)
        let suite = try ExternalProcess.run(
            "/usr/bin/ipptool",
            ["-t", "-f", Repository.fixture("documents/handout-8.pdf"), "ipp://127.0.0.1:\(proxyPort)/printers/bench"] + Self.cupsdSuite,
            currentDirectory: "/usr/share/cups/ipptool", timeout: 120)
        // With a document (-f), ipp-1.1.test runs its job tests too: 30 tests, every one passed; the other files' 4 but
        // get-printer-attributes.test's, which wants media-col-default of a raw queue.
        let results = Self.results(suite.stdout)
        #expect(
            results.count == 34 && results.filter { $0.hasSuffix("[FAIL]") } == ["Get printer attributes using get-printer-attributes [FAIL]"],
            "\(suite.output)")
        #expect(RecordTests.interrupt(recorder) == .exited(0), "\(recorder.output)\(recorder.errorOutput)")

        let committed = Repository.root.appendingPathComponent(Self.cupsdRecording).path
        if ProcessInfo.processInfo.environment["WORKBENCH_UPDATE_RECORDINGS"] == "1" {
            for name in try FileManager.default.contentsOfDirectory(atPath: committed) where name != "known.differences" {
                try FileManager.default.removeItem(atPath: "\(committed)/\(name)")
            }
            for name in try FileManager.default.contentsOfDirectory(atPath: out) {
                try FileManager.default.copyItem(atPath: "\(out)/\(name)", toPath: "\(committed)/\(name)")
            }
        }
        #expect(try Self.index(out).map(\.status) == Self.index(committed).map(\.status))
        #expect(try Self.ippCodes(out, side: "request") == Self.ippCodes(committed, side: "request"))
        #expect(try Self.ippCodes(out, side: "response") == Self.ippCodes(committed, side: "response"))

        try FileManager.default.copyItem(atPath: "\(committed)/known.differences", toPath: "\(out)/known.differences")
        for folder in [out, committed] {
            let diff = try WorkbenchBinary.run(["diff", folder, "--against", "mig", "--sign-in", "--map-path", "/printers/bench=/ipp/print"])
            #expect(diff.status == 0, "\(folder): \(diff.output)")
            #expect(diff.stdout.split(separator: "\n").last?.hasPrefix("SAME ") == true, "\(folder): \(diff.output)")
        }
    }

    /// Where the cupsd recording is committed, and the ipptool test files it runs (in ipptool's own folder).
    static let cupsdRecording = "Fixtures/recordings/cupsd-raw-queue"
    static let cupsdSuite = ["ipp-1.1.test", "get-printer-attributes.test", "validate-job.test", "print-job.test", "get-jobs.test"]

    /// A private nginx (static files, a JSON location, its own 404 and 405 pages) recorded through the proxy with curl,
    /// then played back by a stub that `workbench serve --start` serves: curl gets the same statuses and bodies from the
    /// playback as from nginx, and a request nginx never answered gets the stub's near miss.
    @Test func curlAgainstNginxIsRecordedAndThePlaybackAnswersAsNginxDid() throws {
        let directory = try RecordTests.scratch("nginx")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let site = "\(directory)/site"
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try "hello from nginx".write(toFile: "\(site)/hello.txt", atomically: true, encoding: .utf8)
        let port = try Ports.free()
        try """
        daemon off;
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log;
        events {}
        http {
          access_log off;
          client_body_temp_path \(directory)/body;
          server {
            listen 127.0.0.1:\(port);
            root \(site);
            location = /api/status { default_type application/json; return 200 '{"status":"up","version":3}'; }
          }
        }
        """.write(toFile: "\(directory)/nginx.conf", atomically: true, encoding: .utf8)
        let nginx = try ServedProcess.start(
            "/usr/sbin/nginx", ["-c", "\(directory)/nginx.conf", "-e", "\(directory)/error.log"],
            until: .acceptsConnections(port: port), readyWithin: 30)
        defer { nginx.stop() }

        let out = "\(directory)/recording"
        let (recorder, proxy) = try RecordTests.record(["--upstream", "http://127.0.0.1:\(port)", "--listen", "0", "--out", out])
        let asked: [[String]] = [
            ["\(proxy)/hello.txt"], ["\(proxy)/api/status"], ["\(proxy)/missing"], ["-X", "POST", "-d", "x=1", "\(proxy)/hello.txt"],
        ]
        let live = try asked.map { try RecordTests.curl($0) }
        #expect(live.map(\.status) == ["200", "200", "404", "405"], "\(live)")
        #expect(live[0].body == "hello from nginx" && live[1].body == #"{"status":"up","version":3}"#, "\(live)")
        #expect(RecordTests.interrupt(recorder) == .exited(0), "\(recorder.output)\(recorder.errorOutput)")
        #expect(try Self.index(out).map(\.status) == [200, 200, 404, 405])
        let first = try String(contentsOfFile: "\(out)/0001.json", encoding: .utf8)
        #expect(first.contains(#""name" : "Server""#) && first.contains("nginx"), "nginx's Server header is kept: \(first)")

        let stub = try WorkbenchBinary.serve(
            [
                "--only", "echo", "--set", "echo.tcp-port=0", "--set", "echo.http-port=0", "--start", "stub as site from=\(out)",
                "--state-dir", "\(directory)/state",
            ],
            until: { $0.contains("listening site http://") && $0.hasSuffix("\n") })
        defer { stub.stop() }
        let played = try stub.lastWord(ofLineStartingWith: "listening site ").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        let replayed = try asked.map { try RecordTests.curl($0.map { $0.replacingOccurrences(of: proxy, with: played) }) }
        #expect(replayed.map(\.status) == live.map(\.status), "\(replayed)")
        #expect(replayed.map(\.body) == live.map(\.body), "\(replayed)")
        let miss = try RecordTests.curl(["\(played)/hello.txx"])
        #expect(miss.status == "404")
        #expect(miss.body.contains("the closest is 0001.json GET /hello.txt"), "\(miss.body)")
    }
}
