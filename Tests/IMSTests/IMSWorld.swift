import Foundation
import IMSSDK
import IMSSigningBackend
import IMSVerifier
import JWT
import Kernel
import NIOSSL
import Wire
import WireHTTP

/// The committed IMS test keys (Fixtures/ims, made by tools/make-ims-keys.sh).
enum IMSFixtures {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    static func path(_ name: String) -> String { repository.appendingPathComponent("Fixtures/ims/\(name)").path }

    /// The workbench's TLS test material (Fixtures/tls): the server certificate names `ims-signer`.
    static func tlsPath(_ name: String) -> String { repository.appendingPathComponent("Fixtures/tls/\(name)").path }
    static var testCA: [UInt8] { Array(((try? String(contentsOfFile: tlsPath("ca.pem"), encoding: .utf8)) ?? "").utf8) }

    static func text(_ name: String) -> String {
        (try? String(contentsOfFile: path(name), encoding: .utf8)) ?? "missing fixture \(name)"
    }

    static let apiKey = "63d9a389-4ddc-4df1-8dd1-af6a10c7226e"

    /// HTTPS on 443 (the original example's https://…/sign) unless `tls` is false (plain HTTP on 80).
    static func signerConfiguration(port: Int? = nil, keyID: String? = nil, tls: Bool = true) -> HostSigningBackend.Configuration {
        HostSigningBackend.Configuration(
            apiKey: apiKey, keyID: keyID, privateKeyPEM: text("host.key"), certificatePEM: text("host.pem"),
            adminToken: "signer-admin", port: port ?? (tls ? 443 : 80),
            tls: tls ? .init(certificateChainPath: tlsPath("server.pem"), privateKeyPath: tlsPath("server.key")) : nil)
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

    init(seed: UInt64 = 1, keyID: String? = nil, register: Bool = true, tls: Bool = true) throws {
        kernel = Kernel(seed: seed)
        let (signerNode, imsNode) = (kernel.node("ims-signer"), kernel.node("ims"))
        let configuration = IMSFixtures.signerConfiguration(keyID: keyID, tls: tls)
        signer = try kernel.run("start signer") { try await HostSigningBackend.start(on: signerNode, configuration: configuration) }
        ims = try kernel.run("start ims") {
            try await IMSVerifier.start(on: imsNode, configuration: IMSVerifier.Configuration(adminToken: "ims-admin"))
        }
        phone = kernel.node("phone")
        appToken = signer.enrol(user: "14")
        try ims.enrol(issuer: IMSFixtures.apiKey, subject: "14")
        if register { try ims.registerCertificate(issuer: IMSFixtures.apiKey, keyID: keyID, pem: signer.certificate.pem) }
    }

    /// `https://ims-signer/sign`, or `http://` when the back end runs without TLS.
    var signURL: String { signer.baseURL.replacingOccurrences(of: ":443/", with: "/").replacingOccurrences(of: ":80/", with: "/") + "sign" }

    func urlSigner(url: String? = nil, token: String? = nil, contentTypes: URLTokenSigner.ContentTypes = .any) throws -> URLTokenSigner {
        try URLTokenSigner(
            node: phone, url: url ?? signURL, appAuthorization: token ?? appToken, trust: .caPEM(IMSFixtures.testCA),
            contentTypes: contentTypes)
    }

    func client(user: String = "14", token: String? = nil, attempts: Int = 3) throws -> IMSClient {
        let signer = try urlSigner(token: token)
        return IMSClient(
            node: phone,
            configuration: IMSClient.Configuration(
                apiKey: IMSFixtures.apiKey, userID: user, imsURL: "http://ims/",
                signingAttempts: attempts),
            tokenSignerFactory: { signer })
    }

    /// Sends `request` from the phone; to the back end over its HTTPS (trusting the test CA) when it has it.
    func send(_ request: HTTPRequest, to host: String) throws -> HTTPResponse {
        let phone = self.phone
        guard host == "ims-signer" else {
            return try kernel.run("send") { try await HTTPClient.send(request, host: host, port: 80, on: phone) }
        }
        return try kernel.run("send") { try await sendAsync(request, from: phone) }
    }

    /// Sends `request` to the back end from `node`, over TLS when it serves HTTPS.
    func sendAsync(_ request: HTTPRequest, from node: Node) async throws -> HTTPResponse {
        guard signer.configuration.tls != nil else { return try await HTTPClient.send(request, host: "ims-signer", port: 80, on: node) }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(IMSFixtures.testCA))
        let context = try NIOSSLContext(configuration: configuration)
        return try await HTTPClient.send(request, host: "ims-signer", port: 443, on: node) { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: "ims-signer"))
            }
        }
    }

    /// A token signed by the back end for user 14 through the SDK's URL signer.
    func signedToken() throws -> String {
        let client = try self.client()
        return try kernel.run("sign") { try await client.signedToken().token }
    }

    func startSession(with token: String) throws -> HTTPResponse {
        try send(HTTPRequest(method: .POST, target: "/v1/sessions", headers: ["Authorization": "Bearer \(token)"]), to: "ims")
    }

    /// `GET /v1/drivesync/status` with `X-IMS-Session: id`.
    func status(of id: String) throws -> HTTPResponse {
        try send(HTTPRequest(method: .GET, target: "/v1/drivesync/status", headers: ["X-IMS-Session": id]), to: "ims")
    }
}
