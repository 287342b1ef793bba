import Crypto

// The sealing itself (with Crypto); the scheme and the sealed parts are in SealedPayload.swift.
extension PayloadSeal {
    /// Seals `plaintext` for the holder of `recipientPublicKey`.
    ///
    /// - parameters:
    ///   - ephemeralSecret: 32 random bytes (the ephemeral X25519 private key).
    ///   - nonce: 12 random bytes.
    ///   - sender: the sending app's name, bound as authenticated data.
    /// - throws: ``CredentialProblem`` `undecryptable` if the recipient key is not an X25519 public key.
    public static func seal(
        _ plaintext: [UInt8], to recipientPublicKey: [UInt8], ephemeralSecret: [UInt8], nonce: [UInt8],
        sender: String
    ) throws(CredentialProblem) -> Sealed {
        do {
            let ephemeral = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: ephemeralSecret)
            let recipient = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: recipientPublicKey)
            let key = try derivedKey(
                ephemeral.sharedSecretFromKeyAgreement(with: recipient),
                ephemeralPublicKey: Array(ephemeral.publicKey.rawRepresentation), recipientPublicKey: recipientPublicKey)
            let box = try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(data: nonce), authenticating: Array(sender.utf8))
            return Sealed(
                ephemeralPublicKey: Array(ephemeral.publicKey.rawRepresentation), nonce: nonce,
                box: Array(box.ciphertext) + Array(box.tag))
        } catch {
            throw CredentialProblem(
                .undecryptable,
                "cannot seal for the Ivanti client's key (expected a 32-byte X25519 public key that is not of low order, a 32-byte secret, a 12-byte nonce)"
            )
        }
    }

    /// Opens a payload sealed for `privateKey` by `sender`.
    ///
    /// - throws: ``CredentialProblem`` `undecryptable` when the parts are malformed, the payload was sealed for
    ///   another key, altered, or sent by another app.
    public static func open(
        _ sealed: Sealed, with privateKey: Curve25519.KeyAgreement.PrivateKey, sender: String
    ) throws(CredentialProblem) -> [UInt8] {
        do {
            let ephemeral = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: sealed.ephemeralPublicKey)
            let key = try derivedKey(
                privateKey.sharedSecretFromKeyAgreement(with: ephemeral), ephemeralPublicKey: sealed.ephemeralPublicKey,
                recipientPublicKey: Array(privateKey.publicKey.rawRepresentation))
            guard sealed.box.count >= 16 else { throw CryptoKitError.incorrectParameterSize }
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: sealed.nonce), ciphertext: sealed.box.dropLast(16), tag: sealed.box.suffix(16))
            return Array(try AES.GCM.open(box, using: key, authenticating: Array(sender.utf8)))
        } catch {
            throw CredentialProblem(
                .undecryptable,
                "the payload does not open with the Ivanti client's key for sender '\(sender)' (sealed for another key, altered, or sent by another app)"
            )
        }
    }

    /// - throws: for the all-zero shared secret of a low-order public key (RFC 7748 §6.1), which anyone could
    ///   compute: sealing for such a key would publish the payload.
    private static func derivedKey(_ secret: SharedSecret, ephemeralPublicKey: [UInt8], recipientPublicKey: [UInt8]) throws -> SymmetricKey {
        guard !secret.withUnsafeBytes({ $0.allSatisfy { $0 == 0 } }) else { throw CryptoKitError.incorrectParameterSize }
        return secret.hkdfDerivedSymmetricKey(
            using: SHA256.self, salt: ephemeralPublicKey + recipientPublicKey, sharedInfo: info, outputByteCount: 32)
    }
}
