import ArgumentParser
import Foundation
import JWT
import SystemKit

/// `workbench bench jwt`: whole-token RS256 sign and verify per second (encode or parse, signature, claims),
/// next to `openssl speed rsa2048` measured in the same run, for both crypto back ends of each operation: the JWT
/// core signs on OpenSSL 3 (EVP_PKEY_sign, a context per thread) and verifies on swift-crypto's BoringSSL `_RSA`; the
/// alternative swaps them (swift-crypto signing, OpenSSL's EVP_PKEY_verify with a context set up once), so the
/// choice can be checked on any CPU. The JSON names each back end, the CPU and whether it has AVX-512 IFMA (which
/// OpenSSL's RSA uses and BoringSSL's does not).
struct JWTBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwt",
        abstract: "Whole-JWT RS256 sign/verify per second vs `openssl speed rsa2048` (run in the same process run).",
        discussion: """
            Figures, per CPU-second of the measuring thread (as openssl speed counts):
              sign                   encode the claims and header, sign (the core's signer), base64url: a whole token.
              verify                 a whole token: parse, signature check (the core's verifier), validity window.
              verify_signature_only  the signature check alone (SHA-256 and RSA), no parsing.
              parse                  parsing alone: split, base64url, strict JSON header and claims; no crypto.
            Targets: sign >= 0.97x and verify >= 0.97x openssl speed rsa2048's sign/s and verify/s, same run.
            --only FIGURE measures one figure of the core (no peer, no targets); with --flamegraph FILE.svg it is
            recorded under perf record -g and drawn as a flame graph.
            """)

    /// The figures, by their JSON names.
    enum Figure: String, CaseIterable, ExpressibleByArgument {
        case sign, verify
        case verifySignatureOnly = "verify_signature_only"
        case parse
    }

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Option(help: "CPU-seconds per timed measurement (openssl speed gets the same).")
    var seconds = 1

    @Option(help: "Rounds; each runs every measurement once, interleaved with openssl speed, and the best round counts.")
    var rounds = 3

    @Option(help: "The RSA-2048 private key (PEM) to sign with (default: Fixtures/ims/host.key).")
    var key: String?

    @Flag(help: "Skip the alternative back ends (swift-crypto signing, OpenSSL verifying).")
    var noAlternative = false

    @Option(help: "Measure only this figure of the core (sign, verify, verify_signature_only, parse): no peer, no targets.")
    var only: Figure?

    @OptionGroup var flame: FlameGraphOption

    @OptionGroup var check: BenchCheckOption

    func validate() throws {
        guard (1...60).contains(seconds) else { throw ValidationError("--seconds \(seconds): expected 1…60") }
        guard (1...100).contains(rounds) else { throw ValidationError("--rounds \(rounds): expected 1…100") }
        try flame.validate(only: only?.rawValue, figures: Figure.allCases.map(\.rawValue))
    }

    func run() throws {
        if let file = flame.flamegraph, let only {
            var arguments = ["bench", "jwt", "--only", only.rawValue, "--seconds", "\(seconds)", "--rounds", "1"]
            if let key { arguments += ["--key", key] }
            if json { arguments.append("--json") }
            let recorded = try FlameGraphRecording.record(
                arguments, callGraph: flame.callGraph, title: "workbench bench jwt: \(only.rawValue)", to: file)
            print(recorded.output, terminator: "")
            printError("flame graph of \(only.rawValue): \(file) (\(recorded.samples) samples)")
            return try check.finish([])
        }
        let keyFile = try self.key ?? Fixtures.path("ims/host.key")
        guard let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
            throw ExitStatus.inputWrong("cannot read \(keyFile); pass --key FILE")
        }
        let core: RSAPrivateKey
        let alternative: (signer: SwiftCryptoRS256Signer, verifier: OpenSSLEVPRS256Verifier)
        do {
            core = try RSAPrivateKey(pem: pem)
            alternative = (try SwiftCryptoRS256Signer(pem: pem), try OpenSSLEVPRS256Verifier(pem: pem))
        } catch {
            throw ExitStatus.inputWrong("\(keyFile): not an RSA private key in PEM: \(error)")
        }
        var report = JWTBenchReport(
            cpu: .current, seconds: seconds, rounds: only == nil ? rounds : 1,
            backEnds: (core.backEnd, core.publicKey.backEnd), alternativeBackEnds: (alternative.signer.backEnd, alternative.verifier.backEnd))
        let figures = only.map { [$0] } ?? Figure.allCases
        // Interleaved rounds, best of each: on a shared machine (a hyperthread sibling busy with a build)
        // every figure is sometimes depressed; the best round is the one least disturbed, for every side.
        for _ in 0..<report.rounds {
            report.ours.keepBest(try measure(figures, signer: core, verifier: core.publicKey))
            guard only == nil else { break }
            if !noAlternative {
                report.alternative.keepBest(
                    try measure([.sign, .verify, .verifySignatureOnly], signer: alternative.signer, verifier: alternative.verifier))
            }
            report.speed.keepBest(try OpenSSLSpeed.run(seconds: seconds))
        }
        print(json ? report.json : report.text)
        try check.finish(report.targets)
    }

    /// The claims every token of the bench carries: the original example's, with a key id.
    static let prototype = JWTPrototype(
        header: JWTHeader(keyID: "host-1"),
        claims: JWTClaims(
            issuer: "63d9a389-4ddc-4df1-8dd1-af6a10c7226e", subject: "14",
            id: "BD988B2E-B16A-49B8-8882-9B3C9D35DD84", notBefore: 1_497_577_381, expires: 1_497_578_281))

    /// Each of `figures` for `seconds` of CPU time with these back ends.
    private func measure(_ figures: [Figure], signer: some RS256Signing, verifier: some RS256Verifying) throws -> JWTBenchReport.Figures {
        let prototype = Self.prototype
        let token = try prototype.signed(with: signer)
        let checker = JWTVerifier()
        let now = prototype.claims.notBefore
        _ = try checker.verify(token, now: now) { _, _ in verifier }
        let parsed = try SignedJWT(compact: token)

        var rates = JWTBenchReport.Figures(tokenBytes: token.utf8.count)
        var sink = 0
        for figure in figures {
            rates.perSecond[figure] =
                switch figure {
                case .sign: try rate { sink &+= try prototype.signed(with: signer).utf8.count }
                case .verify: try rate { sink &+= try checker.verify(token, now: now, key: { _, _ in verifier }).signature.count }
                case .verifySignatureOnly:
                    try rate {
                        guard parsed.hasValidSignature(verifier) else { throw WorkbenchError("the signature check failed in the timed loop") }
                        sink &+= 1
                    }
                case .parse: try rate { sink &+= try SignedJWT(compact: token).signature.count }
                }
        }
        if sink == 42 { print("", terminator: "") }  // keeps the work from being optimised away
        return rates
    }

    /// Operations per CPU-second of this thread over about `seconds` of CPU time, in batches so the clock
    /// is read rarely. CPU time, not wall time, because that is what `openssl speed` divides by (its default
    /// "user time"; `-elapsed` would switch it to wall time): on a machine shared with builds, wall-clock
    /// rates would measure the neighbours.
    /// An error in the loop ends the bench: a failed operation must never count as a fast one.
    private func rate(_ body: () throws -> Void) throws -> Double {
        for _ in 0..<20 { try body() }  // warm-up
        let limit = Double(seconds)
        let start = threadCPUSeconds()
        var count = 0
        var batch = 16
        while threadCPUSeconds() - start < limit {
            for _ in 0..<batch { try body() }
            count += batch
            batch = min(batch * 2, 256)
        }
        return Double(count) / (threadCPUSeconds() - start)
    }

    private func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
