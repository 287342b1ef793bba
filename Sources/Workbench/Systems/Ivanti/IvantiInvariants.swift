import Foundation
import Kernel
import Scenario

/// What the Ivanti client and AppConnect promise in every run.
extension Invariant {
    static let ivantiInvariants: [Invariant] = [noPrivateKeyInClear, credentialStaysWithItsApp]

    /// Derived credentials cross the bus sealed; their private keys must never show in a URL or any trace field.
    static let noPrivateKeyInClear = Invariant(
        name: "ivanti.no-private-key-in-clear",
        promise: "no private key of a derived credential (Fixtures/ivanti/*.key.der) appears in clear — PEM, base64, base64url or hex — "
            + "in a URL on the bus or any trace field"
    ) { PrivateKeyWatch(keys: PrivateKeyWatch.fixtureKeys) }

    /// The vault answers an app only with the credentials that app stored.
    static let credentialStaysWithItsApp = Invariant.trace(
        "ivanti.credential-stays-with-its-app",
        promise: "the Ivanti client grants a certificate only to the app that stored that credential",
        initial: [String: String]()
    ) { owners, event in
        switch event.event {
        case "credential-stored":
            if let serial = event["serial"], let app = event["app"] { owners[serial] = app }
        case "certificate-granted":
            guard let serial = event["serial"], let app = event["app"] else { return nil }
            if owners[serial] != app {
                return "\(event.actor) granted credential \(serial) to \(app), but \(owners[serial].map { "it was stored by \($0)" } ?? "no app stored it")"
            }
        default: break
        }
        return nil
    }
}

/// Looks for recognisable pieces of known private keys in every field of every event.
final class PrivateKeyWatch: InvariantChecker {
    /// Name → text fragments that only a key in clear would put in a field.
    let fragments: [(key: String, fragment: String)]

    init(keys: [(name: String, der: [UInt8])]) {
        var fragments: [(String, String)] = []
        for (name, der) in keys where der.count >= 64 {
            // The key's bytes may sit at any offset inside a larger encoded blob: base64 of each of the three
            // alignments, plus hex, from the middle of the key (the start is a shared ASN.1 header).
            for shift in 0..<3 {
                let base64 = Data(der.dropFirst(shift)).base64EncodedString()
                let middle = base64.index(base64.startIndex, offsetBy: base64.count / 2)
                let piece = String(base64[middle...].prefix(24))
                fragments.append((name, piece))
                fragments.append((name, piece.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")))
            }
            let middle = der.count / 2
            fragments.append((name, der[middle..<(middle + 12)].map { String(format: "%02x", $0) }.joined()))
        }
        self.fragments = fragments
    }

    /// The derived-credential keys the fixtures hold (none if the fixtures are not found: then nothing to look for).
    static var fixtureKeys: [(name: String, der: [UInt8])] {
        guard let directory = try? Fixtures.path("ivanti"),
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.filter { $0.hasSuffix(".key.der") }.sorted().compactMap { name in
            FileManager.default.contents(atPath: "\(directory)/\(name)").map { (name, [UInt8]($0)) }
        }
    }

    func check(_ newEvents: ArraySlice<Trace.Event>, phase: InvariantPhase, in context: ScenarioContext) -> InvariantBreach? {
        for index in newEvents.indices {
            let event = newEvents[index]
            for (field, value) in event.fields where value.count >= 24 {
                if value.contains("PRIVATE KEY-----") {
                    return InvariantBreach("\(event.actor) \(event.event) carries a PEM private key in its \(field) field", event: index)
                }
                if let hit = fragments.first(where: { value.contains($0.fragment) }) {
                    return InvariantBreach("\(event.actor) \(event.event) carries the private key \(hit.key) in clear in its \(field) field", event: index)
                }
            }
        }
        return nil
    }
}
