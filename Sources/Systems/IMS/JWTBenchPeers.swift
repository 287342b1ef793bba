import ArgumentParser
import COpenSSL
import Crypto
import JWT
import Synchronization
import SystemKit
import _CryptoExtras

/// `openssl speed -seconds N rsa2048`, run as a child process, read by its column headers.
enum OpenSSLSpeed {
    struct Result: Equatable {
        var sign: Double
        var verify: Double
    }

    static func run(seconds: Int) throws -> Result {
        let text: String
        do {
            text = try ChildProcess.output(["openssl", "speed", "-seconds", String(seconds), "rsa2048"])
        } catch {
            throw ValidationError("\(error) (tools/setup.sh installs the openssl package)")
        }
        return try parse(text)
    }

    /// The sign/s and verify/s of the RSA-2048 row, found by the header of the table the row is in.
    ///
    /// OpenSSL 3.0 and 3.1 print `sign verify sign/s verify/s` over `rsa 2048 bits 0.000252s 0.000015s 3970.2 67600.1`;
    /// 3.2 and later print `keygen signs verify keygens/s sign/s verify/s` over `rsa2048 …` with six numbers, after
    /// a key-encapsulation table whose rows are also labelled `rsa2048`. Reading columns by name survives both;
    /// taking the last two numbers of the line would read the wrong figures from 3.2 on.
    static func parse(_ text: String) throws -> Result {
        var header: [Substring] = []
        for line in text.split(separator: "\n") {
            let tokens = line.split(separator: " ")
            let isHeader = tokens.contains { $0.hasSuffix("/s") } && !tokens.contains { Double($0.trimmingSuffix("s")) != nil }
            if isHeader {
                header = tokens
                continue
            }
            let label = tokens.starts(with: ["rsa", "2048", "bits"]) ? 3 : tokens.first == "rsa2048" ? 1 : 0
            guard label > 0, let signColumn = header.firstIndex(of: "sign/s"), let verifyColumn = header.firstIndex(of: "verify/s")
            else { continue }
            let values = tokens.dropFirst(label).map { Double($0.trimmingSuffix("s")) }
            guard values.count == header.count, let sign = values[signColumn], let verify = values[verifyColumn] else {
                throw ValidationError("cannot read openssl speed's RSA-2048 line \"\(line)\" under the header \"\(header.joined(separator: " "))\"")
            }
            return Result(sign: sign, verify: verify)
        }
        throw ValidationError("no RSA-2048 line under a sign/s verify/s header in the output of openssl speed:\n\(text)")
    }
}

extension Substring {
    /// The text without one trailing `suffix` character (openssl speed writes times as `0.000252s`).
    fileprivate func trimmingSuffix(_ suffix: Character) -> Substring { last == suffix ? dropLast() : self }
}

/// The alternative for verifying, OpenSSL 3's libcrypto behind the JWT core's protocol: an EVP_PKEY_CTX set up once
/// for PKCS#1 v1.5 and reused under a lock, and the SHA-256 DigestInfo built here.
final class OpenSSLEVPRS256Verifier: RS256Verifying, @unchecked Sendable {
    // @unchecked Sendable: the key is immutable; the context is only used under its lock.
    private let publicKey: OpaquePointer
    private let verifying: Mutex<Context>

    /// An EVP_PKEY_CTX, which OpenSSL lets one thread use at a time.
    struct Context: @unchecked Sendable {
        // @unchecked Sendable: only ever used inside its Mutex.
        let pointer: OpaquePointer
    }
    private let bytes: Int

    init(pem: String) throws {
        var text = pem
        guard
            let key = text.withUTF8({ utf8 -> OpaquePointer? in
                guard let bio = BIO_new_mem_buf(utf8.baseAddress, Int32(utf8.count)) else { return nil }
                defer { BIO_free(bio) }
                return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
            })
        else { throw WorkbenchError("OpenSSL cannot read the private key") }
        defer { EVP_PKEY_free(key) }
        // The public half as its own EVP_PKEY, through DER.
        var der: UnsafeMutablePointer<UInt8>?
        let count = i2d_PUBKEY(key, &der)
        defer { CRYPTO_free(der, #file, #line) }
        var cursor = UnsafePointer(der)
        guard count > 0, let publicKey = d2i_PUBKEY(nil, &cursor, Int(count)) else { throw WorkbenchError("OpenSSL cannot export the public key") }
        guard let context = EVP_PKEY_CTX_new(publicKey, nil), EVP_PKEY_verify_init(context) == 1,
            EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
        else {
            EVP_PKEY_free(publicKey)
            throw WorkbenchError("OpenSSL cannot set up an RS256 verifying context")
        }
        self.publicKey = publicKey
        verifying = Mutex(Context(pointer: context))
        bytes = Int(EVP_PKEY_get_size(publicKey))
    }

    deinit {
        verifying.withLock { EVP_PKEY_CTX_free($0.pointer) }
        EVP_PKEY_free(publicKey)
    }

    var backEnd: String { "openssl-evp" }

    func isValidSignature(_ signature: [UInt8], for signingInput: UnsafeBufferPointer<UInt8>) -> Bool {
        guard signature.count == bytes else { return false }
        let status = Self.withDigestInfo(signingInput) { digest in
            verifying.withLock { context in
                signature.withUnsafeBufferPointer { EVP_PKEY_verify(context.pointer, $0.baseAddress, $0.count, digest.baseAddress, digest.count) }
            }
        }
        if status != 1 { ERR_clear_error() }
        return status == 1
    }

    /// DER DigestInfo of SHA-256 (RFC 8017 §9.2), on the stack: the fixed prefix, then the hash.
    private static let digestInfoPrefix: [UInt8] = [
        0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03,
        0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20,
    ]

    private static func withDigestInfo<R>(_ input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        // A static prefix: an array literal here would allocate once per timed operation of the alternative.
        let prefix = digestInfoPrefix
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 51) { info in
            guard let base = info.baseAddress else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            for index in 0..<19 { base[index] = prefix[index] }
            SHA256(input.baseAddress, input.count, base + 19)
            return body(UnsafeBufferPointer(info))
        }
    }
}

/// The alternative for signing, swift-crypto's BoringSSL `_RSA` (what the core signed with before OpenSSL measured
/// faster on CPUs with AVX-512 IFMA).
struct SwiftCryptoRS256Signer: RS256Signing {
    private let key: _RSA.Signing.PrivateKey

    init(pem: String) throws { key = try _RSA.Signing.PrivateKey(pemRepresentation: pem) }

    var backEnd: String { "swift-crypto" }

    func signature(for signingInput: UnsafeBufferPointer<UInt8>) throws(JWTError) -> [UInt8] {
        do {
            return Array(
                try key.signature(for: SHA256.hash(data: UnsafeRawBufferPointer(signingInput)), padding: .insecurePKCS1v1_5).rawRepresentation)
        } catch {
            throw JWTError(.key, "swift-crypto RSA signing failed: \(error)")
        }
    }
}
