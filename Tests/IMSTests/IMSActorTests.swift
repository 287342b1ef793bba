import Base64URLEncoding
import Foundation
import IMSSDK
import IMSSigningBackend
import IMSVerifier
import JWT
import NIOCore
import NIOHTTP1
import Testing
import Wire
import WireHTTP

/// The signing back end, IMS and the SDK together on the simulated wire, including hostile requests.
@Suite struct IMSActorTests {
    @Test func theSDKStartsASessionWithABackEndSignedToken() throws {
        let world = try SimulatedIMS()
        let client = try world.client()
        let session = try world.kernel.run("session") { try await client.startSession() }
        #expect(session.claims.subject == "14")
        #expect(session.claims.expires - session.claims.notBefore == 900)
        let status = try world.kernel.run("status") { try await client.status() }
        #expect(status.response.status == .ok)
        #expect(status.refreshed == false)
        #expect(world.kernel.loop.violations.isEmpty)
    }

    @Test func prototypesHaveUniqueIDsAndTheNodesTime() throws {
        let world = try SimulatedIMS()
        let client = try world.client()
        let (a, b) = (client.makePrototype(), client.makePrototype())
        #expect(a.claims.id != b.claims.id)
        #expect(a.claims.notBefore == world.phone.clock.unixSeconds)
        #expect(a.claims.expires == a.claims.notBefore + 900)
    }

    /// IMS keeps nothing per session: the id carries the subject and expiry under IMS's MAC. So any number of
    /// sessions costs no memory, and an id altered in any part, or made by another IMS, is an unknown session.
    @Test func aSessionIdCarriesItsSessionAndCannotBeForged() throws {
        let world = try SimulatedIMS()
        let started = try world.startSession(with: try world.signedToken())
        #expect(started.status == .created)
        let id = try #require(started.text.split(separator: "\"").dropFirst(3).first.map(String.init))
        let ok = try world.status(of: id)
        #expect(ok.status == .ok)
        #expect(ok.text.contains(#""sub":"14""#))

        var parts = id.split(separator: ".").map(String.init)
        #expect(parts.count == 4)
        parts[1] = String(Int64(parts[1])! + 3_600)  // a later expiry
        for forged in [parts.joined(separator: "."), id + "x", String(id.dropLast()), "", String(repeating: "a.", count: 600)] {
            let answer = try world.status(of: forged)
            #expect(answer.status == .unauthorized)
            #expect(answer.text.contains("unknown session"))
        }
        let elsewhere = try SimulatedIMS(seed: 2)
        #expect(try elsewhere.status(of: id).text.contains("unknown session"), "another IMS's key")

        world.kernel.advance(by: .seconds(961))
        let expired = try world.status(of: id)
        #expect(expired.status == .unauthorized)
        #expect(expired.text.contains("the session expired with its token"))
    }

    @Test func aReplayedJTIIsRefused() throws {
        let world = try SimulatedIMS()
        let token = try world.signedToken()
        #expect(try world.startSession(with: token).status == .created)
        let replay = try world.startSession(with: token)
        #expect(replay.status == .unauthorized)
        #expect(replay.text.contains("was already used"))
    }

