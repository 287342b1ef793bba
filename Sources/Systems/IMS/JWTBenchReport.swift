import JSONEscaping
import SystemKit

/// What `bench jwt` measured and how it is shown. Every figure is formatted once (``JWTBenchReport/shown(_:)``), and
/// the text and the JSON both print that string, so they never disagree on a rounding.
struct JWTBenchReport {
    /// One side's rates per CPU-second, by figure (only those measured).
    struct Figures {
        var perSecond: [JWTBench.Figure: Double] = [:]
        var tokenBytes = 0

        /// The better of two rounds, figure by figure.
        mutating func keepBest(_ round: Figures) {
            perSecond.merge(round.perSecond) { max($0, $1) }
            tokenBytes = round.tokenBytes
        }

        subscript(_ figure: JWTBench.Figure) -> Double? { perSecond[figure] }
    }

    let cpu: CPU
    let seconds: Int
    let rounds: Int
    /// The core's back ends: (sign, verify), as the signer and verifier name themselves.
    let backEnds: (sign: String, verify: String)
    /// The other back end of each operation.
    let alternativeBackEnds: (sign: String, verify: String)
    var ours = Figures()
    var alternative = Figures()
    var speed: OpenSSLSpeed.Result?

    /// A rate as both outputs print it: whole operations per second.
    static func shown(_ rate: Double) -> String { rate.isFinite ? String(Int(rate.rounded())) : "null" }

    /// Nanoseconds per token of a rate, to one decimal: parsing is read in time per token (the aim is ≤ 1 µs).
    static func nanoseconds(_ rate: Double) -> String {
        guard rate > 0, rate.isFinite else { return "null" }
        let tenths = Int((1e10 / rate).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// Sign and verify against openssl speed, when both were measured.
    var targets: [BenchTarget] {
        guard let speed, let sign = ours[.sign], let verify = ours[.verify] else { return [] }
        return [
            BenchTarget("sign, ours / openssl speed", measured: sign / speed.sign, .atLeast, Self.signGoal),
            BenchTarget("verify, ours / openssl speed", measured: verify / speed.verify, .atLeast, Self.verifyGoal),
        ]
    }

    /// Targets: whole-token sign and verify per second against `openssl speed rsa2048`'s bare RSA operations.
    static let signGoal = 0.97
    static let verifyGoal = 0.97

    /// `openssl-evp` as a JSON key's start: `openssl_evp`.
    private static func key(_ backEnd: String) -> String { String(backEnd.map { $0 == "-" ? "_" : $0 }) }

    /// The figures in JSON order: (key, shown value); absent figures are left out.
    var fields: [(String, String)] {
        var fields: [(String, String)] = [
            ("cpu", JSONString.quoted(cpu.model)), ("cores", "\(cpu.cores)"), ("avx512ifma", "\(cpu.hasAVX512IFMA)"),
            ("sign_backend", JSONString.quoted(backEnds.sign)), ("verify_backend", JSONString.quoted(backEnds.verify)),
        ]
        for figure in JWTBench.Figure.allCases {
            if let rate = ours[figure] { fields.append(("\(figure.rawValue)_per_second", Self.shown(rate))) }
        }
        if let parse = ours[.parse] { fields.append(("parse_ns_per_token", Self.nanoseconds(parse))) }
        if let speed {
            fields += [("openssl_speed_sign_per_second", Self.shown(speed.sign)), ("openssl_speed_verify_per_second", Self.shown(speed.verify))]
        }
        fields += [("token_bytes", "\(ours.tokenBytes)"), ("seconds", "\(seconds)"), ("rounds", "\(rounds)")]
        if let sign = alternative[.sign] { fields.append(("\(Self.key(alternativeBackEnds.sign))_sign_per_second", Self.shown(sign))) }
        if let verify = alternative[.verify] { fields.append(("\(Self.key(alternativeBackEnds.verify))_verify_per_second", Self.shown(verify))) }
        if let only = alternative[.verifySignatureOnly] {
            fields.append(("\(Self.key(alternativeBackEnds.verify))_verify_signature_only_per_second", Self.shown(only)))
        }
        fields.append(("targets", BenchTarget.jsonArray(targets)))
        return fields
    }

    var json: String { "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}" }

    var text: String {
        func figure(_ side: Figures, _ figure: JWTBench.Figure, _ label: String) -> String? {
            side[figure].map { "\(label) \(Self.shown($0))/s" }
        }
        var lines = [
            "whole-token RS256 (\(ours.tokenBytes)-byte token), one thread, per CPU-second like openssl speed; "
                + "best of \(rounds) interleaved round\(rounds == 1 ? "" : "s") of \(seconds) s; "
                + "CPU \(cpu.model), \(cpu.cores) cores, \(cpu.hasAVX512IFMA ? "with" : "without") AVX-512 IFMA"
        ]
        var core = [figure(ours, .sign, "sign"), figure(ours, .verify, "verify")].compactMap { $0 }.joined(separator: "   ")
        let parts = [
            figure(ours, .verifySignatureOnly, "signature check alone"),
            ours[.parse].map { "parsing alone \(Self.shown($0))/s = \(Self.nanoseconds($0)) ns per token" },
        ].compactMap { $0 }
        if !parts.isEmpty { core += (core.isEmpty ? "" : "   ") + "(" + parts.joined(separator: ", ") + ")" }
        lines.append("  JWT core (sign \(backEnds.sign), verify \(backEnds.verify)):  \(core)")
        if alternative[.sign] != nil || alternative[.verify] != nil {
            let other = [figure(alternative, .sign, "sign"), figure(alternative, .verify, "verify")].compactMap { $0 }.joined(separator: "   ")
            let alone = figure(alternative, .verifySignatureOnly, "signature check alone").map { "   (\($0))" } ?? ""
            lines.append("  the other back ends (sign \(alternativeBackEnds.sign), verify \(alternativeBackEnds.verify)):  \(other)\(alone)")
        }
        if let speed {
            lines.append(
                "  openssl speed -seconds \(seconds) rsa2048 (best of \(rounds)): sign \(Self.shown(speed.sign))/s   verify \(Self.shown(speed.verify))/s"
            )
        }
        let targets = targets
        if !targets.isEmpty { lines.append("Targets:") }
        for target in targets { lines.append("  " + target.textLine) }
        return lines.joined(separator: "\n")
    }
}

extension OpenSSLSpeed.Result? {
    /// The better of two rounds, sign and verify each.
    mutating func keepBest(_ round: OpenSSLSpeed.Result) {
        self = OpenSSLSpeed.Result(sign: max(round.sign, self?.sign ?? 0), verify: max(round.verify, self?.verify ?? 0))
    }
}
