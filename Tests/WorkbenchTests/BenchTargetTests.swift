import Foundation
import TestSupport
import Testing

@testable import SystemKit
@testable import Workbench

/// A bench's targets: one rounded figure for text, JSON and verdict; `--check` the only way a missed one fails.
@Suite struct BenchTargetTests {
    /// What every bench of this build says under its figures on standard error: the tests run the binary built
    /// with them.
    static var buildNote: String {
        #if DEBUG
            BenchCheckOption.debugBuildNote + "\n"
        #else
            ""
        #endif
    }

    /// 0.9696 shows as 0.97 and is judged as 0.97: the text never says "0.97, target ≥ 0.97: missed".
    @Test func aFigureIsJudgedAsItIsShown() {
        let target = BenchTarget("sign", measured: 0.9696, .atLeast, 0.97)
        #expect(target.figure == 0.97)
        #expect(target.met)
        #expect(target.textLine == "met     sign: 0.97× (target ≥ 0.97×)")
        #expect(target.json == #"{"target":"sign","figure":0.97,"comparison":"≥","goal":0.97,"met":true}"#)

        let below = BenchTarget("sign", measured: 0.9649, .atLeast, 0.97)
        #expect(below.figure == 0.96 && !below.met)
        #expect(below.textLine == "MISSED  sign: 0.96× (target ≥ 0.97×)")
        #expect(below.json.contains(#""figure":0.96,"#) && below.json.hasSuffix(#""met":false}"#))
    }

    @Test func figuresAreWrittenWithAtMostTwoDecimalsAndNoTrailingZeros() {
        #expect(BenchTarget.text(10) == "10")
        #expect(BenchTarget.text(51.5) == "51.5")
        #expect(BenchTarget.text(3.14159) == "3.14")
        #expect(BenchTarget.text(-0.001) == "0")
        #expect(BenchTarget.text(.infinity) == "null")
        #expect(BenchTarget.text(.nan) == "null")
    }

    @Test func everyComparisonAndABrokenFigure() {
        #expect(BenchTarget("rss", measured: 63.996, .below, 64, unit: " MiB").met == false, "64.00 is not below 64")
        #expect(BenchTarget("rss", measured: 63.99, .below, 64, unit: " MiB").textLine == "met     rss: 63.99 MiB (target < 64 MiB)")
        #expect(BenchTarget("errors", measured: 0, .atMost, 0, unit: "").textLine == "met     errors: 0 (target ≤ 0)")
        #expect(BenchTarget("errors", measured: 3, .atMost, 0, unit: "").met == false)
        // A peer measured at zero gives an infinite ratio: a broken measurement, never a met target.
        let broken = BenchTarget("decode", measured: .infinity, .atLeast, 10)
        #expect(!broken.met)
        #expect(broken.json == #"{"target":"decode","figure":null,"comparison":"≥","goal":10,"met":false}"#)
    }

    @Test func withoutCheckABenchExitsZeroWhateverItsFigures() {
        let missed = [BenchTarget("sign", measured: 0.5, .atLeast, 0.97)]
        #expect(BenchVerdict(missed, checking: false) == BenchVerdict.measured)
        #expect(BenchVerdict([], checking: false) == BenchVerdict.measured)
    }

    @Test func checkExitsOneOnAMissedTargetAndNamesIt() {
        let targets = [
            BenchTarget("sign", measured: 0.98, .atLeast, 0.97),
            BenchTarget("verify", measured: 0.9149, .atLeast, 0.92),
            BenchTarget("ingest peak RSS", measured: 70, .below, 64, unit: " MiB"),
        ]
        let verdict = BenchVerdict(targets, checking: true)
        #expect(verdict.exitCode == 1)
        #expect(verdict.summary == "check: 2 of 3 targets missed: verify 0.91×; ingest peak RSS 70 MiB")

        let met = BenchVerdict(Array(targets.prefix(1)), checking: true)
        #expect(met == BenchVerdict(summary: "check: 1 of 1 targets met", exitCode: 0))
        #expect(BenchVerdict([], checking: true) == BenchVerdict(summary: "check: no targets were checked (this run measured none)", exitCode: 0))
    }

