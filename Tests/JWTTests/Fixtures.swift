import Foundation
import JWT

/// The committed IMS test keys (Fixtures/ims, made by tools/make-ims-keys.sh).
enum IMSFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/ims").standardized

    static func text(_ name: String) -> String {
        (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? "missing fixture \(name)"
    }

    static let hostKey = try! RSAPrivateKey(pem: text("host.key"))
    static let hostCertificate = try! HostCertificate(pem: text("host.pem"))
    static let otherKey = try! RSAPrivateKey(pem: text("other.key"))

    static let claims = JWTClaims(
        issuer: "63d9a389-4ddc-4df1-8dd1-af6a10c7226e", subject: "14",
        id: "BD988B2E-B16A-49B8-8882-9B3C9D35DD84", notBefore: 1_497_577_381, expires: 1_497_578_281)
}
