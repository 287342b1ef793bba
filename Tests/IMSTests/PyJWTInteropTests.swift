import Foundation
import IMSSDK
import IMSSigningBackend
import IMSVerifier
import JWT
import TestSupport
import Testing
import Wire
import WireHTTP

/// The actors on the live wire (real loopback sockets, wall clock) against PyJWT, a widely used independent
/// JWT implementation. PyJWT is installed into .venv-interop by tools/setup.sh.
@Suite(.serialized) struct PyJWTInteropTests {
    static let python = IMSFixtures.repository.appendingPathComponent(".venv-interop/bin/python").path
    static let script = IMSFixtures.repository.appendingPathComponent("tools/ims-pyjwt.py").path

    /// Runs the PyJWT helper; returns its output, or throws with its error output.
    static func pyjwt(_ arguments: [String]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw IMSSDKError("PyJWT is not installed in .venv-interop; run tools/setup.sh")
        }
        let run = try ExternalProcess.run(python, [script] + arguments)
        guard run.status == 0 else { throw IMSSDKError("PyJWT \(arguments[0]) failed: \(run.stderr)") }
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct LiveIMS {
        let wire = LiveWire()
        let signer: HostSigningBackend
        let ims: IMSVerifier
        let phone: Node
        let appToken: String

        init() async throws {
            signer = try await HostSigningBackend.start(on: wire.node("ims-signer"), configuration: IMSFixtures.signerConfiguration(port: 0))
            ims = try await IMSVerifier.start(on: wire.node("ims"), configuration: IMSVerifier.Configuration(port: 0, adminToken: "ims-admin"))
            try await ims.registerCertificate(issuer: IMSFixtures.apiKey, keyID: nil, pem: IMSFixtures.text("host.pem"))
            try await ims.enrol(issuer: IMSFixtures.apiKey, subject: "14")
            appToken = signer.enrol(user: "14")
            phone = wire.node("phone")
        }

        func client() throws -> IMSClient {
            let signer = try URLTokenSigner(
                node: phone, url: self.signer.baseURL + "sign", appAuthorization: appToken, trust: .caPEM(IMSFixtures.testCA))
            return IMSClient(
                node: phone, configuration: IMSClient.Configuration(apiKey: IMSFixtures.apiKey, userID: "14", imsURL: ims.baseURL),
                tokenSignerFactory: { signer })
        }

        func startSession(with token: String) async throws -> HTTPResponse {
            let endpoint = ims.baseURL.dropFirst("http://".count).dropLast().split(separator: ":")
            return try await HTTPClient.send(
                HTTPRequest(method: .POST, target: "/v1/sessions", headers: ["Authorization": "Bearer \(token)"]),
                host: String(endpoint[0]), port: Int(endpoint[1])!, on: phone)
        }

        func stop() async throws {
            try await signer.stop()
            try await ims.stop()
            try await wire.shutdown()
        }
    }

    @Test func backEndTokensVerifyWithPyJWTAgainstTheRegisteredCertificate() async throws {
        let world = try await LiveIMS()
        let (token, claims) = try await world.client().signedToken()
        let decoded = try Self.pyjwt(["verify", token, IMSFixtures.path("host.pem")])
        #expect(
            decoded == #"{"exp": \#(claims.expires), "iss": "\#(claims.issuer)", "jti": "\#(claims.id)", "nbf": \#(claims.notBefore), "sub": "14"}"#)
        try await world.stop()
    }

    @Test func pyJWTTokensMadeWithTheHostKeyVerifyInIMS() async throws {
        let world = try await LiveIMS()
        let now = world.phone.clock.unixSeconds
        let token = try Self.pyjwt(["sign", IMSFixtures.path("host.key"), IMSFixtures.apiKey, "14", "pyjwt-\(now)", "\(now)", "\(now + 600)"])
        let response = try await world.startSession(with: token)
        #expect(response.status == .created, "\(response.text)")
        #expect(response.text.contains(#""sub":"14""#))
        try await world.stop()
    }

    @Test func aPyJWTForgeryHS256WithThePublicKeyIsRejected() async throws {
        let world = try await LiveIMS()
        let now = world.phone.clock.unixSeconds
        let forged = try Self.pyjwt(["forge", IMSFixtures.path("host.pem"), IMSFixtures.apiKey, "14", "forged-\(now)", "\(now)", "\(now + 600)"])
        let response = try await world.startSession(with: forged)
        #expect(response.status == .unauthorized)
        #expect(response.text.contains("alg HS256 is an HMAC"))
        try await world.stop()
    }
}
