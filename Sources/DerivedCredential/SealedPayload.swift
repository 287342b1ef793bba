/// The protection of a credential payload on the bus. The real AppConnect protocol is not published; this is
/// the workbench's own, documented choice:
///
/// - The Ivanti client has an X25519 key pair; its public key reaches each AppConnect app with every state
///   message (`<app-scheme>://state?…&key=…`).
/// - The app makes an ephemeral X25519 key pair per credential, and derives a 256-bit key with
///   HKDF-SHA256 over the shared secret (salt: ephemeral public key ‖ client public key, info:
///   ``info``).
/// - The payload JSON is sealed with AES-256-GCM under that key, with the sending app's name (the bus's
///   sender) as authenticated data, so a URL copied off the bus does not open as coming from another app.
///
/// Private keys therefore never appear in clear on the bus (nor in the run's trace, which records URLs).
/// The ephemeral secret and the nonce are parameters, not drawn here: callers take them from their node's
/// random stream, which keeps simulated runs byte-identical.
public enum PayloadSeal {
    /// The HKDF info string, which also versions the scheme.
    public static let info = Array("workbench appconnectdc payload v1".utf8)

    /// A sealed payload as it travels in `appconnectdc://credential?v=1&epk=…&nonce=…&box=…`.
    public struct Sealed: Sendable, Equatable {
        public let ephemeralPublicKey: [UInt8]
        public let nonce: [UInt8]
        /// Ciphertext followed by the 16-byte GCM tag.
        public let box: [UInt8]

        public init(ephemeralPublicKey: [UInt8], nonce: [UInt8], box: [UInt8]) {
            self.ephemeralPublicKey = ephemeralPublicKey
            self.nonce = nonce
            self.box = box
        }
    }
}
