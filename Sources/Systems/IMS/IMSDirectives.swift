import Foundation
import IMSSDK
import IMSSigningBackend
import IMSVerifier
import JWT
import NIOCore
import NIOSSL
import PercentEncoding
import Scenario
import SystemKit
import Wire
import WireHTTP

/// `ims …`: enrol users and register the host's certificate (the admin surface), act as the IMS SDK in
/// an app on the phone, and send raw requests to the signing back end. Expects actors started as
/// `ims-signer` and `ims`.
extension Directive {
    static let ims = Directive(
        "ims",
        usage: """
            ims enrol USER [token T] | register-certificate [kid KID] | sign USER [lifetime D] [content-types any|strict] | \
            start-session USER | status USER | request [file FILE] [header N V]… [body TEXT]  [from NODE] [as NAME]
            """,
        summary:
            "IMS token signing: enrol (${NAME.token}), register the host certificate, sign a prototype (${NAME.token}), SDK session and status calls, a raw request to the back end",
        defaults: """
            from phone; as ims (certificate for register-certificate, request for request); enrol: a token the signer issues; \
            register-certificate: kid the signer's key id; sign: the SDK's lifetime, content-types any; \
            request: POST /sign with no extra header and no body
            """,
        keywords: [
            "enrol", "register-certificate", "sign", "start-session", "status", "request", "token", "kid", "lifetime", "content-types",
            "any", "strict", "file", "header", "body", "from", "as",
        ]
    ) { args throws(ScenarioError) in
        let line = try IMSLine(&args)
        args.declare(node: line.from)
        args.binds(line.label, fields: line.request.fields + ResultBinding.performed)
        let (sender, variable) = (line.from, line.label)
        return Run { context in
            let world = try IMSWorld(context)
            switch line.request {
            // Enrolment and registration are administrative and instant: they run on the scenario's thread
            // (the kernel's), as an operator's console command would.
            case .enrol(let user, let token):
                let userID = try user.resolve(context)
                let appToken: String
                if let given = try token?.resolve(context) {
                    try world.signer.enrol(user: userID, appToken: given)
                    appToken = given
                } else {
                    appToken = world.signer.enrol(user: userID)
                }
                var tokens = context.state(.imsAppTokens) { [:] }
                tokens[userID] = appToken
                context.setState(.imsAppTokens, tokens)
                let issuer = world.signer.configuration.apiKey
                switch world.ims {
                case .actor(let ims):
                    try ims.enrol(issuer: issuer, subject: userID)
                    context.publish(variable, ["token": appToken, "status": "enrolled", "error": "", "elapsed": Duration.zero.workbenchText])
                    return nil
                case .target(let target):
                    let path = "/admin/hosts/\(Percent.encode(issuer))/users/\(Percent.encode(userID))"
                    let request = try IMSWorld.adminRequest(path, target: target)
                    let node = world.signer.node
                    return context.perform("ims enrol", label: variable, timeout: .seconds(60)) {
                        try await IMSWorld.sendAdmin(request, to: target, from: node)
                        return ["token": appToken, "status": "enrolled"]
                    }
                }
            case .registerCertificate(let kid):
                let (issuer, pem) = (world.signer.configuration.apiKey, world.signer.certificate.pem)
                let keyID = try kid?.resolve(context) ?? world.signer.configuration.keyID
                switch world.ims {
                case .actor(let ims):
                    let certificate = try ims.registerCertificate(issuer: issuer, keyID: keyID, pem: pem)
                    context.publish(
                        variable,
                        [
                            "status": "registered", "fingerprint": certificate.fingerprint, "subject": certificate.subject, "error": "",
                            "elapsed": Duration.zero.workbenchText,
                        ])
                    return nil
                case .target(let target):
                    let certificate = try HostCertificate(pem: pem)
                    let query = keyID.map { "?kid=" + Percent.encode($0) } ?? ""
                    var request = try IMSWorld.adminRequest("/admin/hosts/\(Percent.encode(issuer))/certificates" + query, target: target)
                    request.body = ByteBuffer(string: pem)
                    let (node, sent) = (world.signer.node, request)
                    return context.perform("ims register-certificate", label: variable, timeout: .seconds(60)) {
                        try await IMSWorld.sendAdmin(sent, to: target, from: node)
                        return ["status": "registered", "fingerprint": certificate.fingerprint, "subject": certificate.subject]
                    }
                }
            case .sign(let user, let lifetime, let contentTypes):
                let userID = try user.resolve(context)
                let client = try world.client(for: userID, on: context.world.node(sender), context: context)
                let seconds = try lifetime.map { try $0.duration(context).components.seconds }
                let signer = try world.urlSigner(for: userID, on: context.world.node(sender), context: context, contentTypes: contentTypes)
                return context.perform("ims sign", label: variable, timeout: .seconds(120)) {
                    var prototype = client.makePrototype()
                    // A scenario may ask for a window the SDK would never build, to see the back end refuse it.
                    if let seconds { prototype.claims.expires = prototype.claims.notBefore + seconds }
                    let claims = prototype.claims
                    var values = ["jti": claims.id, "nbf": "\(claims.notBefore)", "exp": "\(claims.expires)", "prototype": prototype.compact]
                    do {
                        values["token"] = try await signer.sign(prototype.compact)
                        values["status"] = "signed"
                    } catch {
                        values["status"] = "error"
                        values["error"] = "\(error)"
                        values["token"] = ""
                    }
                    return values
                }
            case .request(let requestFile, let requestHeaders, let requestBody):
                var request = HTTPRequest(method: .POST, target: "/sign")
                if let requestFile {
                    request = try RecordedRequest(
                        text: ActorKind.readFixture(try ScenarioPaths.existing(try requestFile.resolve(context), in: context), "file")
                    ).request
                }
                for header in requestHeaders {
                    request.headers.replaceOrAdd(name: try header.name.resolve(context), value: try header.value.resolve(context))
                }
                if let requestBody { request.body = ByteBuffer(string: try requestBody.resolve(context)) }
                let (node, finalRequest) = (context.world.node(sender), request)
                return context.perform("ims request", label: variable, timeout: .seconds(60)) {
                    do {
                        let response = try await world.sendToSigner(finalRequest, from: node)
                        return [
                            "status": "\(response.status.code)", "body": response.text, "error": "",
                            "content-type": response.headers.first(name: "Content-Type") ?? "",
                        ]
                    } catch {
                        return ["status": "error", "body": "", "error": "\(error)", "content-type": ""]
                    }
                }
            case .startSession(let user):
                let client = try world.client(for: try user.resolve(context), on: context.world.node(sender), context: context)
                return context.perform("ims start-session", label: variable, timeout: .seconds(300)) {
                    let session = try await client.startSession()
                    return ["status": "started", "session": session.id, "jti": session.claims.id, "exp": "\(session.claims.expires)"]
                }
            case .status(let user):
                let client = try world.client(for: try user.resolve(context), on: context.world.node(sender), context: context)
                return context.perform("ims status", label: variable, timeout: .seconds(300)) {
                    let (response, refreshed) = try await client.status()
                    return ["status": "\(response.status.code)", "body": response.text, "refreshed": "\(refreshed)"]
                }
            }
        }
    }
}

