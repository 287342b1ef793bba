import Foundation
import IPP
import Recordings
import TestSupport
import Testing
import Wire

@testable import Workbench

/// `workbench record`, `record --to-scenario` and `diff` on a real recording: curl through the proxy to `workbench serve
/// --only scpms`, HTTPS on both sides of the proxy.
@Suite(.serialized) struct RecordTests {
    /// The Basic credentials of SCPms's demo account (demo:password), as curl sends them.
    static let demoBasic = Data("demo:password".utf8).base64EncodedString()

    /// Starts `workbench record ARGUMENTS` and returns it with the URL it listens on.
    static func record(_ arguments: [String]) throws -> (ServedProcess, String) {
        let recorder = try ServedProcess.start(
            Repository.workbenchBinary.path, ["record"] + arguments, currentDirectory: Repository.root.path,
            until: .output { $0.contains("listening record ") && $0.hasSuffix("\n") }, readyWithin: 60)
        let line = try #require(recorder.lines.first { $0.hasPrefix("listening record ") })
        return (recorder, String(line.split(separator: " ")[2]))
    }

    /// curl with the test CA, printing the body then the status on a line of its own.
    static func curl(_ arguments: [String]) throws -> (body: String, status: String) {
        let run = try ExternalProcess.run(
            "/usr/bin/curl", ["-sS", "-g", "--max-time", "20", "--cacert", Repository.fixture("tls/ca.pem"), "-w", "\n%{http_code}"] + arguments)
        #expect(run.status == 0, "curl \(arguments): \(run.stderr)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (lines.dropLast().joined(separator: "\n"), String(lines.last ?? ""))
    }

    /// Sends SIGINT and waits for the process to end.
    static func interrupt(_ process: ServedProcess) -> ServedProcess.Termination {
        process.process.interrupt()
        let deadline = Date().addingTimeInterval(20)
        while process.process.isRunning && Date() < deadline { usleep(10_000) }
        return process.kill()
    }

