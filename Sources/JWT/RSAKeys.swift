import COpenSSL
import Crypto
import _CryptoExtras

/// An RSA private key signing RS256.
///
/// OpenSSL's libcrypto reads and checks the PEM (PKCS#8 or PKCS#1, RSA of at least 2048 bits, with its error
/// texts) and signs: OpenSSL 3 uses the CPU's AVX-512 IFMA multiplier where there is one, which BoringSSL (swift-crypto)
/// does not — 2.4× faster on such a CPU, equal on others (`workbench bench jwt`). The key is parsed once and each thread
/// signs with its own context (``SigningContexts``), so no lock is taken per token.
public final class RSAPrivateKey: RS256Signing, @unchecked Sendable {
    // @unchecked Sendable: `key` is never changed after init, and OpenSSL 3 lets threads share an EVP_PKEY; what a
    // signature mutates is the calling thread's own context.
    private let key: OpaquePointer
    private let keyID = SigningContexts.newKeyID()

    /// The key's size in bits.
    public let bits: Int

    /// The matching public key.
    public let publicKey: RSAPublicKey

    /// Loads a PEM private key (PKCS#8 or PKCS#1). Only RSA keys of at least 2048 bits are accepted.
    public init(pem: String) throws(JWTError) {
        guard let parsed = OpenSSLPEM.read(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            throw JWTError(.key, "not a PEM private key: \(OpenSSLPEM.lastError())")
        }
        do {
            bits = try RSAKeyCheck.admit(parsed, kind: "private")
            // The public half for verifying, as swift-crypto's (which verifies fastest; see RSAPublicKey).
            let half = try RSAKeyCheck.convert(
                parsed, kind: "public", export: { i2d_PUBKEY($0, &$1) },
                as: { try _RSA.Signing.PublicKey(derRepresentation: $0) })
            publicKey = RSAPublicKey(half, bits: bits)
        } catch {
            EVP_PKEY_free(parsed)
            throw error
        }
        key = parsed
    }

    deinit { EVP_PKEY_free(key) }

    public var backEnd: String { "openssl-evp" }

    public func signature(for signingInput: UnsafeBufferPointer<UInt8>) throws(JWTError) -> [UInt8] {
        guard let context = SigningContexts.context(keyID: keyID, key: key) else {
            throw JWTError(.key, "RSA signing failed: cannot set up an OpenSSL signing context: \(OpenSSLPEM.lastError())")
        }
        let digest = SHA256.hash(data: UnsafeRawBufferPointer(signingInput))
        var status: Int32 = 0
        let signature = [UInt8](unsafeUninitializedCapacity: (bits + 7) / 8) { buffer, written in
            var length = buffer.count
            status = digest.withUnsafeBytes { EVP_PKEY_sign(context, buffer.baseAddress, &length, $0.baseAddress, $0.count) }
            written = status == 1 ? length : 0
        }
        guard status == 1 else { throw JWTError(.key, "RSA signing failed: \(OpenSSLPEM.lastError())") }
        return signature
    }
}

/// An RSA public key verifying RS256, with swift-crypto's BoringSSL `_RSA` (chosen by measurement: it checks
/// signatures faster than OpenSSL 3's EVP_PKEY_verify, on CPUs with and without AVX-512 IFMA; thread-safe).
public final class RSAPublicKey: RS256Verifying, Sendable {
    private let key: _RSA.Signing.PublicKey
    public let bits: Int

    /// Loads a PEM public key (`BEGIN PUBLIC KEY`).
    public convenience init(pem: String) throws(JWTError) {
        guard let key = OpenSSLPEM.read(pem, { PEM_read_bio_PUBKEY($0, nil, nil, nil) }) else {
            throw JWTError(.key, "not a PEM public key: \(OpenSSLPEM.lastError())")
        }
        try self.init(owning: key)
    }

    /// Takes ownership of `key` (freed when done, on failure too).
    init(owning key: OpaquePointer) throws(JWTError) {
        defer { EVP_PKEY_free(key) }
        bits = try RSAKeyCheck.admit(key, kind: "public")
        self.key = try RSAKeyCheck.convert(
            key, kind: "public", export: { i2d_PUBKEY($0, &$1) },
            as: { try _RSA.Signing.PublicKey(derRepresentation: $0) })
    }

    init(_ key: _RSA.Signing.PublicKey, bits: Int) {
        self.key = key
        self.bits = bits
    }

    public var backEnd: String { "swift-crypto" }

    public func isValidSignature(_ signature: [UInt8], for signingInput: UnsafeBufferPointer<UInt8>) -> Bool {
        guard signature.count == (bits + 7) / 8 else { return false }
        return key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature),
            for: SHA256.hash(data: UnsafeRawBufferPointer(signingInput)), padding: .insecurePKCS1v1_5)
    }

    /// The key as PEM (`BEGIN PUBLIC KEY`), e.g. for PyJWT.
    public var pem: String { key.pemRepresentation }
}

/// What an RS256 key must be, checked on OpenSSL's parse of it.
enum RSAKeyCheck {
    /// The key's bits, if it is RSA of at least 2048 bits.
    static func admit(_ key: OpaquePointer, kind: String) throws(JWTError) -> Int {
        let bits = EVP_PKEY_get_bits(key)
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA, bits >= 2048 else {
            throw JWTError(.key, "the \(kind) key is not RSA of at least 2048 bits (\(bits) bits); expected an RSA-2048 key")
        }
        return Int(bits)
    }

    /// The OpenSSL key as swift-crypto's, through the DER that `export` writes (i2d_PrivateKey or i2d_PUBKEY).
    static func convert<Key>(
        _ key: OpaquePointer, kind: String,
        export: (OpaquePointer, inout UnsafeMutablePointer<UInt8>?) -> Int32,
        as make: (UnsafeBufferPointer<UInt8>) throws -> Key
    ) throws(JWTError) -> Key {
        var der: UnsafeMutablePointer<UInt8>?
        let count = export(key, &der)
        defer { CRYPTO_free(der, #file, #line) }
        guard count > 0, let der else { throw JWTError(.key, "cannot export the \(kind) key: \(OpenSSLPEM.lastError())") }
        do {
            return try make(UnsafeBufferPointer(start: der, count: Int(count)))
        } catch {
            throw JWTError(.key, "swift-crypto refuses the \(kind) key: \(error)")
        }
    }
}

/// Reading PEM from memory and reporting libcrypto's errors.
enum OpenSSLPEM {
    static func read<T>(_ pem: String, _ reader: (OpaquePointer) -> T?) -> T? {
        var text = pem
        return text.withUTF8 { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return reader(bio)
        }
    }

    /// The oldest queued libcrypto error as text (and clears the queue).
    static func lastError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "no detail from libcrypto" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
