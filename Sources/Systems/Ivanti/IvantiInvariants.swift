import Foundation
import Kernel
import Scenario
import SystemKit

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
                return
                    "\(event.actor) granted credential \(serial) to \(app), but \(owners[serial].map { "it was stored by \($0)" } ?? "no app stored it")"
            }
        default: break
        }
        return nil
    }
}

/// Looks for recognisable pieces of known private keys in every field of every event.
///
/// It runs after every statement of every run (swarms run thousands), so the search is one pass over each field's
/// bytes: every fragment is keyed by its first eight bytes, and a rolling 64-bit window finds candidates.
final class PrivateKeyWatch: InvariantChecker {
    /// The PEM marker, and recognisable pieces of each key.
    private let fragments: [(key: String, bytes: [UInt8])]
    private let byPrefix: [UInt64: [Int]]

    init(keys: [(name: String, der: [UInt8])]) {
        var fragments: [(String, [UInt8])] = [("PEM", Array("PRIVATE KEY-----".utf8))]
        for (name, der) in keys where der.count >= 64 {
            // The key's bytes may sit at any offset inside a larger encoded blob: base64 of each of the three
            // alignments, plus hex, from the middle of the key (the start is a shared ASN.1 header).
            for shift in 0..<3 {
                let base64 = Data(der.dropFirst(shift)).base64EncodedString()
                let middle = base64.index(base64.startIndex, offsetBy: base64.count / 2)
                let piece = String(base64[middle...].prefix(24))
                fragments.append((name, Array(piece.utf8)))
                fragments.append((name, Array(piece.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").utf8)))
            }
            let middle = der.count / 2
            fragments.append((name, Array(der[middle..<(middle + 12)].map { String(format: "%02x", $0) }.joined().utf8)))
        }
        self.fragments = fragments
        var byPrefix: [UInt64: [Int]] = [:]
        for (index, fragment) in fragments.enumerated() { byPrefix[Self.prefix(fragment.1[...]), default: []].append(index) }
        self.byPrefix = byPrefix
    }

    /// The derived-credential keys the fixtures hold (none if the fixtures are not found: then nothing to look for).
    static var fixtureKeys: [(name: String, der: [UInt8])] {
        guard let directory = try? Fixtures.path("ivanti"),
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory)
        else { return [] }
        return names.filter { $0.hasSuffix(".key.der") }.sorted().compactMap { name in
            FileManager.default.contents(atPath: "\(directory)/\(name)").map { (name, [UInt8]($0)) }
        }
    }

    private static func prefix(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The first fragment found in `value`, if any.
    func find(in value: String) -> String? {
        let bytes = Array(value.utf8)
        guard bytes.count >= 16 else { return nil }
        var window: UInt64 = 0
        for (offset, byte) in bytes.enumerated() {
            window = window << 8 | UInt64(byte)
            guard offset >= 7, let candidates = byPrefix[window] else { continue }
            let start = offset - 7
            for index in candidates {
                let fragment = fragments[index].bytes
                if bytes.count - start >= fragment.count, bytes[start..<(start + fragment.count)].elementsEqual(fragment) {
                    return fragments[index].key
                }
            }
        }
        return nil
    }

    func check(_ newEvents: ArraySlice<Trace.Event>, in context: ScenarioContext) -> InvariantBreach? {
        for index in newEvents.indices {
            let event = newEvents[index]
            for (field, value) in event.fields {
                guard let key = find(in: value) else { continue }
                let what = key == "PEM" ? "a PEM private key" : "the private key \(key) in clear"
                return InvariantBreach("\(event.actor) \(event.event) carries \(what) in its \(field) field", event: index)
            }
        }
        return nil
    }
}