/// An `ims` line, its words parsed once when the line is read: which call, with the options that apply to it alone.
/// Only what names a variable (`${e.token}`, a user id) is resolved when the line runs.
private struct IMSLine: Sendable {
    enum Request: Sendable {
        case enrol(user: Template, token: Template?)
        case registerCertificate(keyID: Template?)
        case sign(user: Template, lifetime: Template?, contentTypes: URLTokenSigner.ContentTypes)
        case startSession(user: Template)
        case status(user: Template)
        case request(file: Template?, headers: [Header], body: Template?)

        /// The result fields it gives, instant against the actor or a request against a target (`--target ims=…`)
        /// alike, besides those every performed line gives.
        var fields: [String] {
            switch self {
            case .enrol: ["token", "status"]
            case .registerCertificate: ["status", "fingerprint", "subject"]
            case .sign: ["jti", "nbf", "exp", "prototype", "token", "status"]
            case .request: ["status", "body", "content-type"]
            case .startSession: ["status", "session", "jti", "exp"]
            case .status: ["status", "body", "refreshed"]
            }
        }
    }

    /// A header `ims request` adds or replaces.
    struct Header: Sendable {
        let name: Template
        let value: Template
    }

    var request: Request
    var from = "phone"
    var label: String

    init(_ args: inout Arguments) throws(ScenarioError) {
        let action = try args.oneOf(["enrol", "register-certificate", "sign", "start-session", "status", "request"])
        let user: Template? = ["register-certificate", "request"].contains(action) ? nil : try args.value("a user id")
        var keyID: Template?
        var lifetime: Template?
        var appToken: Template?
        var file: Template?
        var body: Template?
        var headers: [Header] = []
        var contentTypes = URLTokenSigner.ContentTypes.any
        var label: String?
        while !args.isEmpty {
            let column = args.peek?.column ?? 0  // a word of another call is refused where it stands
            switch try args.oneOf(["token", "kid", "lifetime", "content-types", "file", "header", "body", "from", "as"]) {
            case "token" where action == "enrol": appToken = try args.value("the app token the host's login issued")
            case "kid" where action == "register-certificate": keyID = try args.value("a key id")
            case "lifetime" where action == "sign": lifetime = try args.duration()
            case "content-types" where action == "sign": contentTypes = try args.oneOf(["any", "strict"]) == "strict" ? .strict : .any
            case "file" where action == "request": file = try args.path("a file holding an HTTP/1.1 request")
            case "header" where action == "request":
                headers.append(Header(name: try args.value("a header name"), value: try args.value("a header value")))
            case "body" where action == "request": body = try args.value("the body text")
            case "from": from = try args.name("a node name")
            case "as": label = try args.name("a variable name")
            case let word:
                throw ScenarioError(file: args.file, line: args.line, column: column, message: "'\(word)' does not apply to 'ims \(action)'")
            }
        }
        switch (action, user) {
        case ("enrol", let user?): request = .enrol(user: user, token: appToken)
        case ("sign", let user?): request = .sign(user: user, lifetime: lifetime, contentTypes: contentTypes)
        case ("start-session", let user?): request = .startSession(user: user)
        case ("status", let user?): request = .status(user: user)
        case ("request", _): request = .request(file: file, headers: headers, body: body)
        default: request = .registerCertificate(keyID: keyID)
        }
        self.label = label ?? ["register-certificate": "certificate", "request": "request"][action] ?? "ims"
    }
}

