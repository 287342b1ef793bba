import Base64URLEncoding
import Crypto
import WireHTTP

/// An IMS session id that carries its own session: `ID.EXP.SUB.MAC`, where ID is a random UUID, EXP the token's
/// expiry (Unix seconds), SUB the base64url subject, and MAC the first 16 bytes of HMAC-SHA256 over the rest under
/// a key only this IMS holds.
///
/// So IMS keeps nothing per session: a status check verifies the MAC and reads the expiry and subject back. A
/// server that held every session until its token expired (up to 15 minutes + the leeway) grew with its session
/// rate, and under a steady load had to refuse new sessions once full; this one stays flat however many sessions
/// it starts. The key is drawn when IMS starts, so sessions end with the process, as before.
struct SessionTicket: Equatable {
    let subject: String
    let expires: Int64

    struct Key {
        let key: SymmetricKey
        init(_ bytes: [UInt8]) { key = SymmetricKey(data: bytes) }

        /// A new session id for `ticket`; `unique` (a UUID) tells two sessions with the same subject and expiry apart.
        func issue(_ ticket: SessionTicket, unique: String) -> String {
            let body = "\(unique).\(ticket.expires).\(Base64URL.encode(Array(ticket.subject.utf8)))"
            return body + "." + mac(body)
        }

        /// The session `id` carries, or nil when it is not one this key issued (malformed, altered, or another IMS's).
        func open(_ id: String) -> SessionTicket? {
            guard id.utf8.count <= 1_024, let macStart = id.lastIndex(of: ".") else { return nil }
            let body = id[..<macStart]
            guard secretsMatch(String(id[id.index(after: macStart)...]), mac(body)) else { return nil }
            let parts = body.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, let expires = Int64(parts[1]), let subject = Base64URL.decode(parts[2]) else { return nil }
            return SessionTicket(subject: String(decoding: subject, as: UTF8.self), expires: expires)
        }

        private func mac(_ body: some StringProtocol) -> String {
            Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(body.utf8), using: key)).prefix(16))
        }
    }
}
