import Foundation
import NIOCore
import NIOSSL

/// Builds the client's TLS context from its configuration, loading the PKCS#12 identity up front so a wrong
/// password is reported when the client is made, not in the middle of a print.
enum MiGTLS {
    static func context(for configuration: MiGClient.Configuration) throws(MiGError) -> NIOSSLContext? {
        guard configuration.endpoint.usesTLS else {
            if configuration.clientIdentity != nil {
                throw .invalidConfiguration(
                    "a client certificate needs TLS: use an ipps:// or https:// URL instead of \(configuration.endpoint)")
            }
            return nil
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        switch configuration.trust {
        case .systemDefault:
            break
        case .caPEM(let pem):
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(pem))
            } catch {
                throw .invalidConfiguration("the trusted CA is not a PEM certificate: \(error)")
            }
        case .caFile(let path):
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw .invalidConfiguration("the trusted CA file \(path) cannot be read")
            }
            tls.trustRoots = .file(path)
        case .acceptAnyCertificate:
            tls.certificateVerification = .none
        }
        switch configuration.clientIdentity {
        case .pkcs12(let file, let password)?:
            let bundle = try loadPKCS12(file: file, password: password)
            tls.certificateChain = bundle.certificateChain.map { .certificate($0) }
            tls.privateKey = .privateKey(bundle.privateKey)
        case .der(let chain, let key, let source)?:
            let (certificates, privateKey) = try loadDER(chain: chain, key: key, source: source)
            tls.certificateChain = certificates.map { .certificate($0) }
            tls.privateKey = .privateKey(privateKey)
        case nil:
            break
        }
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw .invalidConfiguration("the TLS settings are unusable: \(error)")
        }
    }

    /// Reads an in-memory identity, checking that the key belongs to the leaf certificate (a mismatch would
    /// otherwise surface as a handshake the server refuses, far from its cause).
    static func loadDER(chain: [[UInt8]], key: [UInt8], source: String) throws(MiGError) -> ([NIOSSLCertificate], NIOSSLPrivateKey) {
        guard !chain.isEmpty else { throw .clientCertificate(file: source, problem: .unusable("no certificate")) }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try chain.map { try NIOSSLCertificate(bytes: $0, format: .der) }
        } catch {
            throw .clientCertificate(file: source, problem: .unusable("a certificate is not DER X.509 (\(withoutSourceLocations("\(error)")))"))
        }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(bytes: key, format: .der)
        } catch {
            throw .clientCertificate(file: source, problem: .unusable("the private key is not DER (\(withoutSourceLocations("\(error)")))"))
        }
        do {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateChain = [.certificate(certificates[0])]
            tls.privateKey = .privateKey(privateKey)
            // Only the key pairing is checked here: without roots of its own the context would load the system's
            // whole CA bundle (10% of a swarm's time, one load per print with a derived credential).
            tls.trustRoots = .certificates([])
            _ = try NIOSSLContext(configuration: tls)
        } catch {
            throw .clientCertificate(
                file: source, problem: .unusable("the private key is not the certificate's (\(withoutSourceLocations("\(error)")))"))
        }
        return (certificates, privateKey)
    }

    /// Opens a password-protected PKCS#12 file, telling a missing file, a wrong password and a bad file apart.
    static func loadPKCS12(file: String, password: String) throws(MiGError) -> NIOSSLPKCS12Bundle {
        guard FileManager.default.isReadableFile(atPath: file) else {
            let reason = FileManager.default.fileExists(atPath: file) ? "permission denied" : "no such file"
            throw .clientCertificate(file: file, problem: .unreadable(reason))
        }
        do {
            return try NIOSSLPKCS12Bundle(file: file, passphrase: Array(password.utf8))
        } catch {
            let text = String(describing: error)
            // BoringSSL reports a failed MAC check or key decryption as INCORRECT_PASSWORD.
            if text.contains("INCORRECT_PASSWORD") || text.contains("BAD_DECRYPT") {
                throw .clientCertificate(file: file, problem: .wrongPassword)
            }
            throw .clientCertificate(file: file, problem: .invalid(text))
        }
    }

    /// Names a TLS failure by whose certificate was the problem.
    static func classify(_ error: any Error) -> MiGError {
        let text = withoutSourceLocations(String(describing: error))
        if text.contains("WRONG_VERSION_NUMBER") {
            return .tls("the server did not answer in TLS (wrong version number): this port speaks plain HTTP; use ipp:// or http://")
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return .tlsUntrustedServer("the certificate does not name this host (\(text))")
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("unableToValidateCertificate") {
            return .tlsUntrustedServer(text)
        }
        // Alerts the server sends about the client's certificate (TLS 1.2 servers say handshake_failure when a
        // required certificate is missing; TLS 1.3 ones say certificate_required).
        let clientCertificateAlerts = [
            "ALERT_BAD_CERTIFICATE", "ALERT_CERTIFICATE_REQUIRED", "ALERT_UNKNOWN_CA", "ALERT_CERTIFICATE_UNKNOWN",
            "ALERT_CERTIFICATE_EXPIRED", "ALERT_CERTIFICATE_REVOKED", "ALERT_UNSUPPORTED_CERTIFICATE",
            "ALERT_ACCESS_DENIED", "ALERT_HANDSHAKE_FAILURE",
        ]
        if clientCertificateAlerts.contains(where: text.contains) {
            return .tlsClientCertificateRejected(text)
        }
        return .tls(text)
    }

    /// BoringSSL's texts name the source file of the build (`… at /path/to/tls_record.cc:127`): that says
    /// nothing to the app's user and would make a trace depend on where the package was built.
    static func withoutSourceLocations(_ text: String) -> String {
        text.replacing(#/ at [^\s\]\)]+:\d+/#, with: "")
    }

    static func isTLSError(_ error: any Error) -> Bool {
        error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError
    }
}