/// The two IMS actors of a scenario, and the SDK clients its apps hold.
private struct IMSWorld {
    /// IMS: the workbench's actor, or an outside server (`--target ims=http://ADMIN:TOKEN@HOST:PORT`), enrolled and
    /// told the host's certificate through its admin endpoints, as an operator would.
    enum IMS {
        case actor(IMSVerifier)
        case target(Target)

        var baseURL: String {
            switch self {
            case .actor(let verifier): verifier.baseURL
            case .target(let target): target.bareURL.hasSuffix("/") ? target.bareURL : target.bareURL + "/"
            }
        }
    }

    let signer: HostSigningBackend
    let ims: IMS

    init(_ context: ScenarioContext) throws {
        guard let signer = (context.actor(named: "ims-signer") as? RunningIMSSigner)?.backend else {
            throw StepError("no ims-signer running; expected 'start ims-signer' first")
        }
        self.signer = signer
        if let target = context.targets["ims"] {
            ims = .target(target)
        } else if let verifier = (context.actor(named: "ims") as? RunningIMS)?.verifier {
            ims = .actor(verifier)
        } else {
            throw StepError("no ims running; expected 'start ims' first")
        }
    }

    /// `POST path` to a target's admin endpoints, with its account's password as the admin bearer token.
    static func adminRequest(_ path: String, target: Target) throws -> HTTPRequest {
        guard let token = target.account?.password, !token.isEmpty else {
            let variables = Target.credentialVariables(of: target.kind)
            throw StepError(
                "the target IMS's admin token is needed to enrol users and register the host's certificate: give it as the URL's "
                    + "password (http://admin:TOKEN@HOST:PORT) or in \(variables.password)")
        }
        var request = HTTPRequest(method: .POST, target: path)
        request.headers.replaceOrAdd(name: "Authorization", value: "Bearer \(token)")
        request.headers.replaceOrAdd(name: "Content-Type", value: "text/plain")
        return request
    }

