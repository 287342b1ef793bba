import Foundation
import Kernel
import Scenario
import TestSupport
import Testing

@testable import Workbench

/// `workbench serve`'s request log (one line per request, built from the actors' trace events), its notes' paths
/// and its help's default ports.
@Suite(.serialized) struct ServeLogTests {
    static let t0: Int64 = 1_764_064_923_456_789  // 2025-11-25T10:02:03.456789Z

    /// A request nothing handled is listed with the nearest one its actor answers: one it declares, or one it answered.
    @Test func aMissIsListedWithTheNearestRequestTheActorAnswers() {
        func event(_ micros: Int64, _ actor: String, _ name: String, _ fields: [(String, String)]) -> Trace.Event {
            Trace.Event(nanoseconds: (Self.t0 + micros) * 1000, actor: actor, event: name, fields: fields)
        }
        let peer = ("from", "127.0.0.1:50000")
        let events = [
            event(0, "scpms", "http-request", [peer, ("method", "GET"), ("path", "/app/Products")]),
            event(5, "scpms", "http-response", [peer, ("status", "200")]),
            event(10, "scpms", "http-request", [peer, ("method", "GET"), ("path", "/app/Prodcts")]),
            event(15, "scpms", "http-response", [peer, ("status", "404")]),
            event(20, "mig", "http-request", [peer, ("method", "POST"), ("path", "/ipp/print")]),
            event(21, "mig", "ipp-response", [peer, ("operation", "Print-Jobs"), ("status", "server-error-operation-not-supported")]),
            event(22, "mig", "http-response", [peer, ("status", "200")]),
        ]
        let misses = JournalRequests.misses(events, served: ["mig": ["Print-Job", "Get-Jobs"]])
        #expect(misses.count == 2)
        #expect(misses[0].hasSuffix(#""GET /app/Prodcts" 404 5µs — nearest: "GET /app/Products""#), "\(misses[0])")
        #expect(misses[1].hasSuffix(#" — nearest: "Print-Job""#), "\(misses[1])")
        #expect(JournalRequests.misses(events, actor: "scpms", served: [:]).count == 1)
    }

