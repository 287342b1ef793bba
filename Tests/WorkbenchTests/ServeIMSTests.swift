import Foundation
import JWT
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
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sS", "--max-time", "10"] + arguments
        let body = Pipe()
        curl.standardOutput = body
        try curl.run()
        let answer = String(decoding: body.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        curl.waitUntilExit()
        return answer
    }

    @Test func serveListsTheIMSActorsAndTheirDemoCredentialsWork() throws {
        let process = Process()
        process.executableURL = Paths.binary
        process.currentDirectoryURL = Paths.repository
        process.arguments = ["serve", "--only", "ims-signer", "--only", "ims", "--state-dir", NSTemporaryDirectory() + "workbench-ims-serve-\(getpid())"] + Self.freePorts
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }

        var text = ""
        let reader = output.fileHandleForReading
        while !text.contains("note ims admin-token") {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let lines = text.split(separator: "\n").map(String.init)
        func lastWord(_ prefix: String) throws -> String {
            try #require(lines.first { $0.hasPrefix(prefix) }?.split(separator: " ").last.map(String.init), "no line starting '\(prefix)' in:\n\(text)")
        }
        let signerURL = try lastWord("listening ims-signer http://")
        let imsURL = try lastWord("listening ims http://")
        let apiKey = try lastWord("note ims-signer api-key ")
        let bearer = try #require(lines.first { $0.hasPrefix("note ims-signer bearer-token ") }?.split(separator: " ")[3].description)

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