    @Test func unknownIssuerAndKeyIDAreRefused() throws {
        let unregistered = try SimulatedIMS(register: false)
        let noHost = try unregistered.startSession(with: try unregistered.signedToken())
        #expect(noHost.status == .unauthorized)
        #expect(noHost.text.contains("no certificate is registered for iss \(IMSFixtures.apiKey)"))

        let world = try SimulatedIMS(keyID: "2026-a")
        #expect(try world.startSession(with: try world.signedToken()).status == .created)
        try world.ims.registerCertificate(issuer: IMSFixtures.apiKey, keyID: "2026-a", pem: IMSFixtures.text("other.pem"))
        let otherKey = try world.startSession(with: try world.signedToken())
        #expect(otherKey.text.contains("does not verify"))
        let token = try JWTPrototype(header: JWTHeader(keyID: "nope"), claims: world.client().makePrototype().claims)
            .signed(with: RSAPrivateKey(pem: IMSFixtures.text("host.key")))
        let ims = world.ims
        let unknownKid = try world.kernel.run("verify") { await ims.verify(token) }
        #expect(throws: JWTError.self) { try unknownKid.get() }
        if case .failure(let error) = unknownKid { #expect(error.code == .unknownKeyID && error.message.contains("kid nope")) }
    }

    @Test func anUnenrolledUserIsRefusedByIMS() throws {
        let world = try SimulatedIMS()
        let token15 = world.signer.enrol(user: "15")  // enrolled at the host only
        let client = try world.client(user: "15", token: token15)
        #expect(throws: IMSSDKError.self) { try world.kernel.run("session") { try await client.startSession() } }
    }

    @Test func wrongOrMissingBearerTokensAreRefusedByTheBackEnd() throws {
        let world = try SimulatedIMS()
        let prototype = try world.client().makePrototype().compact
        func sign(_ headers: HTTPHeaders) throws -> HTTPResponse {
            try world.send(HTTPRequest(method: .POST, target: "/sign", headers: headers, body: ByteBuffer(string: prototype)), to: "ims-signer")
        }
        let missing = try sign(["Content-Type": "text/plain"])
        #expect(missing.status == .unauthorized)
        #expect(missing.text.contains("Authorization header is missing"))
        let wrong = try sign(["Content-Type": "text/plain", "Authorization": "Bearer app-guess"])
        #expect(wrong.status == .unauthorized)
        #expect(wrong.text.contains("not a valid app token"))
        let basic = try sign(["Content-Type": "text/plain", "Authorization": "Basic YTpi"])
        #expect(basic.text.contains("expected 'Authorization: Bearer <token>'"))
        let json = try sign(["Content-Type": "application/json", "Authorization": "Bearer \(world.appToken)"])
        #expect(json.status == .unsupportedMediaType)
        #expect(try sign(["Content-Type": "text/plain", "Authorization": "Bearer \(world.appToken)"]).status == .ok)
        // Over IMS too.
        let noBearer = try world.send(HTTPRequest(method: .POST, target: "/v1/sessions"), to: "ims")
        #expect(noBearer.status == .unauthorized)
        #expect(noBearer.headers.first(name: "WWW-Authenticate")?.contains("Bearer") == true)
    }

    @Test func theBackEndRefusesBadPrototypes() throws {
        let world = try SimulatedIMS()
        var prototype = try world.client().makePrototype()
        func sign(_ body: String) throws -> HTTPResponse {
            try world.send(
                HTTPRequest(
                    method: .POST, target: "/sign", headers: ["Content-Type": "text/plain", "Authorization": "Bearer \(world.appToken)"],
                    body: ByteBuffer(string: body)), to: "ims-signer")
        }
        prototype.claims.expires = prototype.claims.notBefore + 901
        #expect(try sign(prototype.compact).text.contains("expected at most 900 s"))
        prototype.claims.expires = prototype.claims.notBefore + 900
        prototype.claims.issuer = "someone-else"
        #expect(try sign(prototype.compact).text.contains("expected this host's API key"))
        let none = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + prototype.compact.split(separator: ".")[1]
        #expect(try sign(none).text.contains("alg none"))
        #expect(try sign(String(repeating: "x", count: 10_000)).status == .payloadTooLarge)
    }

    @Test func theURLSignerReportsTheOriginalSignersFailures() throws {
        let world = try SimulatedIMS()
        let prototype = try world.client().makePrototype().compact
        func outcome(_ url: String) throws -> TokenSigningError? {
            let signer = try world.urlSigner(url: url)
            do {
                _ = try world.kernel.run("sign") { try await signer.sign(prototype) }
                return nil
            } catch let error as TokenSigningError { return error }
        }
        #expect(try outcome("https://ims-signer/nowhere")?.kind == .badStatus(404))
        #expect(try outcome("https://ims-signer/nowhere")?.message.hasPrefix("Bad response: 404") == true)
        #expect(try outcome("https://nobody/sign")?.kind == .transport)
        try OddBackEnd.start(in: world)
        #expect(try outcome("http://odd/text")?.kind == .undecodableBody)
        #expect(try outcome("https://ims-signer/sign") == nil)
    }

    @Test func theSigningBackEndServesHTTPSOnly() throws {
        let world = try SimulatedIMS()
        #expect(world.signer.baseURL == "https://ims-signer:443/")
        // Plain HTTP to the HTTPS port gets nginx's 400, and a signer that trusts another CA refuses the certificate.
        let plain = try world.urlSigner(url: "http://ims-signer:443/sign")
        let prototype = try world.client().makePrototype().compact
        #expect { try world.kernel.run("plain") { try await plain.sign(prototype) } } throws: { error in
            guard let error = error as? TokenSigningError else { return false }
            return error.kind == .badStatus(400) && error.message == "Bad response: 400 (The plain HTTP request was sent to HTTPS port)"
        }
        let stranger = try URLTokenSigner(
            node: world.phone, url: world.signURL, appAuthorization: world.appToken,
            trust: .caPEM(Array(IMSFixtures.text("other.pem").utf8)))
        #expect { try world.kernel.run("untrusted") { try await stranger.sign(prototype) } } throws: { error in
            guard let error = error as? TokenSigningError else { return false }
            return error.kind == .transport && error.message.contains("CERTIFICATE_VERIFY_FAILED")
        }
        #expect(!world.kernel.trace.all.contains { $0.event == "token-signed" })
        // The same back end without TLS, for a TLS-terminating proxy in front.
        let plainWorld = try SimulatedIMS(tls: false)
        #expect(plainWorld.signer.baseURL == "http://ims-signer:80/")
        #expect(try plainWorld.signedToken().split(separator: ".").count == 3)
        #expect(world.kernel.loop.violations.isEmpty)
    }

    @Test func theSDKTakesTheSignersAnswerWhateverItsContentTypeUnlessStrict() throws {
        let world = try SimulatedIMS()
        try OddBackEnd.start(in: world)
        let prototype = try world.client().makePrototype()
        func sign(_ path: String, _ contentTypes: URLTokenSigner.ContentTypes) -> Result<String, TokenSigningError> {
            do {
                let signer = try world.urlSigner(url: "http://odd\(path)", contentTypes: contentTypes)
                return .success(try world.kernel.run("sign") { try await signer.sign(prototype.compact) })
            } catch let error as TokenSigningError { return .failure(error) } catch { return .failure(TokenSigningError(.transport, "\(error)")) }
        }
        // The relay answers the back end's token as application/octet-stream, or with no Content-Type at all.
        for path in ["/octet-stream", "/untyped"] {
            let lenient = try sign(path, .any).get()
            #expect(try SignedJWT(compact: lenient).claims == prototype.claims)
            guard case .failure(let strict) = sign(path, .strict) else {
                Issue.record("strict accepted \(path)")
                continue
            }
            #expect(strict.kind == .invalidResponseType)
            #expect(
                strict.message
                    == "Invalid response type \(path == "/untyped" ? "(none)" : "application/octet-stream"), expecting text/plain or application/jwt")
        }
        // Strict still takes the back end's own text/plain answer.
        #expect(try sign("/text-plain", .strict).get().split(separator: ".").count == 3)
        // And the whole SDK flow works through the relay.
        let relay = try world.urlSigner(url: "http://odd/octet-stream")
        let relayed = IMSClient(
            node: world.phone, configuration: IMSClient.Configuration(apiKey: IMSFixtures.apiKey, userID: "14", imsURL: "http://ims/"),
            tokenSignerFactory: { relay })
        #expect(try world.kernel.run("session") { try await relayed.startSession() }.claims.subject == "14")
    }

    @Test func theSDKRetriesA503AndGivesUpAfterItsAttempts() throws {
        let world = try SimulatedIMS()
        let client = try world.client()
        world.kernel.faults.set(HostSigningBackend.unavailableFault, .times(2))
        let started = world.kernel.now
        _ = try world.kernel.run("session") { try await client.startSession() }
        #expect(world.kernel.now - started >= .seconds(6))
        world.kernel.faults.set(HostSigningBackend.unavailableFault, .on)
        do {
            _ = try world.kernel.run("session") { try await client.startSession() }
            Issue.record("a session started while the back end was down")
        } catch let error as TokenSigningError {
            #expect(error.kind == .badStatus(503))
        }
    }

    @Test func theSDKRefreshesBeforeExpiry() throws {
        let world = try SimulatedIMS()
        let client = try world.client()
        let first = try world.kernel.run("session") { try await client.startSession() }
        world.kernel.advance(by: .seconds(845))
        let (second, refreshed) = try world.kernel.run("session") { try await client.session() }
        #expect(refreshed)
        #expect(second.claims.id != first.claims.id)
        #expect(try world.kernel.run("status") { try await client.status() }.response.status == .ok)
    }

    @Test func theAdminEndpointsEnrolAndRegister() throws {
        let world = try SimulatedIMS(register: false)
        let admin: HTTPHeaders = ["Authorization": "Bearer ims-admin"]
        let pem = IMSFixtures.text("host.pem")
        let refused = try world.send(
            HTTPRequest(method: .POST, target: "/admin/hosts/\(IMSFixtures.apiKey)/certificates", body: ByteBuffer(string: pem)), to: "ims")
        #expect(refused.status == .unauthorized)
        let garbage = try world.send(
            HTTPRequest(
                method: .POST, target: "/admin/hosts/\(IMSFixtures.apiKey)/certificates", headers: admin,
                body: ByteBuffer(string: "not a certificate")), to: "ims")
        #expect(garbage.status == .badRequest)
        #expect(garbage.text.contains("not a PEM X.509 certificate"))
        let registered = try world.send(
            HTTPRequest(
                method: .POST, target: "/admin/hosts/\(IMSFixtures.apiKey)/certificates", headers: admin,
                body: ByteBuffer(string: pem)), to: "ims")
        #expect(registered.status == .created)
        let enrolled = try world.send(HTTPRequest(method: .POST, target: "/admin/hosts/\(IMSFixtures.apiKey)/users/16", headers: admin), to: "ims")
        #expect(enrolled.status == .created)
        let appToken = try world.send(
            HTTPRequest(method: .POST, target: "/admin/users/16", headers: ["Authorization": "Bearer signer-admin"]), to: "ims-signer")
        #expect(appToken.status == .created)
        let client = try world.client(user: "16", token: appToken.text.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(try world.kernel.run("session") { try await client.startSession() }.claims.subject == "16")
    }

    /// Under simulation the database is on the node's simulated disk: what IMS answered survives a crash of the node.
    @Test func registrationsAndTheReplayCacheSurviveACrash() throws {
        let path = "/var/ims-\(#line)/ims.sqlite"
        let world = try SimulatedIMS()
        let token = try world.signedToken()
        let node = world.kernel.node("ims2")
        let configuration = IMSVerifier.Configuration(databasePath: path, adminToken: "a")
        let first = try world.kernel.run("start") { try await IMSVerifier.start(on: node, configuration: configuration) }
        try first.registerCertificate(issuer: IMSFixtures.apiKey, keyID: nil, pem: IMSFixtures.text("host.pem"))
        try first.enrol(issuer: IMSFixtures.apiKey, subject: "14")
        #expect(throws: Never.self) { try world.kernel.run("verify") { await first.verify(token) }.get() }
        try world.kernel.run("stop") { try await first.stop() }
        #expect(world.kernel.crash(node: "ims2").lost == 0, "every change was synced before its answer")
        #expect(!FileManager.default.fileExists(atPath: path), "the file is on the simulated disk only")
        let second = try world.kernel.run("restart") { try await IMSVerifier.start(on: node, configuration: configuration) }
        if case .failure(let error) = try world.kernel.run("verify", { await second.verify(token) }) {
            #expect(error.code == IMSVerifier.replayed)
        } else {
            Issue.record("replay accepted after restart")
        }
    }
}

/// A back end in front of the real one that relays its token with another Content-Type: `/octet-stream`,
/// `/untyped` (none), `/text-plain`; `/text` answers 200 with text that is not a token.
enum OddBackEnd {
    static func start(in world: SimulatedIMS) throws {
        let odd = world.kernel.node("odd")
        _ = try world.kernel.run("odd server") {
            try await HTTPServer.start(on: odd, port: 80) { request in
                guard request.path != "/text" else { return .text(.ok, "not a token") }
                let forwarded = HTTPRequest(method: .POST, target: "/sign", headers: request.headers, body: request.body)
                guard let answer = try? await world.sendAsync(forwarded, from: odd) else { return .text(.badGateway, "no answer from ims-signer") }
                var headers = answer.headers
                headers.remove(name: "Content-Type")
                switch request.path {
                case "/octet-stream": headers.add(name: "Content-Type", value: "application/octet-stream")
                case "/text-plain": headers.add(name: "Content-Type", value: "text/plain")
                default: break
                }
                return HTTPResponse(status: answer.status, headers: headers, body: answer.body)
            }.get()
        }
    }
}