    /// Sends an admin request to the target IMS; anything but a 2xx is an error quoting its answer.
    static func sendAdmin(_ request: HTTPRequest, to target: Target, from node: Node) async throws {
        let response = try await HTTPClient.send(request, host: target.host, port: target.port, on: node)
        guard (200..<300).contains(response.status.code) else {
            throw StepError("the target IMS (\(target.shown)) answered \(response.status.code) to the admin request: \(response.text)")
        }
    }

    /// The app token `ims enrol` gave the user.
    func appToken(for user: String, context: ScenarioContext) throws -> String {
        guard let token = context.state(.imsAppTokens, create: { [:] })[user] else {
            throw StepError("user \(user) has no app token; expected 'ims enrol \(user)' first")
        }
        return token
    }

    /// The workbench's test CA, which issued the back end's HTTPS certificate (`Fixtures/tls/server.pem`).
    static func testCA() throws -> [UInt8] {
        Array(try ActorKind.readFixture("Fixtures/tls/ca.pem", "ca").utf8)
    }

    func urlSigner(
        for user: String, on node: Node, context: ScenarioContext, contentTypes: URLTokenSigner.ContentTypes = .any
    ) throws -> URLTokenSigner {
        try URLTokenSigner(
            node: node, url: signer.baseURL + "sign", appAuthorization: appToken(for: user, context: context),
            trust: .caPEM(Self.testCA()), contentTypes: contentTypes, stack: context.httpStack)
    }

    /// Sends `request` as is to the back end (over TLS, trusting the test CA, when it serves HTTPS).
    func sendToSigner(_ request: HTTPRequest, from node: Node) async throws -> HTTPResponse {
        guard let listener = signer.listener else { throw StepError("the ims-signer is not listening") }
        var tls: NIOSSLContext?
        if signer.configuration.tls != nil {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Self.testCA()))
            tls = try NIOSSLContext(configuration: configuration)
        }
        let (context, host) = (tls, listener.host)
        return try await HTTPClient.send(request, host: host, port: listener.port, on: node) { channel in
            channel.eventLoop.makeCompletedFuture {
                if let context { try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: host)) }
            }
        }
    }

    /// The SDK instance of the app signed in as `user` on `node`, kept for the rest of the scenario.
    func client(for user: String, on node: Node, context: ScenarioContext) throws -> IMSClient {
        let signer = try urlSigner(for: user, on: node, context: context)
        let configuration = IMSClient.Configuration(
            apiKey: self.signer.configuration.apiKey, userID: user, imsURL: ims.baseURL, httpStack: context.httpStack)
        return context.state(.imsClient, for: "\(node.name).\(user)") {
            IMSClient(node: node, configuration: configuration, tokenSignerFactory: { signer })
        }
    }
}

extension RunState where Value == [String: String] {
    /// The app token `ims enrol` gave each user, by user.
    static let imsAppTokens = RunState("ims.app-tokens")
}

extension RunState where Value == IMSClient {
    /// The SDK instance of each app user, by `NODE.USER`.
    static let imsClient = RunState("ims.client")
}
