import IMSSDK
import SystemKit
import Wire

/// IMS's share of `workbench bench load`: sessions through the IMS SDK, each signed by the host's back end.
extension LoadBenchPart {
    static let ims = LoadBenchPart(operations: [
        LoadOperation(
            "ims-session",
            "IMSClient.startSession() with a URLTokenSigner (one signing attempt): POST /sign to "
                + "ims-signer over HTTPS (a TLS handshake each time, trusting the test CA) with the app's bearer token (200, "
                + "an RS256 token), then POST /v1/sessions to ims; 201 with a session id. Two HTTP exchanges.")
    ]) { announced in
        let signer = try announced.requiredURL("ims-signer", "https")
        let signURL = "https://\(signer.host ?? ""):\(signer.port ?? 0)/sign"
        // serve's back end presents the workbench's test certificate.
        let signerCA = Array(try String(contentsOfFile: try Fixtures.path("tls/ca.pem"), encoding: .utf8).utf8)
        // `bearer-token TOKEN user USER`: the app token of the user serve enrolled.
        let bearer = try announced.requiredNote("ims-signer", "bearer-token").split(separator: " ").map(String.init)
        guard bearer.count == 3, bearer[1] == "user" else { throw WorkbenchError("ims-signer's bearer-token note is not 'TOKEN user USER'") }
        let apiKey = try announced.requiredNote("ims-signer", "api-key")
        let ims = try announced.requiredURL("ims", "http")
        // One signing attempt: a retry after 2 s would hide a failure from the figures.
        let configuration = IMSClient.Configuration(
            apiKey: apiKey, userID: bearer[2], imsURL: "http://\(ims.host ?? ""):\(ims.port ?? 0)/",
            signingAttempts: 1)
        return { _, node in
            let signer = try URLTokenSigner(node: node, url: signURL, appAuthorization: bearer[0], trust: .caPEM(signerCA))
            return IMSLoadSession(client: IMSClient(node: node, configuration: configuration) { signer })
        }
    }
}

struct IMSLoadSession: LoadSession {
    let client: IMSClient

    func perform(_ operation: String) async throws {
        let session = try await client.startSession()
        guard !session.id.isEmpty else { throw WorkbenchError("IMS answered an empty session id") }
    }
}