    static func scratch(_ name: String) throws -> String {
        let directory = NSTemporaryDirectory() + "record-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func curlThroughTheProxyToServedSCPmsIsRecordedReplayedAndDiffedClean() throws {
        let directory = try Self.scratch("scpms")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (served, listed) = try SCPmsServeTests.serve(database: "\(directory)/scpms.sqlite")
        defer { served.stop() }
        // https://demo:password@127.0.0.1:PORT/com.workbench.demo: the client gives the credentials, not the proxy.
        let upstream = try #require(URLComponents(string: listed))
        let out = "\(directory)/recording"
        let (recorder, proxy) = try Self.record([
            "--upstream", "https://127.0.0.1:\(upstream.port ?? 0)", "--upstream-ca", Repository.fixture("tls/ca.pem"), "--listen", "0",
            "--tls", "--out", out,
        ])
        #expect(proxy.hasPrefix("https://127.0.0.1:"))

        let registered = try Self.curl([
            "-u", "demo:password", "-H", "Content-Type: application/json", "-d", #"{"DeviceType":"iOS"}"#,
            "\(proxy)/odata/applications/v1/com.workbench.demo/Connections",
        ])
        #expect(registered.status == "201", "\(registered.body)")
        let id = try #require(registered.body.split(separator: "\"").drop { $0 != "ApplicationConnectionId" }.dropFirst(2).first)
        let read = try Self.curl([
            "-u", "demo:password", "-H", "X-SMP-APPCID: \(id)", "\(proxy)/odata/applications/v1/com.workbench.demo/Connections('\(id)')",
        ])
        #expect(read.status == "200")
        // The registration as a cookie this time: redacted, and taken from the replayed answer's Set-Cookie in the scenario.
        let products = try Self.curl([
            "-u", "demo:password", "-b", "X-SMP-APPCID=\(id)", "\(proxy)/com.workbench.demo/Products?$top=2&$format=json",
        ])
        #expect(products.status == "200")
        #expect(products.body.contains("\"results\""))
        // Secrets in a query and a form: redacted too.
        let form = try Self.curl(["-d", "user=demo&password=hunter2-form", "\(proxy)/login?password=hunter2-query"])
        #expect(form.status != "502")

        #expect(Self.interrupt(recorder) == .exited(0), "\(recorder.output)\(recorder.errorOutput)")
        #expect(recorder.output.contains("recorded 4 exchanges in \(out), secrets redacted"), "\(recorder.output)")

        // The folder: an index and one file per exchange, whole.
        let index = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(out)/index.json"))) as? [String: Any])
        let entries = try #require(index["exchanges"] as? [[String: Any]])
        #expect(entries.map { $0["status"] as? Int } == [201, 200, 200, form.status == "" ? nil : Int(form.status)])
        #expect(entries.map { $0["file"] as? String } == ["0001.json", "0002.json", "0003.json", "0004.json"])
        let first = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(out)/0001.json"))) as? [String: Any])
        let request = try #require(first["request"] as? [String: Any])
        #expect(request["method"] as? String == "POST")
        #expect((request["body"] as? [String: Any])?["text"] as? String == #"{"DeviceType":"iOS"}"#)
        let headers = try #require(request["headers"] as? [[String: String]])
        #expect(headers.contains { $0["name"] == "Authorization" && $0["value"] == "Basic REDACTED" })
        let response = try #require(first["response"] as? [String: Any])
        #expect(response["status"] as? Int == 201)
        #expect(((response["body"] as? [String: Any])?["text"] as? String)?.contains(String(id)) == true)
        #expect(first["durationMs"] is Double)

        // No secret in any file.
        for name in try FileManager.default.contentsOfDirectory(atPath: out) {
            let text = try String(contentsOfFile: "\(out)/\(name)", encoding: .utf8)
            for secret in [Self.demoBasic, "hunter2"] { #expect(!text.contains(secret), "\(name) holds \(secret)") }
        }

        // The recording as a scenario passes against the workbench's own SCPms…
        let scenario = "\(directory)/recording.scn"
        let converted = try WorkbenchBinary.run(["record", "--to-scenario", out, "--actor", "scpms", "--out", scenario])
        #expect(converted.status == 0, "\(converted.output)")
        #expect(converted.stdout.contains("wrote \(scenario): 4 of 4 exchanges as http lines against scpms"))
        let text = try String(contentsOfFile: scenario, encoding: .utf8)
        #expect(text.contains("header \"Authorization\" \"Basic \(Self.demoBasic)\""), "the demo account stands in for the redacted one")
        #expect(text.contains("header \"X-SMP-APPCID\" \"${r1-ApplicationConnectionId}\""), "the id the replayed answer gives: \(text)")
        #expect(text.contains("header \"Cookie\" \"X-SMP-APPCID=${r1-cookie-X-SMP-APPCID}\""), "\(text)")
        let ran = try WorkbenchBinary.run(["run", scenario, "--seed", "1"])
        #expect(ran.status == 0, "\(text)\n\(ran.output)")
        #expect(ran.stdout.split(separator: "\n").last?.hasPrefix("PASS 1 scenario") == true, "\(ran.output)")

        // …and so the diff is clean.
        let diff = try WorkbenchBinary.run(["diff", out, "--against", "scpms"])
        #expect(diff.status == 0, "\(diff.output)")
        #expect(diff.stdout.split(separator: "\n").last?.hasPrefix("SAME ") == true, "\(diff.output)")
    }

    @Test func aBrokenUpstreamGets502AndABadRequest400AndTheProxyKeepsServing() async throws {
        let directory = try Self.scratch("broken")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let closed = try Ports.closed()  // nothing listens there, and nothing can until the test ends
        defer { closed.release() }
        let nothing = closed.port
        let out = "\(directory)/recording"
        let (recorder, proxy) = try Self.record(["--upstream", "http://127.0.0.1:\(nothing)", "--listen", "0", "--out", out])
        let first = try Self.curl(["\(proxy)/hello"])
        #expect(first.status == "502")
        #expect(first.body.contains("could not be reached"), "\(first.body)")

        let port = try #require(URLComponents(string: proxy)?.port)
        let wire = LiveWire()
        let answer = try await RawExchange.send(Array("NOT HTTP AT ALL\r\n\r\n".utf8), to: "127.0.0.1", port: port, from: wire.node("client"))
        try await wire.shutdown()
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 400 "), "\(String(decoding: answer, as: UTF8.self))")

        // A JSON body with secrets in it, at any depth: kept, but not the secrets.
        let again = try Self.curl([
            "-X", "PUT", "-H", "Content-Type: application/json", "-d",
            #"{"user":"demo","password":"hunter2-json","inner":{"clientSecret":"hunter2-inner","n":1}}"#,
            "\(proxy)/again",
        ])
        #expect(again.status == "502")
        // SIGTERM ends it as SIGINT does.
        #expect(recorder.stop() == .exited(0), "\(recorder.errorOutput)")
        #expect(recorder.output.contains("recorded 2 exchanges in \(out) (2 answered by the proxy: the upstream failed them)"), "\(recorder.output)")
        let index = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(out)/index.json"))) as? [String: Any])
        let entries = try #require(index["exchanges"] as? [[String: Any]])
        #expect(entries.map { $0["status"] as? Int } == [502, 502])
        #expect(entries.allSatisfy { ($0["proxyError"] as? String)?.contains("127.0.0.1:\(nothing)") == true })
        let second = try String(contentsOfFile: "\(out)/0002.json", encoding: .utf8)
        #expect(!second.contains("hunter2"), "\(second)")
        let kept = try #require(try JSONSerialization.jsonObject(with: Data(second.utf8)) as? [String: Any])
        #expect(kept["redacted"] as? [String] == ["request.body.json.inner.clientSecret", "request.body.json.password"])
        let body = try #require(((kept["request"] as? [String: Any])?["body"] as? [String: Any])?["text"] as? String)
        #expect(body == #"{"inner":{"clientSecret":"REDACTED","n":1},"password":"REDACTED","user":"demo"}"#)

        // Nothing to replay: --to-scenario says so, and what it writes still parses.
        let converted = try WorkbenchBinary.run(["record", "--to-scenario", out, "--actor", "echo", "--out", "\(directory)/none.scn"])
        #expect(converted.status == 0, "\(converted.output)")
        #expect(converted.stdout.contains("left out 0001.json: the proxy answered it itself"))
    }

    /// ipptool's get-printer-attributes.test, and a case that sends requesting-user-password, through the proxy to
    /// `workbench serve --only mig`: the IPP bodies are decoded, the password attribute and the Basic credentials
    /// redacted, and ipptool passes through the proxy as it does without it.
    @Test func ipptoolThroughTheProxyToServedMiGIsRecordedAndDecoded() throws {
        let directory = try Self.scratch("mig")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let served = try WorkbenchBinary.serve(
            ["--only", "mig", "--set", "mig.plain-port=0", "--set", "mig.tls-port=none", "--state-dir", "\(directory)/state"],
            until: { $0.contains("listening mig ipp://") && $0.hasSuffix("\n") })
        defer { served.stop() }
        let port = try #require(URLComponents(string: try served.lastWord(ofLineStartingWith: "listening mig "))?.port)
        let out = "\(directory)/recording"
        let (recorder, proxy) = try Self.record(["--upstream", "http://127.0.0.1:\(port)", "--listen", "0", "--out", out])
        let proxyPort = try #require(URLComponents(string: proxy)?.port)
        try FileManager.default.copyItem(
            atPath: "/usr/share/cups/ipptool/get-printer-attributes.test", toPath: "\(directory)/get-printer-attributes.test")
        try """
        {
            NAME "Get-Printer-Attributes with a password"
            OPERATION Get-Printer-Attributes
            GROUP operation-attributes-tag
            ATTR charset attributes-charset utf-8
            ATTR naturalLanguage attributes-natural-language en
            ATTR uri printer-uri $uri
            ATTR name requesting-user-name demo
            ATTR text requesting-user-password hunter2-ipp
            ATTR keyword requested-attributes printer-state
            STATUS successful-ok
        }
        """.write(toFile: "\(directory)/password.test", atomically: true, encoding: .utf8)
        let ipptool = try ExternalProcess.run(
            "/usr/bin/ipptool", ["-t", "ipp://demo:demo-password@127.0.0.1:\(proxyPort)/ipp/print", "get-printer-attributes.test", "password.test"],
            currentDirectory: directory, timeout: 60)
        #expect(ipptool.status == 0, "\(ipptool.output)")
        #expect(ipptool.stdout.contains("2 passed, 0 failed"), "\(ipptool.output)")
        #expect(Self.interrupt(recorder) == .exited(0), "\(recorder.errorOutput)")

        let recording = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(out)/index.json"))) as? [String: Any])
        let entries = try #require(recording["exchanges"] as? [[String: Any]])
        // ipptool asks without credentials first and answers MiG's challenge: 401, then 200, per test.
        #expect(entries.map { $0["status"] as? Int } == [401, 200, 401, 200], "\(entries)")
        let last = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(out)/0004.json"))) as? [String: Any])
        let request = try #require((last["request"] as? [String: Any])?["body"] as? [String: Any])
        let ipp = try #require(request["ipp"] as? [String: Any])
        #expect(ipp["code"] as? String == "Get-Printer-Attributes")
        let attributes = (ipp["groups"] as? [[String: Any]])?.flatMap { $0["attributes"] as? [String] ?? [] } ?? []
        #expect(attributes.contains("requesting-user-password (textWithoutLanguage) = REDACTED"), "\(attributes)")
        let answer = try #require(((last["response"] as? [String: Any])?["body"] as? [String: Any])?["ipp"] as? [String: Any])
        #expect(answer["code"] as? String == "successful-ok")
        #expect(last["redacted"] as? [String] == ["request.body.ipp.requesting-user-password", "request.header.authorization"])
        let basic = Data("demo:demo-password".utf8).base64EncodedString()
        for name in try FileManager.default.contentsOfDirectory(atPath: out) {
            let text = try String(contentsOfFile: "\(out)/\(name)", encoding: .utf8)
            #expect(!text.contains(basic) && !text.contains("hunter2"), "\(name) holds a secret")
        }
        // The raw body too (kept as base64): the value is replaced in the bytes.
        let raw = String(decoding: Data(base64Encoded: try #require(request["base64"] as? String)) ?? Data(), as: UTF8.self)
        #expect(raw.contains("requesting-user-password\u{0}\u{8}REDACTED") && !raw.contains("hunter2"))

        // Replayed against MiG under simulation (IPP bodies as body-base64, the redacted credentials as MiG's demo account):
        // the challenge and every IPP attribute agree with what the served MiG answered.
        let diff = try WorkbenchBinary.run(["diff", out, "--against", "mig"])
        #expect(diff.status == 0, "\(diff.output)")
        #expect(diff.stdout.split(separator: "\n").last?.hasPrefix("SAME ") == true, "\(diff.output)")
        #expect(!diff.stdout.contains("not replayed"), "\(diff.output)")
    }

    /// The recordings under Fixtures/recordings/ diff as their known.differences say, so an actor that drifts from what a
    /// real server (or the served actor itself) answered fails here: SCPms against curl's registration through `serve`,
    /// MiG against ipptool's ipp-everywhere.test as CUPS' ippeveprinter answered it (every difference listed and why).
    @Test func theCommittedRecordingsDiffAsTheirKnownDifferencesSay() throws {
        let scpms = try WorkbenchBinary.run(["diff", "Fixtures/recordings/scpms-registration", "--against", "scpms"])
        #expect(scpms.status == 0, "\(scpms.output)")
        #expect(scpms.stdout.split(separator: "\n").last == "SAME 67 fields of 5 exchanges compared: 0 differ", "\(scpms.output)")
        let mig = try WorkbenchBinary.run(["diff", "Fixtures/recordings/ippeveprinter-everywhere", "--against", "mig", "--sign-in"])
        #expect(mig.status == 0, "\(mig.output)")
        #expect(
            mig.stdout.contains(
                "known   0009.ipp.status: recorded client-error-attributes-or-values-not-supported, actor client-error-document-format-not-supported"),
            "\(mig.output)")
        #expect(mig.stdout.split(separator: "\n").last?.hasPrefix("SAME 401 fields of 11 exchanges compared") == true, "\(mig.output)")
        // A private cupsd's raw queue, its /printers/bench replayed at MiG's /ipp/print: every IPP status agrees but the two
        // cancels of jobs cupsd had finished and MiG is still printing (the replay takes no virtual time).
        let cupsd = try WorkbenchBinary.run([
            "diff", "Fixtures/recordings/cupsd-raw-queue", "--against", "mig", "--sign-in", "--map-path", "/printers/bench=/ipp/print",
        ])
        #expect(cupsd.status == 0, "\(cupsd.output)")
        #expect(cupsd.stdout.contains("known   0021.ipp.status: recorded client-error-not-possible, actor successful-ok"), "\(cupsd.output)")
        #expect(cupsd.stdout.split(separator: "\n").last?.hasPrefix("SAME 802 fields of 34 exchanges compared") == true, "\(cupsd.output)")
        // Without --sign-in MiG asks every request for credentials: nothing of the IPP answers agrees.
        let unsigned = try WorkbenchBinary.run(["diff", "Fixtures/recordings/ippeveprinter-everywhere", "--against", "mig"])
        #expect(unsigned.status == 1)
        #expect(unsigned.stdout.contains("DIFFERS 0001.status: recorded 200, actor 401"), "\(unsigned.output)")

        let folder = try Self.scratch("to-scenario")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let converted = try WorkbenchBinary.run([
            "record", "--to-scenario", "Fixtures/recordings/ippeveprinter-everywhere", "--actor", "mig", "--sign-in", "--out",
            "\(folder)/everywhere.scn",
        ])
        #expect(converted.status == 0, "\(converted.output)")
        let text = try String(contentsOfFile: "\(folder)/everywhere.scn", encoding: .utf8)
        #expect(text.contains(#"http POST "http://mig:631/ipp/print" header "Content-Type" "application/ipp""#), "\(text)")
        #expect(text.contains(" body-base64 AQEACwAAAAAB"), "\(text)")
        let run = try WorkbenchBinary.run(["run", "\(folder)/everywhere.scn"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.stdout.contains("32/32 expectations"), "\(run.output)")
        // The IPP statuses are held, but the one known.differences explains, which stays a comment with its reason.
        #expect(text.contains("expect ${r6.ipp-status} == successful-ok"), "\(text)")
        #expect(text.contains("# known difference 0009.ipp.status (Print-Job with document-format of an empty value"), "\(text)")
    }

    @Test func aKnownDifferenceWithStarsExplainsEveryNameItMatches() {
        #expect(KnownDifferences.matches("0011.ipp.printer.media-ready", "0011.ipp.printer.*"))
        #expect(KnownDifferences.matches("0003.ipp.operation.status-message", "*.ipp.operation.status-message"))
        #expect(KnownDifferences.matches("0003.ipp.job[1].job-id", "*.ipp.job[*].job-id"))
        #expect(!KnownDifferences.matches("0011.ipp.status", "0011.ipp.printer.*"))
        #expect(!KnownDifferences.matches("0011.ipp.printer", "0011.ipp.printer.*"))
        #expect(!KnownDifferences.matches("ab", "a*b*b"))
    }

    /// A 6 MB answer comes through whole and is kept (as base64: it is not text); past `--max-body` the client gets 502
    /// for an answer and 413 for a request, and the proxy keeps serving. The upstream is Python's http.server.
    @Test func largeBodiesComeThroughWholeAndTheLimitIsAnswered() throws {
        let directory = try Self.scratch("large")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Bytes that are no text (so kept as base64), made fast: a multiplicative hash of the offset.
        let large = Data((0..<6_000_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
        try FileManager.default.createDirectory(atPath: "\(directory)/www", withIntermediateDirectories: true)
        try large.write(to: URL(fileURLWithPath: "\(directory)/www/large.bin"))
        let port = try Ports.free()
        let upstream = try ServedProcess.start(
            "/usr/bin/python3", ["-m", "http.server", "--bind", "127.0.0.1", "--directory", "\(directory)/www", "\(port)"],
            until: .acceptsConnections(port: port))
        defer { upstream.stop() }

        let out = "\(directory)/recording"
        let (recorder, proxy) = try Self.record([
            "--upstream", "http://127.0.0.1:\(port)", "--listen", "0", "--out", out, "--max-body", "\(8_000_000)",
        ])
        let fetched = try ExternalProcess.run("/usr/bin/curl", ["-sS", "--max-time", "60", "\(proxy)/large.bin"], timeout: 90)
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdoutBytes.count == large.count && Data(fetched.stdoutBytes) == large, "the answer comes through whole")
        // A 6 MB request is under the 8 MB limit: it reaches http.server, which has no POST (501).
        let upload = try ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", "@\(directory)/www/large.bin", "-H",
                "Content-Type: application/octet-stream", "\(proxy)/upload",
            ],
            timeout: 90)
        #expect(upload.stdout == "501", "\(upload.output)")
        #expect(Self.interrupt(recorder) == .exited(0), "\(recorder.errorOutput)")
        let kept = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(out)/0001.json"))) as? [String: Any])
        let body = try #require((kept["response"] as? [String: Any])?["body"] as? [String: Any])
        #expect(body["bytes"] as? Int == large.count)
        #expect((body["base64"] as? String).flatMap { Data(base64Encoded: $0) } == large)

        let (limited, limitedURL) = try Self.record([
            "--upstream", "http://127.0.0.1:\(port)", "--listen", "0", "--out", "\(directory)/limited", "--max-body", "1000000",
        ])
        let answer = try Self.curl(["\(limitedURL)/large.bin"])
        #expect(answer.status == "502")
        #expect(answer.body.contains("exceeds the limit of 1000000 bytes"), "\(answer.body)")
        // Over the limit: 413 before anything goes upstream.
        let request = try Self.curl(["--data-binary", "@\(directory)/www/large.bin", "\(limitedURL)/upload"])
        #expect(request.status == "413", "\(request.body)")
        #expect(try Self.curl(["-o", "/dev/null", "\(limitedURL)/nothing-here"]).status == "404", "the proxy keeps serving")
        #expect(Self.interrupt(limited) == .exited(0))
    }

    /// `--map-path FROM=TO` moves a target under FROM (FROM itself, `FROM/…`, `FROM?…`, never `FROM2`) and, in an IPP
    /// request, the printer-uri: every other byte, the document's included, stays as it was sent.
    @Test func aMappedPathMovesTheTargetAndTheIPPRequestsPrinterURIOnly() throws {
        let mapping = try #require(PathMapping("/printers/bench=/ipp/print"))
        #expect(mapping.moved("/printers/bench") == "/ipp/print")
        #expect(mapping.moved("/printers/bench/jobs/3") == "/ipp/print/jobs/3")
        #expect(mapping.moved("/printers/bench?which=all") == "/ipp/print?which=all")
        #expect(mapping.moved("/printers/bench2") == nil)
        #expect(mapping.moved("/admin") == nil)
        for bad in ["/a", "a=/b", "/a=b", "/a b=/c", "/a?x=/b", "=/b", "/a#b=/c"] { #expect(PathMapping(bad) == nil, "\(bad)") }

        let request = IPPMessage.request(.printJob, requestID: 7) { operation in
            operation.addPrinterURI("ipp://127.0.0.1:631/printers/bench")
            operation.add("requesting-user-name", .name("demo"))
        }
        let document = Array("%PDF-1.4 not a printer-uri".utf8)
        let bytes = try IPPEncoder().encode(request) + document
        let moved = mapping.movedIPPRequest(bytes)
        let (message, offset) = try IPPDecoder().decodeWithDocumentOffset(moved)
        #expect(message.operationAttributes?["printer-uri"]?.stringValue == "ipp://127.0.0.1:631/ipp/print")
        #expect(message.operationAttributes?["requesting-user-name"]?.stringValue == "demo")
        #expect(message.requestID == 7)
        #expect(Array(moved[offset...]) == document)
        #expect(moved.count == bytes.count - "/printers/bench".count + "/ipp/print".count)
        // A request under another path, and bytes that are no IPP, go as they are.
        #expect(try #require(PathMapping("/other=/x")).movedIPPRequest(bytes) == bytes)
        #expect(mapping.movedIPPRequest([1, 1, 0, 11]) == [1, 1, 0, 11])
    }

    /// A `--map-path` that is no FROM=TO, or under which the recording has no request, refers to nothing: refused.
    @Test func aMapPathThatMatchesNothingIsRefused() throws {
        let malformed = try WorkbenchBinary.run(["diff", "Fixtures/recordings/scpms-registration", "--against", "scpms", "--map-path", "printers"])
        #expect(malformed.status == 64)
        #expect(malformed.stderr.contains("--map-path printers: expected FROM=TO"), "\(malformed.output)")
        let unmatched = try WorkbenchBinary.run([
            "diff", "Fixtures/recordings/scpms-registration", "--against", "scpms", "--map-path", "/printers/bench=/ipp/print",
        ])
        #expect(unmatched.status == 2)
        #expect(
            unmatched.stderr.contains("--map-path /printers/bench=/ipp/print: no recorded request is under /printers/bench"), "\(unmatched.output)")
        let recording = try WorkbenchBinary.run(["record", "--upstream", "http://127.0.0.1:1", "--listen", "0", "--out", "x", "--map-path", "/a=/b"])
        #expect(recording.status == 64)
        #expect(recording.stderr.contains("--map-path is for --to-scenario"), "\(recording.output)")
    }

    @Test func badCommandLinesAreUsageErrors() throws {
        for arguments in [
            ["record", "--upstream", "ftp://x", "--listen", "0", "--out", "/tmp/x"],
            ["record", "--upstream", "http://127.0.0.1:1", "--listen", "70000", "--out", "/tmp/x"],
            ["record", "--to-scenario", "/tmp/x", "--out", "/tmp/x.scn"],
            ["record", "--to-scenario", "/tmp/x", "--actor", "scpmz", "--out", "/tmp/x.scn"],
            ["diff", "/tmp/x", "--against", "nope"],
        ] {
            let run = try WorkbenchBinary.run(arguments)
            #expect(run.status == 64, "\(arguments): \(run.output)")
        }
        let missing = try WorkbenchBinary.run(["diff", "/nonexistent-recording", "--against", "scpms"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent-recording: no such folder"))
    }
}
