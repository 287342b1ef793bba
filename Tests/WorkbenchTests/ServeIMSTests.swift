import Foundation
import JWT
import TestSupport
import Testing

/// `workbench serve` with the IMS actors, driven with curl as a host app's back-end client would be.
@Suite(.serialized) struct ServeIMSTests {
    /// Options that keep serve's IMS actors off the fixed live ports and its database out of the repository,
    /// so tests can run next to a developer's own `workbench serve`.
    static var freePorts: [String] {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("serve-ims-\(getpid())-\(UInt32.random(in: 0 ... .max)).sqlite").path
        return ["--set", "ims-signer.port=0", "--set", "ims.port=0", "--set", "ims.database=\(database)"]
    }

    static func curl(_ arguments: [String]) throws -> String {
        try ExternalProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10"] + arguments).stdout
    }

    @Test func serveListsTheIMSActorsAndTheirDemoCredentialsWork() throws {
        let serve = try WorkbenchBinary.serve(
            ["--only", "ims-signer", "--only", "ims", "--state-dir", NSTemporaryDirectory() + "workbench-ims-serve-\(getpid())"] + Self.freePorts,
            until: { $0.contains("note ims admin-token") && $0.hasSuffix("\n") })
        defer { serve.stop() }
        let signerURL = try serve.lastWord(ofLineStartingWith: "listening ims-signer http://")
        let imsURL = try serve.lastWord(ofLineStartingWith: "listening ims http://")
        let apiKey = try serve.lastWord(ofLineStartingWith: "note ims-signer api-key ")
        let bearer = try #require(serve.lines.first { $0.hasPrefix("note ims-signer bearer-token ") }?.split(separator: " ")[3].description)

        // The host app signs a prototype for user 14 with the demo bearer token, then starts an IMS session.
        let now = Int64(Date().timeIntervalSince1970)
        let prototype = JWTPrototype(claims: JWTClaims(issuer: apiKey, subject: "14", id: "serve-\(now)-\(UInt32.random(in: 0 ... .max))",
                                                       notBefore: now, expires: now + 900)).compact
        let token = try Self.curl(["-H", "Authorization: Bearer \(bearer)", "-H", "Content-Type: text/plain", "--data-binary", prototype, signerURL + "sign"])
        #expect(token.split(separator: ".").count == 3, "signing answered: \(token)")
        let session = try Self.curl(["-X", "POST", "-H", "Authorization: Bearer \(token)", imsURL + "v1/sessions"])
        #expect(session.contains(#""sub":"14""#), "IMS answered: \(session)")
        let wrong = try Self.curl(["-H", "Authorization: Bearer nope", "-H", "Content-Type: text/plain", "--data-binary", prototype, signerURL + "sign"])
        #expect(wrong.contains("not a valid app token"))
    }
}
