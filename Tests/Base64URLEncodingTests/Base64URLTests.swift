import Base64URLEncoding
import Foundation
import Testing

/// The one base64url codec of JWTs (no padding) and bus URLs (padding optional).
@Suite struct Base64URLTests {
    @Test func decodingIsStrict() {
        #expect(Base64URL.encode(Array("hello?>".utf8)) == "aGVsbG8_Pg")
        #expect(Base64URL.decode("aGVsbG8_Pg") == Array("hello?>".utf8))
        #expect(Base64URL.decode("aGVsbG8_Pg==") == nil)  // padding
        #expect(Base64URL.decode("aGVsbG8/Pg") == nil)  // the standard alphabet
        #expect(Base64URL.decode("aGVsbG8_Ph") == nil)  // non-zero unused bits
        #expect(Base64URL.decode("a") == nil)
        for count in 0..<40 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
            #expect(Base64URL.decode(Base64URL.encode(bytes), padding: .optional) == bytes)
        }
    }

    @Test func optionalPaddingCompletesTheLastGroupAtMost() {
        #expect(Base64URL.decode("QQ==", padding: .optional) == [0x41])
        #expect(Base64URL.decode("QQ=", padding: .optional) == [0x41])
        #expect(Base64URL.decode("QUI=", padding: .optional) == [0x41, 0x42])
        #expect(Base64URL.decode("QUJD", padding: .optional) == [0x41, 0x42, 0x43])
        for refused in ["QUI==", "QUJD=", "QQ===", "Q===", "QQ=A", "=", "QR==", "QQ==\n", "Q+==", "Q/=="] {
            #expect(Base64URL.decode(refused, padding: .optional) == nil, "\(refused)")
        }
    }

    /// Every tail length, from an array (the pointer loop) and from a collection without contiguous storage (the
    /// copy), against Foundation's base64 with the URL alphabet and no padding; and decoding into a buffer.
    @Test func encodingMatchesFoundationsBase64URLForEveryLength() {
        for count in 0..<70 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
            let expected = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected, "\(count) bytes")
            #expect(Base64URL.encode(bytes.lazy.map { $0 }) == expected, "\(count) bytes, not contiguous")
            var text = expected
            let decoded = text.withUTF8 { utf8 in
                [UInt8](unsafeUninitializedCapacity: utf8.count * 3 / 4) { out, written in
                    written = Base64URL.decode(utf8, into: out) ?? 0
                }
            }
            #expect(decoded == bytes)
        }
    }
}
