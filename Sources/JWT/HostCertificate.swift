import COpenSSL

/// A host's public certificate as IMS receives it: X.509 in PEM, signed with SHA-256 with RSA, holding an
/// RSA key of at least 2048 bits. IMS verifies the host's tokens with the key inside.
public struct HostCertificate: Sendable {
    /// The PEM text as registered.
    public let pem: String
    /// The subject, one line (`/O=Workbench/CN=…`).
    public let subject: String
    /// SHA-256 of the DER certificate, lower-case hex: a stable name for traces and key ids.
    public let fingerprint: String
    /// The key tokens are checked with.
    public let publicKey: RSAPublicKey

    /// Parses and checks a PEM certificate.
    /// - throws: ``JWTError`` `key` saying what is wrong (not PEM, wrong signature algorithm, weak key).
    public init(pem: String) throws(JWTError) {
        guard pem.utf8.count <= 16_384 else {
            throw JWTError(.tooLarge, "the certificate has \(pem.utf8.count) bytes; expected a PEM certificate of at most 16384 bytes")
        }
        guard let certificate = OpenSSLPEM.read(pem, { PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw JWTError(.key, "not a PEM X.509 certificate (-----BEGIN CERTIFICATE-----): \(OpenSSLPEM.lastError())")
        }
        defer { X509_free(certificate) }
        let signatureNID = X509_get_signature_nid(certificate)
        guard signatureNID == NID_sha256WithRSAEncryption else {
            let name = OBJ_nid2ln(signatureNID).map { String(cString: $0) } ?? "unknown"
            throw JWTError(.key, "the certificate is signed with \(name); expected sha256WithRSAEncryption")
        }
        guard let key = X509_get_pubkey(certificate) else {
            throw JWTError(.key, "the certificate has no usable public key: \(OpenSSLPEM.lastError())")
        }
        publicKey = try RSAPublicKey(owning: key)
        self.pem = pem

        if let line = X509_NAME_oneline(X509_get_subject_name(certificate), nil, 0) {
            subject = String(cString: line)
            CRYPTO_free(line, #file, #line)
        } else {
            subject = ""
        }

        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        X509_digest(certificate, EVP_sha256(), &digest, &length)
        fingerprint = digest.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
