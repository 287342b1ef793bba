import Crypto
import NIOCore
import NIOSSH
import Testing

@testable import Sunfire

/// The AES-CTR + HMAC-SHA2-256 transport on its own: a packet sealed by one side opens on the other, packet after
/// packet (the counter carries on), and any altered byte is refused.
@Suite struct AESCTRTransportTests {
    static func pair(_ type: AESCTRTransportProtection.Type, keyBytes: Int) throws -> (AESCTRTransportProtection, AESCTRTransportProtection) {
        let key = SymmetricKey(data: [UInt8](repeating: 1, count: keyBytes))
        let macKey = SymmetricKey(data: [UInt8](repeating: 2, count: 32))
        let iv = [UInt8](repeating: 3, count: 16)
        let keys = NIOSSHSessionKeys(
            initialInboundIV: iv, initialOutboundIV: iv, inboundEncryptionKey: key, outboundEncryptionKey: key,
            inboundMACKey: macKey, outboundMACKey: macKey)
        return (try type.init(initialKeys: keys), try type.init(initialKeys: keys))
    }

    /// An SSH packet: length, padding length, payload, padding to a multiple of 16.
    static func packet(_ payload: [UInt8]) -> ByteBuffer {
        var padding = 16 - (payload.count + 5) % 16
        if padding < 4 { padding += 16 }
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(1 + payload.count + padding))
        buffer.writeInteger(UInt8(padding))
        buffer.writeBytes(payload)
        buffer.writeBytes([UInt8](repeating: 0, count: padding))
        return buffer
    }

    @Test(arguments: [(16, true), (32, false)])
    func packetsRoundTripAndTamperingIsRefused(keyBytes: Int, small: Bool) throws {
        let (sender, receiver) = try Self.pair(
            keyBytes == 16 ? AES128CTRTransportProtection.self : AES256CTRTransportProtection.self,
            keyBytes: keyBytes)
        for sequence: UInt32 in 0..<5 {
            let payload = (0..<(small ? 20 : 40_000)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(sequence)) }
            var wire = Self.packet(payload)
            try sender.encryptPacket(&wire, sequenceNumber: sequence)
            #expect(wire.readableBytesView.dropFirst(5).prefix(payload.count).elementsEqual(payload) == false, "the payload is encrypted")
            try receiver.decryptFirstBlock(&wire)
            let opened = try receiver.decryptAndVerifyRemainingPacket(&wire, sequenceNumber: sequence)
            #expect(Array(opened.readableBytesView) == payload)
            #expect(wire.readableBytes == 0)
        }
        var forged = Self.packet([1, 2, 3])
        try sender.encryptPacket(&forged, sequenceNumber: 5)
        forged.setInteger(forged.getInteger(at: 20, as: UInt8.self)! ^ 0x01, at: 20)
        try receiver.decryptFirstBlock(&forged)
        #expect(throws: (any Error).self) { try receiver.decryptAndVerifyRemainingPacket(&forged, sequenceNumber: 5) }
    }
}
