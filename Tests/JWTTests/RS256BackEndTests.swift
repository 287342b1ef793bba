import Crypto
import Dispatch
import Foundation
import Testing
import _CryptoExtras

@testable import JWT

/// The core signs on OpenSSL and verifies on swift-crypto: PKCS#1 v1.5 is deterministic, so both libraries must give
/// the same bytes for the same key and input, from any number of threads at once.
@Suite struct RS256BackEndTests {
    static let input = Array("eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxNCJ9".utf8)

    @Test func openSSLSignsExactlyAsSwiftCryptoDoes() throws {
        let ours = try Self.input.withUnsafeBufferPointer { try IMSFixtures.hostKey.signature(for: $0) }
        let reference = try _RSA.Signing.PrivateKey(pemRepresentation: IMSFixtures.text("host.key"))
        let theirs = try reference.signature(for: SHA256.hash(data: Self.input), padding: .insecurePKCS1v1_5).rawRepresentation
        #expect(ours.count == 256)
        #expect(ours == Array(theirs))
        #expect(Self.input.withUnsafeBufferPointer { IMSFixtures.hostKey.publicKey.isValidSignature(ours, for: $0) })
    }

    @Test func threadsSignAtOnceEachWithItsOwnContext() throws {
        let expected = try Self.input.withUnsafeBufferPointer { try IMSFixtures.hostKey.signature(for: $0) }
        let other = try Self.input.withUnsafeBufferPointer { try IMSFixtures.otherKey.signature(for: $0) }
        #expect(expected != other)
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            let key = index.isMultiple(of: 2) ? IMSFixtures.hostKey : IMSFixtures.otherKey
            let signature = try? Self.input.withUnsafeBufferPointer { try key.signature(for: $0) }
            results.record(signature == (index.isMultiple(of: 2) ? expected : other))
        }
        #expect(results.all == Array(repeating: true, count: 64))
    }

    @Test func aKeyMadeAfterAnotherIsFreedSignsWithItsOwn() throws {
        // Ids are never reused: a context cached for a freed key cannot sign for a new key at the same address.
        for _ in 0..<3 {
            let key = try RSAPrivateKey(pem: IMSFixtures.text("other.key"))
            let signature = try Self.input.withUnsafeBufferPointer { try key.signature(for: $0) }
            #expect(Self.input.withUnsafeBufferPointer { key.publicKey.isValidSignature(signature, for: $0) })
            #expect(!Self.input.withUnsafeBufferPointer { IMSFixtures.hostKey.publicKey.isValidSignature(signature, for: $0) })
        }
    }

    @Test func aKeyWhoseContextWasDroppedForNewerKeysStillSigns() throws {
        // A thread keeps its newest contexts only; the first key's is dropped by the keys after it and made again.
        let first = try Self.input.withUnsafeBufferPointer { try IMSFixtures.hostKey.signature(for: $0) }
        for _ in 0...SigningContexts.most {
            let key = try RSAPrivateKey(pem: IMSFixtures.text("other.key"))
            _ = try Self.input.withUnsafeBufferPointer { try key.signature(for: $0) }
        }
        #expect(SigningContexts.keptOnThisThread == SigningContexts.most)
        let again = try Self.input.withUnsafeBufferPointer { try IMSFixtures.hostKey.signature(for: $0) }
        #expect(again == first)
    }
}

private final class Results: @unchecked Sendable {
    // @unchecked Sendable: every access is under the lock.
    private let lock = NSLock()
    private var values: [Bool] = []
    func record(_ value: Bool) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }
    var all: [Bool] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}
