import Crypto
import Foundation
import NIOSSH

/// An ed25519 host key read from an OpenSSH private key file (`ssh-keygen -t ed25519 -N ''`), so Sunfire and a
/// private OpenSSH `sshd` can present the very same key and a fixed key keeps traces identical run to run.
public struct OpenSSHHostKey: Sendable {
    /// The key as swift-nio-ssh uses it.
    public let privateKey: NIOSSHPrivateKey
    /// The public key line as in `ssh_host_ed25519_key.pub` / known_hosts: `ssh-ed25519 AAAA…`.
    public let publicKeyLine: String
    /// `SHA256:…`, as `ssh-keygen -l` and OpenSSH's first-connection prompt print it.
    public let fingerprint: String

    /// Reads an unencrypted `openssh-key-v1` file holding one ssh-ed25519 key.
    ///
    /// - throws: ``HostKeyError`` saying which part of the file is not what OpenSSH writes.
    public init(pem: String) throws(HostKeyError) {
        let body = pem.split(whereSeparator: \.isNewline)
            .filter { !$0.hasPrefix("-----") }
            .joined()
        guard pem.contains("-----BEGIN OPENSSH PRIVATE KEY-----"), let data = Data(base64Encoded: body) else {
            throw HostKeyError("expected an OpenSSH private key ('-----BEGIN OPENSSH PRIVATE KEY-----', base64 body)")
        }
        var reader = SSHWireReader(Array(data))
        guard reader.take(15) == Array("openssh-key-v1\0".utf8) else { throw HostKeyError("missing the 'openssh-key-v1' magic") }
        guard let cipher = reader.string(), let kdf = reader.string(), reader.string() != nil else {
            throw HostKeyError("truncated key header")
        }
        guard cipher == Array("none".utf8), kdf == Array("none".utf8) else {
            throw HostKeyError("the key is passphrase-protected; expected one made with ssh-keygen -N ''")
        }
        guard reader.uint32() == 1, let publicBlob = reader.string(), let privateSection = reader.string() else {
            throw HostKeyError("expected exactly one key")
        }
        var secret = SSHWireReader(privateSection)
        guard let check1 = secret.uint32(), check1 == secret.uint32() else {
            throw HostKeyError("the private section's check integers differ (a damaged or encrypted file)")
        }
        guard secret.string() == Array("ssh-ed25519".utf8) else { throw HostKeyError("expected an ssh-ed25519 key") }
        guard let publicKey = secret.string(), publicKey.count == 32, let keyPair = secret.string(), keyPair.count == 64 else {
            throw HostKeyError("the ed25519 key material has the wrong length")
        }
        let signing: Curve25519.Signing.PrivateKey
        do {
            signing = try Curve25519.Signing.PrivateKey(rawRepresentation: keyPair[0..<32])
        } catch {
            throw HostKeyError("the ed25519 seed is not usable: \(error)")
        }
        guard Array(signing.publicKey.rawRepresentation) == publicKey else {
            throw HostKeyError("the public key does not belong to the private key")
        }
        privateKey = NIOSSHPrivateKey(ed25519Key: signing)
        publicKeyLine = "ssh-ed25519 " + Data(publicBlob).base64EncodedString()
        let digest = Data(SHA256.hash(data: publicBlob)).base64EncodedString()
        fingerprint = "SHA256:" + digest.trimmingCharacters(in: CharacterSet(charactersIn: "="))
    }

    /// Reads the key from a file.
    public init(file: String) throws(HostKeyError) {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw HostKeyError("cannot read the host key file \(file)")
        }
        try self.init(pem: text)
    }
}

/// Why a host key file could not be used.
public struct HostKeyError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Reads SSH wire types (RFC 4251 §5) without trapping on short input.
struct SSHWireReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func uint32() -> UInt32? {
        take(4).map { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    mutating func string() -> [UInt8]? {
        guard let length = uint32(), let count = Int(exactly: length) else { return nil }
        return take(count)
    }
}
