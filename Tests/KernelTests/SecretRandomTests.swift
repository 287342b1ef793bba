import Kernel
import Testing
import Wire
import WireHTTP

/// Secrets (keys, nonces, tokens, session ids) come from the seed under simulation and from the system's
/// cryptographic generator live; behaviour randomness stays seeded in both.
@Suite struct SecretRandomTests {
    @Test func simulatedSecretsReplayWithTheSeedAndDifferFromBehaviourDraws() {
        let first = Kernel(seed: 11).node("ims")
        let second = Kernel(seed: 11).node("ims")
        #expect(first.secrets.bytes(32) == second.secrets.bytes(32))
        #expect(first.secrets.uuid() == second.secrets.uuid())
        #expect(Kernel(seed: 12).node("ims").secrets.bytes(32) != Kernel(seed: 11).node("ims").secrets.bytes(32))
        // A separate stream: drawing a secret does not shift the node's behaviour (jitter, chance).
        let plain = Kernel(seed: 11).node("ims")
        let drawn = Kernel(seed: 11).node("ims")
        _ = drawn.secrets.bytes(64)
        #expect(plain.random.next() == drawn.random.next())
    }

    @Test func liveSecretsDoNotFollowTheSeed() async throws {
        let one = LiveWire(seed: 7)
        let two = LiveWire(seed: 7)
        let a = one.node("ims")
        let b = two.node("ims")
        #expect(a.random.next() == b.random.next(), "behaviour draws replay with the seed")
        #expect(a.secrets.bytes(32) != b.secrets.bytes(32), "secrets come from the system's generator")
        #expect(a.secrets.uuid().count == 36)
        try await one.shutdown()
        try await two.shutdown()
    }

    @Test func secretsAreComparedWhole() {
        #expect(secretsMatch("signer-admin-demo", "signer-admin-demo"))
        #expect(!secretsMatch("signer-admin-dem", "signer-admin-demo"))
        #expect(!secretsMatch("signer-admin-demo-", "signer-admin-demo"))
        #expect(!secretsMatch("", "x"))
        #expect(!secretsMatch("Signer-admin-demo", "signer-admin-demo"))
    }
}