    @Test func aRequestsEventsMakeOneLine() {
        var log = RequestLog()
        let mig = "127.0.0.1:50000"
        let other = "127.0.0.1:50001"
        #expect(
            log.record(actor: "mig", event: "http-request", fields: [("from", mig), ("method", "POST"), ("path", "/ipp/print")], at: Self.t0) == nil)
        // Another connection's request in between is its own line.
        #expect(
            log.record(actor: "mig", event: "http-request", fields: [("from", other), ("method", "GET"), ("path", "/")], at: Self.t0 + 10) == nil)
        #expect(
            log.record(actor: "mig", event: "http-response", fields: [("from", other), ("status", "200")], at: Self.t0 + 60)
                == #"2025-11-25T10:02:03.456Z mig 127.0.0.1:50001 "GET /" 200 50µs"#)
        #expect(
            log.record(
                actor: "mig", event: "ipp-response", fields: [("from", mig), ("operation", "Print-Job"), ("status", "successful-ok")],
                at: Self.t0 + 1800) == nil)
        #expect(
            log.record(actor: "mig", event: "http-response", fields: [("from", mig), ("status", "200")], at: Self.t0 + 1834)
                == #"2025-11-25T10:02:03.458Z mig 127.0.0.1:50000 "Print-Job" successful-ok 1834µs"#)
        // An answer with nothing asked (a second response, or events of a client) makes no line.
        #expect(log.record(actor: "mig", event: "http-response", fields: [("from", mig), ("status", "200")], at: Self.t0 + 2000) == nil)
        #expect(log.record(actor: "phone", event: "mig-client-request", fields: [("operation", "Print-Job")], at: Self.t0) == nil)
        #expect(
            log.record(
                actor: "sunfire", event: "ssh-exec", fields: [("user", "demo"), ("command", #"lpr -P psts "a b.ps""#), ("from", mig)], at: Self.t0)
                == nil)
        #expect(
            log.record(
                actor: "sunfire", event: "ssh-exit", fields: [("command", #"lpr -P psts "a b.ps""#), ("from", mig), ("status", "1")],
                at: Self.t0 + 999_000)
                == #"2025-11-25T10:02:04.455Z sunfire 127.0.0.1:50000 "lpr -P psts \"a b.ps\"" exit-1 999000µs"#)
        #expect(
            log.record(
                actor: "mig-proxy", event: "http-bad-request",
                fields: [("from", other), ("reason", "The plain HTTP request was sent to HTTPS port"), ("status", "400")], at: Self.t0)
                == #"2025-11-25T10:02:03.456Z mig-proxy 127.0.0.1:50001 "-" 400 -"#)
    }

    @Test func timestampsAreUTCWithMilliseconds() {
        #expect(RequestLog.timestamp(0) == "1970-01-01T00:00:00.000Z")
        #expect(RequestLog.timestamp(1_709_251_199_009_999) == "2024-02-29T23:59:59.009Z")
        #expect(RequestLog.escaped("a\u{1B}[31m\"\\") == #"a\x1b[31m\"\\"#)
    }

    /// One request to the served echo gives one line with real fields; with --quiet, none.
    @Test func serveLogsEachRequestUnlessQuiet() throws {
        for quiet in [false, true] {
            let serve = try WorkbenchBinary.serve(
                [
                    "--only", "echo", "--set", "echo.http-port=0", "--set", "echo.tcp-port=0", "--state-dir",
                    NSTemporaryDirectory() + "workbench-serve-log-test",
                ]
                    + (quiet ? ["--quiet"] : []),
                until: { $0.components(separatedBy: "listening ").count >= 3 && $0.hasSuffix("\n") })
            let http = try serve.lastWord(ofLineStartingWith: "listening echo http://")
            let curl = try ExternalProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", "-w", "%{local_port}", http + "n?x=1"])
            #expect(curl.stdout.hasPrefix("GET /n 0 bytes\n"), "\(curl.stderr)")
            let port = String(curl.stdout.split(separator: "\n").last ?? "")
            let pattern = #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z echo 127\.0\.0\.1:(\d+) "GET /n" 200 (\d+)µs$/#
            let deadline = Date().addingTimeInterval(10)
            while !quiet, !serve.lines.contains(where: { $0.contains(#""GET /n""#) }), Date() < deadline { usleep(50_000) }
            let logged = serve.lines.filter { !$0.hasPrefix("listening ") && !$0.hasPrefix("note ") }
            #expect(serve.stop() == .exited(0))
            if quiet {
                #expect(logged.isEmpty, "\(serve.output)")
            } else {
                #expect(logged.count == 1, "\(serve.output)")
                let match = try #require(logged.first.flatMap { try? pattern.wholeMatch(in: $0) }, "\(serve.output)")
                #expect(String(match.1) == port, "the peer is curl's own address")
            }
        }
    }

    /// Notes name files by absolute paths that exist, even when serve runs elsewhere than the repository.
    @Test func notesPrintAbsolutePathsThatExist() throws {
        let serve = try ServedProcess.start(
            Repository.workbenchBinary.path,
            ["serve", "--only", "mig-proxy", "--set", "mig-proxy.port=0", "--state-dir", NSTemporaryDirectory() + "workbench-serve-notes-test"],
            currentDirectory: NSTemporaryDirectory(), until: .output { $0.contains("note mig-proxy ") && $0.hasSuffix("\n") })
        defer { _ = serve.stop() }
        let note = try #require(serve.lines.first { $0.hasPrefix("note mig-proxy client certificate: ") })
        let path = String(note.dropFirst("note mig-proxy client certificate: ".count).prefix { $0 != " " })
        #expect(path == Repository.fixture("tls/client.p12"))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// The help names every default port serve uses, taken from the catalogue's live options.
    @Test func helpNamesEveryDefaultPort() throws {
        let help = try WorkbenchBinary.run(["serve", "--help"])
        let text = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("Default ports: \(ServeCommand.defaultPorts)."), "\(help.stdout)")
        #expect(text.contains("mig plain-port 8631, tls-port 8050; mig-proxy port 8443;"))
        for (kind, options) in Catalog.liveOptions {
            for (name, value) in options where name.hasSuffix("port") && Int(value) != nil {
                #expect(ServeCommand.defaultPorts.contains("\(kind) ") && ServeCommand.defaultPorts.contains("\(name) \(value)"), "\(kind).\(name)")
            }
        }
    }
}