    /// The SCPms bench has no targets and is cheap with one registration: `--check` is accepted, says so on
    /// standard error, and leaves the JSON on standard output alone.
    @Test func aBenchWithoutTargetsAcceptsCheck() throws {
        let checked = try WorkbenchBinary.run(["bench", "scpms", "--count", "1", "--json", "--check"])
        #expect(checked.status == 0, "\(checked.output)")
        #expect(checked.stderr == Self.buildNote + "check: no targets were checked (this run measured none)\n", "\(checked.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(checked.stdout.utf8)) as? [String: Any]
        #expect(object?["session_checks_per_second"] != nil, "\(checked.stdout)")

        let plain = try WorkbenchBinary.run(["bench", "scpms", "--count", "1"])
        #expect(plain.status == 0 && plain.stderr == Self.buildNote, "\(plain.output)")
    }

    /// libcups' build+write peer makes the same bytes from its typed values as the message it was taken from, on
    /// every captured message: otherwise it would not be doing the same work as encode_built.
    @Test func libcupsBuildsEveryCapturedMessageByteForByte() throws {
        let messages = try FileManager.default.contentsOfDirectory(atPath: Repository.fixture("ipp")).filter { $0.hasSuffix(".ipp") }.sorted()
        #expect(messages.count >= 20)
        let run = try WorkbenchBinary.run(
            ["bench", "ipp", "--json", "--rounds", "1", "--batch-ms", "1"]
                + messages.flatMap { ["--input", Repository.fixture("ipp/\($0)")] })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.output)")
        let results = try #require(object["messages"] as? [[String: Any]])
        #expect(results.count == messages.count)
        for result in results {
            #expect(result["libcups_build_write_reproduces_input"] as? Bool == true, "\(result["file"] ?? "?")")
            #expect(result["libcups_build_write_ns_per_message"] as? Double ?? 0 > 0)
        }
    }

    /// An input a bench cannot use is a wrong input (exit 2, nothing measured), not a missed target (1) nor a
    /// usage error (64).
    @Test func anUnusableInputFileExitsTwo() throws {
        let missing = try WorkbenchBinary.run(["bench", "ipp", "--input", "/nonexistent/message.ipp", "--check"])
        #expect(missing.status == 2, "\(missing.output)")
        #expect(missing.stderr == "error: cannot read /nonexistent/message.ipp\n", "\(missing.stderr)")
        let notAKey = try WorkbenchBinary.run(["bench", "jwt", "--key", "Simulations/tour.scn"])
        #expect(notAKey.status == 2, "\(notAKey.output)")
        #expect(notAKey.stderr.hasPrefix("error: Simulations/tour.scn: not an RSA private key in PEM: "), "\(notAKey.stderr)")
    }

    /// The JWT bench against `openssl speed`, one short round: whatever the figures (a debug build is slow), the
    /// exit status under `--check` follows the verdicts the JSON shows, and without `--check` it is 0.
    @Test func jwtBenchExitsAsItsJSONVerdictsSay() throws {
        let arguments = ["bench", "jwt", "--seconds", "1", "--rounds", "1", "--no-alternative", "--json"]
        let checked = try WorkbenchBinary.run(arguments + ["--check"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(checked.stdout.utf8)) as? [String: Any], "\(checked.output)")
        let targets = try #require(object["targets"] as? [[String: Any]])
        #expect(targets.map { $0["target"] as? String } == ["sign, ours / openssl speed", "verify, ours / openssl speed"])
        let missed = targets.filter { $0["met"] as? Bool == false }
        #expect(checked.status == (missed.isEmpty ? 0 : 1), "\(checked.output)")
        #expect(
            checked.stderr.hasPrefix(Self.buildNote + (missed.isEmpty ? "check: 2 of 2 targets met" : "check: \(missed.count) of 2 targets missed")),
            "\(checked.stderr)")

        let measured = try WorkbenchBinary.run(arguments)
        #expect(measured.status == 0, "\(measured.output)")
        #expect(measured.stderr == Self.buildNote, "\(measured.stderr)")
    }
}

extension BenchVerdict {
    static let measured = BenchVerdict(summary: nil, exitCode: 0)
}
