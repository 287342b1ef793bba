import Foundation
import X509

/// Checks the client certificate a TLS proxy forwards in `SSL_CLIENT_CERT` (as the original deployment's nginx does):
/// issued and signed by MiG's client CA and valid now on the printer's clock.
public struct ClientCertificateCheck: Sendable {
    let authority: Certificate

    /// - parameter caPEM: the CA that issues client certificates (PEM).
    public init(caPEM: String) throws {
        authority = try Certificate(pemEncoded: caPEM)
    }

    /// The forwarded certificate's subject, or why it is not acceptable.
    public func check(forwarded header: String, now: Date) -> Result<String, CertificateProblem> {
        let pem = Self.unfold(header)
        guard !pem.isEmpty else { return .failure(.missing) }
        guard let certificate = try? Certificate(pemEncoded: pem) else {
            return .failure(.unreadable("the forwarded client certificate is not a PEM X.509 certificate"))
        }
        return check(certificate, now: now)
    }

    /// The subject of a certificate presented in a TLS handshake (DER), or why it is not acceptable.
    public func check(der: [UInt8], now: Date) -> Result<String, CertificateProblem> {
        guard let certificate = try? Certificate(derEncoded: der) else {
            return .failure(.unreadable("the client certificate presented in the TLS handshake is not an X.509 certificate"))
        }
        return check(certificate, now: now)
    }

    private func check(_ certificate: Certificate, now: Date) -> Result<String, CertificateProblem> {
        guard certificate.issuer == authority.subject,
            authority.publicKey.isValidSignature(certificate.signature, for: certificate)
        else {
            return .failure(.untrusted("the client certificate \(certificate.subject) is not issued by \(authority.subject)"))
        }
        // As OpenSSL's "sslclient" purpose: a certificate restricted to other uses (a server's) is refused.
        if let usage = try? certificate.extensions.extendedKeyUsage, !usage.contains(.clientAuth) {
            return .failure(.untrusted("the certificate \(certificate.subject) is not issued for client authentication"))
        }
        guard certificate.notValidBefore <= now, now <= certificate.notValidAfter else {
            return .failure(
                .untrusted(
                    "the client certificate \(certificate.subject) is not valid now (valid \(certificate.notValidBefore) to \(certificate.notValidAfter))"
                ))
        }
        return .success(certificate.subject.description)
    }

    /// nginx's `$ssl_client_cert` folds the PEM with a tab before each continuation line, and
    /// `$ssl_client_escaped_cert` percent-encodes it; accept both, and a PEM sent as-is.
    static func unfold(_ header: String) -> String {
        var text = header.removingPercentEncoding ?? header
        text = text.replacingOccurrences(of: "\t", with: "\n")
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        // A PEM squeezed onto one line (spaces instead of newlines): rebuild its lines.
        if lines.count == 1, let line = lines.first, line.hasPrefix("-----BEGIN CERTIFICATE-----") {
            let body = line.replacingOccurrences(of: "-----BEGIN CERTIFICATE-----", with: "")
                .replacingOccurrences(of: "-----END CERTIFICATE-----", with: "")
                .split(separator: " ").joined(separator: "\n")
            return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----"
        }
        return lines.joined(separator: "\n")
    }
}

/// Why a client certificate was not accepted.
public enum CertificateProblem: Error, Sendable, CustomStringConvertible {
    case missing
    /// An `SSL_CLIENT_CERT` header without the proxy's secret: anyone can type a public certificate into a header.
    case notFromProxy
    case unreadable(String)
    case untrusted(String)

    public var description: String {
        switch self {
        case .missing:
            "no client certificate: present one in the TLS handshake on MiG's IPPS port, or come through MiG's TLS proxy, which forwards it"
        case .notFromProxy:
            "a forwarded SSL_CLIENT_CERT is believed only from MiG's TLS proxy (which adds the deployment's X-MiG-Proxy-Secret); this request did not come through it"
        case .unreadable(let why), .untrusted(let why): why
        }
    }
}
