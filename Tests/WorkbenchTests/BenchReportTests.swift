import Foundation
import IPP
import JWT
import TestSupport
import Testing

@testable import IMSSystem
@testable import MiGSystem
@testable import SystemKit
@testable import Workbench

/// What `bench jwt` and `bench ipp` print: every figure the same in the text as in the JSON, the back ends named by
/// the signer and verifier that ran, `--flamegraph` refused without the figure it profiles.
@Suite struct BenchReportTests {
    /// Figures halfway between two roundings, where two formatters would disagree.
    static func jwtReport() throws -> JWTBenchReport {
        let key = try RSAPrivateKey(pem: String(contentsOfFile: Repository.fixture("ims/host.key"), encoding: .utf8))
        var report = JWTBenchReport(
            cpu: CPU(model: "Test CPU", hasAVX512IFMA: true), seconds: 1, rounds: 3, backEnds: (key.backEnd, key.publicKey.backEnd),
            alternativeBackEnds: ("swift-crypto", "openssl-evp"))
        report.ours = .init(perSecond: [.sign: 4070.5, .verify: 61_499.5, .verifySignatureOnly: 65_200.49, .parse: 1_000_000.5], tokenBytes: 582)
        report.alternative = .init(perSecond: [.sign: 1726.5, .verify: 51_500.5, .verifySignatureOnly: 52_000.5], tokenBytes: 582)
        report.speed = OpenSSLSpeed.Result(sign: 4130.5, verify: 61_500.5)
        return report
    }

