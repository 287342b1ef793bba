import Foundation
import NIOSSL

/// How the session manager answers the server-trust challenge of an `https://` backend.
///
/// The original session manager answers every `NSURLAuthenticationMethodServerTrust` challenge with `URLCredential(trust:)` —
/// any certificate — and says so is for testing only. That is ``acceptAnyCertificate`` here, and the session
/// manager puts a warning in the trace when it does; ``caFile(_:)`` is what the original's comment recommends
/// instead (install the certificate): only servers whose chain ends at that CA, for the URL's host name.
public enum SCPmsServerTrust: Sendable, Equatable {
    /// Any certificate, as the original (for testing only): the session manager puts a `scpms-warning` in the
    /// trace at its first `https://` exchange.
    case acceptAnyCertificate
    /// Trust only certificates issued by the CA in this PEM file.
    case caFile(String)
    /// The system's trust store.
    case systemDefault

    /// The name used in directives and traces: `any`, `ca`, `system`.
    public var name: String {
        switch self {
        case .acceptAnyCertificate: "any"
        case .caFile: "ca"
        case .systemDefault: "system"
        }
    }

    func context() throws(SCPmsSessionError) -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        switch self {
        case .acceptAnyCertificate:
            tls.certificateVerification = .none
        case .caFile(let path):
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw SCPmsSessionError(.unknownNetworkError, "the trusted CA file \(path) cannot be read")
            }
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
            } catch {
                throw SCPmsSessionError(.unknownNetworkError, "the trusted CA file \(path) is not a PEM certificate: \(error)")
            }
        case .systemDefault:
            break
        }
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw SCPmsSessionError(.unknownNetworkError, "the TLS settings are unusable: \(error)")
        }
    }
}
