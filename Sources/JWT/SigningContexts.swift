import COpenSSL
import Foundation
import Synchronization

/// Each thread's OpenSSL signing context per RSA key. An EVP_PKEY_CTX may be used by one thread at a time and setting
/// one up (init, padding, digest) for every token would cost more than the lock that sharing one needs; a context
/// per thread costs neither. Each thread's context also signs with its own copy of the key (EVP_PKEY_dup, once per
/// thread): OpenSSL keeps an RSA key's blinding values in the key, bound to the thread that first signed, and every
/// other thread signing with that key takes a shared blinding under a write lock. A context holds a reference to its
/// key (OpenSSL counts them), so it stays valid after the ``RSAPrivateKey`` is gone; it is freed when its thread ends,
/// or when the thread has made ``most`` newer ones: a swarm makes a new key for every seed, on threads that live for
/// the whole swarm, and a context for each would pile up (6 KB a seed).
enum SigningContexts {
    /// Most contexts a thread keeps; past that the oldest is freed (its key, if still in use, gets a new one).
    static let most = 16

    /// The contexts of one thread, by key id, with the ids in the order their contexts were made.
    private final class Contexts {
        var byKey: [UInt64: OpaquePointer] = [:]
        var order: [UInt64] = []
        deinit { for context in byKey.values { EVP_PKEY_CTX_free(context) } }
    }

    private static let slot: pthread_key_t = {
        var slot = pthread_key_t()
        pthread_key_create(&slot) { contexts in contexts.map { Unmanaged<Contexts>.fromOpaque($0).release() } }
        return slot
    }()

    private static let nextID = Atomic<UInt64>(1)

    /// A new id for a key (ids are never reused, so a context can never sign with another key).
    static func newKeyID() -> UInt64 { nextID.wrappingAdd(1, ordering: .relaxed).oldValue }

    /// How many contexts this thread keeps now.
    static var keptOnThisThread: Int {
        pthread_getspecific(slot).map { Unmanaged<Contexts>.fromOpaque($0).takeUnretainedValue().byKey.count } ?? 0
    }

    /// This thread's context signing RS256 (PKCS#1 v1.5 over a SHA-256 digest) with `key`, made on first use.
    static func context(keyID: UInt64, key: OpaquePointer) -> OpaquePointer? {
        let contexts: Contexts
        if let stored = pthread_getspecific(slot) {
            contexts = Unmanaged<Contexts>.fromOpaque(stored).takeUnretainedValue()
        } else {
            contexts = Contexts()
            pthread_setspecific(slot, Unmanaged.passRetained(contexts).toOpaque())
        }
        if let context = contexts.byKey[keyID] { return context }
        guard let own = EVP_PKEY_dup(key) else { return nil }
        defer { EVP_PKEY_free(own) }  // the context holds its own reference
        guard let context = EVP_PKEY_CTX_new(own, nil) else { return nil }
        guard EVP_PKEY_sign_init(context) == 1, EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1,
            EVP_PKEY_CTX_set_signature_md(context, EVP_sha256()) == 1
        else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        if contexts.order.count == most, let oldest = contexts.byKey.removeValue(forKey: contexts.order.removeFirst()) {
            EVP_PKEY_CTX_free(oldest)
        }
        contexts.byKey[keyID] = context
        contexts.order.append(keyID)
        return context
    }
}
