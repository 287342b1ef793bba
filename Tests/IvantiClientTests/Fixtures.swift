import DerivedCredential
import Foundation
import IvantiClient
import Kernel
import Wire

/// The committed certificates and keys of Fixtures/ivanti (tools/make-ivanti-credentials.sh).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ivanti")

    static func bytes(_ file: String) -> [UInt8] {
        [UInt8](FileManager.default.contents(atPath: directory.appendingPathComponent(file).path) ?? Data())
    }

    /// The entry for `tag` made of fixture `name` (`<name>.cert.der`, `<name>.key.der`).
    static func entry(_ tag: CredentialTag, _ name: String? = nil) -> CredentialPayload.Entry {
        let name = name ?? tag.rawValue.lowercased()
        return CredentialPayload.Entry(tag: tag.rawValue, certificate: bytes("\(name).cert.der"), privateKey: bytes("\(name).key.der"))
    }

    /// 2026-01-01 (the simulated calendar's start) + 30 days.
    static let inAMonth: Int64 = 1_767_225_600 + 30 * 86_400

    static func payload(serial: String = "SN-1", expires: Int64 = inAMonth, _ entries: [CredentialPayload.Entry]) -> CredentialPayload {
        CredentialPayload(
            name: "Derived", serialNumber: serial, expirationDate: expires, brand: "Provider", callbackScheme: "providerdc", certificates: entries)
    }
}

/// A simulated phone with the Ivanti client, and apps that talk to it with hand-made URLs.
struct World {
    let kernel: Kernel
    let client: IvantiClient

    init(seed: UInt64 = 1, configuration: IvantiClient.Configuration = IvantiClient.Configuration()) throws {
        kernel = Kernel(seed: seed)
        let node = kernel.node("ivanti")
        client = try kernel.run("start ivanti") { try await IvantiClient.start(on: node, configuration: configuration) }
    }

    /// Seals `payload` as `sealer` would and opens it on the bus as `app`; returns what the client made of it.
    func send(_ payload: CredentialPayload, from app: String = "phone", sealedAs sealer: String? = nil) throws -> IvantiClient.Outcome? {
        let node = kernel.node(app)
        let sealed = try PayloadSeal.seal(
            payload.encoded(), to: client.publicKey, ephemeralSecret: node.random.bytes(32), nonce: node.random.bytes(12),
            sender: sealer ?? app)
        return open(AppConnectRequest.credential(sealed).url.description, from: app)
    }

    /// Opens `url` as `app` and runs what is due.
    func open(_ url: String, from app: String = "phone") -> IvantiClient.Outcome? {
        kernel.node(app).bus.open(url, from: app)
        kernel.loop.runDue()
        return client.lastOutcome
    }
}
