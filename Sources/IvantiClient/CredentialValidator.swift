import DerivedCredential
import Foundation
import X509

/// The checks the Ivanti client makes before it vaults a credential: the structural rules of the core, then
/// the ones that need X.509 and a clock — every certificate parses as DER X.509, every PKCS#8 private key
/// belongs to its certificate, and the dates make sense at `now` (the node's calendar time).
enum CredentialValidator {
    /// The first problem of `payload` at `now` (Unix seconds), or `nil` if it can be stored.
    static func problem(in payload: CredentialPayload, now: Int64) -> CredentialProblem? {
        if let problem = payload.structuralProblem() { return problem }
        if payload.expirationDate <= now {
            return CredentialProblem(.credentialExpired, "the credential expired at \(text(payload.expirationDate)); it is now \(text(now))")
        }
        if payload.expirationDate - now > CredentialLimits.maxLifetimeSeconds {
            return CredentialProblem(
                .expiryTooFar, "the credential expires at \(text(payload.expirationDate)), more than 20 years from now (\(text(now)))")
        }
        let moment = Date(timeIntervalSince1970: TimeInterval(now))
        for entry in payload.certificates {
            let certificate: Certificate
            do {
                certificate = try Certificate(derEncoded: entry.certificate)
            } catch {
                return CredentialProblem(.badCertificate, "the \(entry.tag) certificate is not a DER X.509 certificate (\(error))")
            }
            let privateKey: Certificate.PrivateKey
            do {
                privateKey = try Certificate.PrivateKey(derBytes: entry.privateKey)
            } catch {
                return CredentialProblem(
                    .badPrivateKey, "the \(entry.tag) private key is not a PKCS#8 DER key of EC P-256/P-384/P-521, RSA or Ed25519 (\(error))")
            }
            guard privateKey.publicKey == certificate.publicKey else {
                return CredentialProblem(
                    .keyMismatch, "the \(entry.tag) private key does not match the public key of its certificate '\(certificate.subject)'")
            }
            if certificate.notValidAfter <= moment {
                return CredentialProblem(
                    .certificateExpired, "the \(entry.tag) certificate expired at \(text(certificate.notValidAfter)); it is now \(text(now))")
            }
            if certificate.notValidBefore > moment {
                return CredentialProblem(
                    .certificateNotYetValid,
                    "the \(entry.tag) certificate is valid only from \(text(certificate.notValidBefore)); it is now \(text(now))")
            }
        }
        return nil
    }

    private static func text(_ seconds: Int64) -> String { text(Date(timeIntervalSince1970: TimeInterval(seconds))) }

    private static func text(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