    @Test func theJWTBenchShowsEachFigureTheSameInTextAndJSON() throws {
        let report = try Self.jwtReport()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        // The JSON's own text of each figure (not a re-formatting of the parsed number) must be in the text.
        let rates = report.fields.filter { $0.0.hasSuffix("_per_second") || $0.0.hasSuffix("_per_token") }
        #expect(rates.count == 10)
        for (key, shown) in rates {
            #expect(report.json.contains("\"\(key)\":\(shown),"))
            #expect(
                report.text.contains(" \(shown)/s") || report.text.contains("= \(shown) ns"), "\(key) = \(shown) is not in the text:\n\(report.text)")
        }
        #expect(json["sign_per_second"] as? Int == 4071 && json["parse_ns_per_token"] as? Double == 1000)
        #expect(report.text.contains("parsing alone 1000001/s = 1000.0 ns per token"))
        let targets = try #require(json["targets"] as? [[String: Any]])
        #expect(targets.count == 2)
        for target in targets {
            let figure = try #require(target["figure"] as? NSNumber).stringValue
            #expect(report.text.contains("\(try #require(target["target"] as? String)): \(figure)×"))
        }
    }

    /// The JSON names the back end of each operation as the key types name themselves: OpenSSL EVP signs, swift-crypto
    /// verifies; the alternative's figures are keyed by their back ends.
    @Test func theJWTBenchNamesTheBackEndOfEachOperation() throws {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(Self.jwtReport().json.utf8)) as? [String: Any])
        #expect(json["sign_backend"] as? String == "openssl-evp")
        #expect(json["verify_backend"] as? String == "swift-crypto")
        #expect(json["swift_crypto_sign_per_second"] as? Int == 1727)
        #expect(json["openssl_evp_verify_per_second"] as? Int == 51_501)
        #expect(json["cpu"] as? String == "Test CPU" && json["avx512ifma"] as? Bool == true)
        #expect(try Self.jwtReport().text.contains("JWT core (sign openssl-evp, verify swift-crypto)"))
    }

    @Test func theIPPBenchShowsEachFigureTheSameInTextAndJSON() throws {
        let bench = try IPPBench.parse(["--no-libcups"])
        let path = Repository.fixture("ipp/get-printer-attributes-01-get-printer-attributes-request.ipp")
        let bytes = try #require(FileManager.default.contents(atPath: path).map(Array.init))
        let message = try IPPDecoder().decode(bytes)
        let subject = IPPBench.Subject(
            label: "small request", path: path, bytes: bytes, message: message, tree: .init(message), builtReproducesInput: true)
        // 0.15, 2.25 and 1234.45 are where "%.1f" and a rounding of the value times ten part ways.
        let result = IPPBench.Result(
            subject: subject, iterations: 1,
            nanoseconds: [.decode: 0.15, .decodeFresh: 7.05, .decodeTree: 2.25, .encode: 1234.45, .encodeBuilt: 99.95],
            allocations: [.decode: 0.05, .decodeFresh: 1, .decodeTree: 12.25, .encode: 1, .encodeBuilt: 3.35])
        let text = bench.textReport([result], targets: [])
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(bench.jsonReport([result], targets: []).utf8)) as? [String: Any])
        let figures = try #require((json["messages"] as? [[String: Any]])?.first)
        for work in IPPBench.Work.allCases {
            let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("  \(work.rawValue) ") }).split(separator: " ")
            let nanoseconds = try #require(figures["\(work.rawValue)_ns_per_message"] as? NSNumber)
            let allocations = try #require(figures["\(work.rawValue)_allocations_per_message"] as? NSNumber)
            #expect(String(row[1]) == IPPBench.shown(nanoseconds.doubleValue), "\(work)")
            #expect(String(row[2]) == IPPBench.shown(allocations.doubleValue), "\(work)")
        }
        #expect(IPPBench.shown(0.15) == IPPBench.shown(0.15 * 1))
        #expect(text.contains("  decode_tree                 2.3"))
    }

    @Test func flamegraphNeedsTheFigureItProfilesAndAnSVGName() {
        #expect(throws: (any Error).self) { try JWTBench.parse(["--flamegraph", "out.svg"]) }
        #expect(throws: (any Error).self) { try IPPBench.parse(["--flamegraph", "out.svg"]) }
        #expect(throws: (any Error).self) { try JWTBench.parse(["--only", "sign", "--flamegraph", "out.png"]) }
        #expect(throws: Never.self) { try JWTBench.parse(["--only", "sign", "--flamegraph", "out.svg"]) }
        #expect(throws: Never.self) { try IPPBench.parse(["--only", "decode_tree", "--flamegraph", "out.svg"]) }
    }

    @Test func perfIsLookedUpOnThePathAndItsPackageNamedWhenMissing() throws {
        #expect(FlameGraphRecording.perf(onPath: "/nonexistent:/also-not") == nil)
        #expect(FlameGraphRecording.perfMissing.contains("linux-perf"))
        let directory = NSTemporaryDirectory() + "bench-report-perf-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try #require(
            FileManager.default.createFile(atPath: "\(directory)/perf", contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        #expect(FlameGraphRecording.perf(onPath: "/nonexistent:\(directory)") == "\(directory)/perf")
    }

    /// The whole path on the built binary: the figure re-run under perf, folded, drawn. Needs perf (linux-perf, in
    /// tools/apt-packages.txt) and a kernel that lets it record.
    @Test(.enabled(if: FlameGraphRecording.perf(onPath: ProcessInfo.processInfo.environment["PATH"]) != nil, "perf is not installed"))
    func flamegraphRecordsTheChosenFigure() throws {
        let file = NSTemporaryDirectory() + "bench-jwt-parse-\(getpid()).svg"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try WorkbenchBinary.run(["bench", "jwt", "--only", "parse", "--seconds", "1", "--flamegraph", file], timeout: 600)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.stdout.contains("parsing alone") && run.stderr.contains("flame graph of parse: \(file)"))
        let svg = try String(contentsOfFile: file, encoding: .utf8)
        #expect(svg.hasPrefix("<?xml") && svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        // The timed loop's frames, demangled.
        #expect(svg.contains("JWT.SignedJWT.init(compact: String)"))
    }

    @Test func withoutPerfTheBenchSaysWhichPackageToInstall() throws {
        let run = try ExternalProcess.run(
            Repository.workbenchBinary.path, ["bench", "jwt", "--only", "parse", "--flamegraph", "/tmp/never-written.svg"],
            environment: ["PATH": "/nonexistent"], currentDirectory: Repository.root.path)
        #expect(run.status == 1)
        #expect(run.stderr.contains("install Debian's linux-perf"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never-written.svg"))
    }
}
