import COpenSSL
import Crypto
import Foundation
import NIOCore
import NIOSSH

/// SSH transport protection with AES in counter mode and HMAC-SHA2-256 (RFC 4344, RFC 6668; encrypt-and-MAC as in
/// RFC 4253 §6.4) — what libssh2 clients offer: curl's `sftp://`/`scp://` and the iOS app's NMSSH, which speak no
/// AES-GCM. swift-nio-ssh bundles only AES-GCM; this plugs in through its public `NIOSSHTransportProtection`.
///
/// AES runs in OpenSSL's EVP (in place, one context per direction, so the counter carries on from packet to packet);
/// the MAC covers the sequence number and the whole unencrypted packet and is compared in constant time.
class AESCTRTransportProtection {
    class var cipherName: String { fatalError("subclasses name their cipher") }
    class var keySizes: ExpectedKeySizes { fatalError("subclasses give their key sizes") }
    class var cipher: OpaquePointer? { fatalError("subclasses give their EVP cipher") }

    private var inbound: OpaquePointer
    private var outbound: OpaquePointer
    private var inboundMACKey: SymmetricKey
    private var outboundMACKey: SymmetricKey

    required init(initialKeys: NIOSSHSessionKeys) throws {
        guard let inbound = EVP_CIPHER_CTX_new(), let outbound = EVP_CIPHER_CTX_new() else { throw TransportError("out of memory") }
        self.inbound = inbound
        self.outbound = outbound
        self.inboundMACKey = initialKeys.inboundMACKey
        self.outboundMACKey = initialKeys.outboundMACKey
        try updateKeys(initialKeys)
    }

    deinit {
        EVP_CIPHER_CTX_free(inbound)
        EVP_CIPHER_CTX_free(outbound)
    }

    struct TransportError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

extension AESCTRTransportProtection: NIOSSHTransportProtection {
    static var macName: String? { "hmac-sha2-256" }
    static var cipherBlockSize: Int { 16 }
    var macBytes: Int { 32 }
    /// The length is encrypted too (only AEAD schemes leave it in the clear).
    var lengthEncrypted: Bool { true }

    func updateKeys(_ keys: NIOSSHSessionKeys) throws {
        let sizes = Self.keySizes
        guard keys.inboundEncryptionKey.bitCount == sizes.encryptionKeySize * 8, keys.outboundEncryptionKey.bitCount == sizes.encryptionKeySize * 8,
            keys.initialInboundIV.count >= 16, keys.initialOutboundIV.count >= 16,
            keys.inboundMACKey.bitCount == sizes.macKeySize * 8, keys.outboundMACKey.bitCount == sizes.macKeySize * 8
        else {
            throw TransportError("key exchange produced keys of the wrong size for \(Self.cipherName)")
        }
        for (context, key, iv) in [
            (inbound, keys.inboundEncryptionKey, keys.initialInboundIV), (outbound, keys.outboundEncryptionKey, keys.initialOutboundIV),
        ] {
            let ok = key.withUnsafeBytes { key in
                iv.withUnsafeBufferPointer { iv in
                    EVP_EncryptInit_ex(context, Self.cipher, nil, key.bindMemory(to: UInt8.self).baseAddress, iv.baseAddress)
                }
            }
            guard ok == 1 else { throw TransportError("OpenSSL refused the AES-CTR key") }
        }
        inboundMACKey = keys.inboundMACKey
        outboundMACKey = keys.outboundMACKey
    }

    func decryptFirstBlock(_ source: inout ByteBuffer) throws {
        try Self.apply(inbound, to: &source, at: source.readerIndex, length: 16)
    }

    func decryptAndVerifyRemainingPacket(_ source: inout ByteBuffer, sequenceNumber: UInt32) throws -> ByteBuffer {
        guard let length = source.getInteger(at: source.readerIndex, as: UInt32.self) else {
            throw TransportError("a packet too short to hold its length")
        }
        let packetBytes = 4 + Int(length)
        guard packetBytes >= 16, packetBytes % 16 == 0, source.readableBytes == packetBytes + macBytes else {
            throw TransportError("an encrypted packet of \(packetBytes) bytes is not a whole number of 16-byte blocks, or its MAC is missing")
        }
        try Self.apply(inbound, to: &source, at: source.readerIndex + 16, length: packetBytes - 16)
        let start = source.readerIndex
        let expected = Self.mac(inboundMACKey, sequenceNumber, source.viewBytes(at: start, length: packetBytes)!)
        let received = source.viewBytes(at: start + packetBytes, length: macBytes)!
        guard received.count == expected.count, zip(received, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 else {
            throw TransportError("hmac-sha2-256 does not match: the packet was altered or the keys disagree")
        }
        guard let padding = source.getInteger(at: start + 4, as: UInt8.self), padding >= 4, Int(padding) <= Int(length) - 1 else {
            throw TransportError("the packet's padding is shorter than 4 bytes or longer than the packet")
        }
        let payload = source.getSlice(at: start + 5, length: Int(length) - 1 - Int(padding))!
        source.moveReaderIndex(forwardBy: packetBytes + macBytes)
        return payload
    }

    func encryptPacket(_ destination: inout ByteBuffer, sequenceNumber: UInt32) throws {
        let start = destination.readerIndex
        let count = destination.readableBytes
        let tag = Self.mac(outboundMACKey, sequenceNumber, destination.viewBytes(at: start, length: count)!)
        try Self.apply(outbound, to: &destination, at: start, length: count)
        destination.writeBytes(tag)
    }

    /// AES-CTR over `length` bytes at `index`, in place (counter mode encrypts and decrypts alike).
    private static func apply(_ context: OpaquePointer, to buffer: inout ByteBuffer, at index: Int, length: Int) throws {
        guard length > 0 else { return }
        let offset = index - buffer.readerIndex
        let ok = buffer.withUnsafeMutableReadableBytes { bytes -> Bool in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), offset >= 0, offset + length <= bytes.count else { return false }
            var written: Int32 = 0
            let pointer = base + offset
            return EVP_EncryptUpdate(context, pointer, &written, pointer, Int32(length)) == 1 && Int(written) == length
        }
        guard ok else { throw TransportError("AES-CTR failed on a \(length)-byte block run") }
    }

    private static func mac(_ key: SymmetricKey, _ sequence: UInt32, _ bytes: ByteBufferView) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: key)
        withUnsafeBytes(of: sequence.bigEndian) { hmac.update(data: $0) }
        bytes.withUnsafeBytes { hmac.update(data: $0) }
        return Array(hmac.finalize())
    }
}

/// `aes128-ctr` with `hmac-sha2-256`.
final class AES128CTRTransportProtection: AESCTRTransportProtection, @unchecked Sendable {
    // @unchecked Sendable: NIOSSH uses a connection's protection only on that connection's loop.
    override class var cipherName: String { "aes128-ctr" }
    override class var keySizes: ExpectedKeySizes { ExpectedKeySizes(ivSize: 16, encryptionKeySize: 16, macKeySize: 32) }
    override class var cipher: OpaquePointer? { EVP_aes_128_ctr() }
}

/// `aes256-ctr` with `hmac-sha2-256`.
final class AES256CTRTransportProtection: AESCTRTransportProtection, @unchecked Sendable {
    // @unchecked Sendable: NIOSSH uses a connection's protection only on that connection's loop.
    override class var cipherName: String { "aes256-ctr" }
    override class var keySizes: ExpectedKeySizes { ExpectedKeySizes(ivSize: 16, encryptionKeySize: 32, macKeySize: 32) }
    override class var cipher: OpaquePointer? { EVP_aes_256_ctr() }
}
