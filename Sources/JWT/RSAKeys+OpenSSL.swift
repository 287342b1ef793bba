import COpenSSL
import Synchronization

/// An RSA private key in OpenSSL's libcrypto, signing RS256.
///
/// OpenSSL was chosen by measurement over swift-crypto's BoringSSL `_RSA.Signing` (see `workbench bench
/// jwt`): its RSA-2048 private-key operation is about 2.4 times as fast on x86-64 (BoringSSL signs at
/// about 0.4× `openssl speed`), while whole-token verification is within about 10% (BoringSSL slightly
/// ahead), so one back end serves both and both targets are met with it. The context is set up
/// once and reused, as `openssl speed` does, because building one per token costs more than hashing it.
/// The context does PKCS#1 v1.5 padding only; the DigestInfo for SHA-256 is added here (see
/// ``RSAContexts/withDigestInfo(_:_:)``), which skips the provider's per-call digest bookkeeping.
public final class RSAPrivateKey: RS256Signing, @unchecked Sendable {
    // @unchecked Sendable: `key` is immutable after init and OpenSSL allows concurrent use of an EVP_PKEY;
    // the mutable signing context is only touched under `context`'s lock.
    private let key: OpaquePointer
    private let context: Mutex<EVPContext>

    /// The key's size in bits.
    public let bits: Int

    /// Loads a PEM private key (PKCS#8 or PKCS#1). Only RSA keys of at least 2048 bits are accepted.
    public init(pem: String) throws(JWTError) {
        guard let key = OpenSSLPEM.read(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) else {
            throw JWTError(.key, "not a PEM private key: \(OpenSSLPEM.lastError())")
        }
        let admitted = try RSAContexts.admit(key, kind: "private", forSigning: true)
        self.key = key
        bits = admitted.bits
        context = Mutex(admitted.context)
    }

    deinit {
        context.withLock { EVP_PKEY_CTX_free($0.pointer) }
        EVP_PKEY_free(key)
    }

    public func signature(for signingInput: UnsafeBufferPointer<UInt8>) throws(JWTError) -> [UInt8] {
        var length = (bits + 7) / 8
        var signature = [UInt8](repeating: 0, count: length)
        let status = RSAContexts.withDigestInfo(signingInput) { digest in
            context.withLock { context in EVP_PKEY_sign(context.pointer, &signature, &length, digest.baseAddress, digest.count) }
        }
        guard status == 1 else { throw JWTError(.key, "RSA signing failed: \(OpenSSLPEM.lastError())") }
        if length != signature.count { signature.removeLast(signature.count - length) }
        return signature
    }

    /// The matching public key.
    public var publicKey: RSAPublicKey {
        // Round-trips through DER so the public key owns its own EVP_PKEY.
        var der: UnsafeMutablePointer<UInt8>?
        let count = i2d_PUBKEY(key, &der)
        defer { CRYPTO_free(der, #file, #line) }
        var cursor = UnsafePointer(der)
        // A key that just signed always has a public half: failure here is a broken libcrypto.
        let copy = d2i_PUBKEY(nil, &cursor, Int(count))!
        return try! RSAPublicKey(owning: copy)
    }
}

/// An RSA public key in OpenSSL's libcrypto, verifying RS256.
public final class RSAPublicKey: RS256Verifying, @unchecked Sendable {
    // @unchecked Sendable: as for RSAPrivateKey — the key is immutable, the context is behind a lock.
    private let key: OpaquePointer
    private let context: Mutex<EVPContext>
    public let bits: Int

    /// Loads a PEM public key (`BEGIN PUBLIC KEY`).
    public convenience init(pem: String) throws(JWTError) {
        guard let key = OpenSSLPEM.read(pem, { PEM_read_bio_PUBKEY($0, nil, nil, nil) }) else {
            throw JWTError(.key, "not a PEM public key: \(OpenSSLPEM.lastError())")
        }
        try self.init(owning: key)
    }

    /// Takes ownership of `key` (freed on failure too).
    init(owning key: OpaquePointer) throws(JWTError) {
        let admitted = try RSAContexts.admit(key, kind: "public", forSigning: false)
        self.key = key
        bits = admitted.bits
        context = Mutex(admitted.context)
    }

    deinit {
        context.withLock { EVP_PKEY_CTX_free($0.pointer) }
        EVP_PKEY_free(key)
    }

    public func isValidSignature(_ signature: [UInt8], for signingInput: UnsafeBufferPointer<UInt8>) -> Bool {
        guard signature.count == (bits + 7) / 8 else { return false }
        let status = RSAContexts.withDigestInfo(signingInput) { digest in
            context.withLock { context in
                signature.withUnsafeBufferPointer { EVP_PKEY_verify(context.pointer, $0.baseAddress, $0.count, digest.baseAddress, digest.count) }
            }
        }
        if status != 1 { ERR_clear_error() }
        return status == 1
    }

    /// The key as PEM (`BEGIN PUBLIC KEY`), e.g. for PyJWT.
    public var pem: String {
        let bio = BIO_new(BIO_s_mem())!
        defer { BIO_free(bio) }
        PEM_write_bio_PUBKEY(bio, key)
        return OpenSSLPEM.drain(bio)
    }
}

/// An EVP_PKEY_CTX, which OpenSSL lets one thread use at a time.
struct EVPContext: @unchecked Sendable {
    // @unchecked Sendable: only ever used inside the owning key's Mutex.
    let pointer: OpaquePointer
}

/// EVP contexts configured once for RS256.
enum RSAContexts {
    /// Checks that `key` is RSA of at least 2048 bits and sets up its RS256 context; frees `key` on failure.
    static func admit(_ key: OpaquePointer, kind: String, forSigning: Bool) throws(JWTError) -> (bits: Int, context: EVPContext) {
        let bits = EVP_PKEY_get_bits(key)
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA, bits >= 2048 else {
            EVP_PKEY_free(key)
            throw JWTError(.key, "the \(kind) key is not RSA of at least 2048 bits (\(bits) bits); expected an RSA-2048 key")
        }
        guard let context = make(key, forSigning: forSigning) else {
            EVP_PKEY_free(key)
            throw JWTError(.key, "cannot set up RS256 \(forSigning ? "signing" : "verification"): \(OpenSSLPEM.lastError())")
        }
        return (Int(bits), EVPContext(pointer: context))
    }

    static func make(_ key: OpaquePointer, forSigning: Bool) -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new(key, nil) else { return nil }
        let ready = (forSigning ? EVP_PKEY_sign_init(context) : EVP_PKEY_verify_init(context)) == 1
            && EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
        guard ready else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return context
    }

    /// DER `DigestInfo` of SHA-256 (RFC 8017 §9.2): the fixed prefix, then the hash of `bytes` — exactly
    /// what RSASSA-PKCS1-v1_5 with SHA-256 signs.
    /// The DigestInfo is built on the stack: it lives only for the one RSA operation.
    static func withDigestInfo<R>(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 51) { info in
            let prefix: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
                (0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20)
            withUnsafeBytes(of: prefix) { raw in
                for index in 0..<19 { info[index] = raw[index] }
            }
            SHA256(bytes.baseAddress, bytes.count, info.baseAddress! + 19)
            return body(UnsafeBufferPointer(info))
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

    static func drain(_ bio: OpaquePointer) -> String {
        var pointer: UnsafeMutablePointer<CChar>?
        let count = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &pointer)
        guard count > 0, let pointer else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: Int(count)), as: UTF8.self)
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
