import COpenSSL
import Foundation
import Synchronization

/// Each thread's OpenSSL signing context per RSA key. An EVP_PKEY_CTX may be used by one thread at a time and setting
/// one up (init, padding, digest) for every token would cost more than the lock that sharing one needs; a context
/// per thread costs neither. Each thread's context also signs with its own copy of the key (EVP_PKEY_dup, once per
/// thread): OpenSSL keeps an RSA key's blinding values in the key, bound to the thread that first signed, and every
/// other thread signing with that key takes a shared blinding under a write lock. A context holds a reference to its
/// key (OpenSSL counts them), so it stays valid after the ``RSAPrivateKey`` is gone; it is freed when its thread ends.
enum SigningContexts {
    /// The contexts of one thread, by key id.
    private final class Contexts {
        var byKey: [UInt64: OpaquePointer] = [:]
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
        contexts.byKey[keyID] = context
        return context
    }
}
