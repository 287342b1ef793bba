import Foundation
import IMSSDK
import IMSSigningBackend
import IMSVerifier
import JWT
import Kernel
import Wire
import WireHTTP

/// The committed IMS test keys (Fixtures/ims, made by tools/make-ims-keys.sh).
enum IMSFixtures {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    static func path(_ name: String) -> String { repository.appendingPathComponent("Fixtures/ims/\(name)").path }

    static func text(_ name: String) -> String {
        (try? String(contentsOfFile: path(name), encoding: .utf8)) ?? "missing fixture \(name)"
    }

    static let apiKey = "63d9a389-4ddc-4df1-8dd1-af6a10c7226e"

    static func signerConfiguration(port: Int = 80, keyID: String? = nil) -> HostSigningBackend.Configuration {
        HostSigningBackend.Configuration(apiKey: apiKey, keyID: keyID, privateKeyPEM: text("host.key"), certificatePEM: text("host.pem"),
                                         adminToken: "signer-admin", port: port)
    }
}

/// A simulated world with the signing back end on `ims-signer`, IMS on `ims`, user 14 enrolled at both and
/// the host certificate registered.
struct SimulatedIMS {
    let kernel: Kernel
    let signer: HostSigningBackend
    let ims: IMSVerifier
    let phone: Node
    let appToken: String

    init(seed: UInt64 = 1, keyID: String? = nil, register: Bool = true, maximumSessions: Int = 100_000) throws {
        kernel = Kernel(seed: seed)
        let (signerNode, imsNode) = (kernel.node("ims-signer"), kernel.node("ims"))
        let configuration = IMSFixtures.signerConfiguration(keyID: keyID)
        signer = try kernel.run("start signer") { try await HostSigningBackend.start(on: signerNode, configuration: configuration) }
        ims = try kernel.run("start ims") { try await IMSVerifier.start(on: imsNode, configuration: IMSVerifier.Configuration(adminToken: "ims-admin", maximumSessions: maximumSessions)) }
        phone = kernel.node("phone")
        appToken = signer.enrol(user: "14")
        try ims.enrol(issuer: IMSFixtures.apiKey, subject: "14")
        if register { try ims.registerCertificate(issuer: IMSFixtures.apiKey, keyID: keyID, pem: signer.certificate.pem) }
    }

    func client(user: String = "14", token: String? = nil, attempts: Int = 3) throws -> IMSClient {
        let signer = try URLTokenSigner(node: phone, url: "http://ims-signer/sign", appAuthorization: token ?? appToken)
        return IMSClient(node: phone, configuration: IMSClient.Configuration(apiKey: IMSFixtures.apiKey, userID: user, imsURL: "http://ims/",
                                                                             signingAttempts: attempts),
                         tokenSignerFactory: { signer })
    }

    func send(_ request: HTTPRequest, to host: String) throws -> HTTPResponse {
        let phone = self.phone
        return try kernel.run("send") { try await HTTPClient.send(request, host: host, port: 80, on: phone) }
    }

    /// A token signed by the back end for user 14 through the SDK's URL signer.
    func signedToken() throws -> String {
        let client = try self.client()
        return try kernel.run("sign") { try await client.signedToken().token }
    }

    func startSession(with token: String) throws -> HTTPResponse {
        try send(HTTPRequest(method: .POST, target: "/v1/sessions", headers: ["Authorization": "Bearer \(token)"]), to: "ims")
    }
}
