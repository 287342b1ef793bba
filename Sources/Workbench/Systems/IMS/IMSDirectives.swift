import IMSSDK
import IMSSigningBackend
import IMSVerifier
import JWT
import Scenario
import Wire

/// `ims …`: enrol users and register the host's certificate (the admin surface), and act as the IMS SDK in
/// an app on the phone. Expects actors started as `ims-signer` and `ims`.
extension Directive {
    static let ims = Directive(
        "ims",
        usage: "ims enrol USER | register-certificate [kid KID] | sign USER [lifetime D] | start-session USER | status USER  [from NODE] [as NAME]",
        summary: "IMS token signing: enrol (${NAME.token}), register the host certificate, sign a prototype (${NAME.token}), SDK session and status calls",
        keywords: ["enrol", "register-certificate", "sign", "start-session", "status", "kid", "lifetime", "from", "as"]
    ) { args throws(ScenarioError) in
        let action = try args.oneOf(["enrol", "register-certificate", "sign", "start-session", "status"])
        let user: Template? = action == "register-certificate" ? nil : try args.value("a user id")
        var keyID: Template?, lifetime: Template?
        var from = "phone", label = action == "register-certificate" ? "certificate" : "ims"
        while !args.isEmpty {
            switch try args.oneOf(["kid", "lifetime", "from", "as"]) {
            case "kid" where action == "register-certificate": keyID = try args.value("a key id")
            case "lifetime" where action == "sign": lifetime = try args.duration()
            case "from": from = try args.name("a node name")
            case "as": label = try args.name("a variable name")
            case let word: throw args.error("'\(word)' does not apply to 'ims \(action)'")
            }
        }
        let (sender, variable, kid, window) = (from, label, keyID, lifetime)
        return Run { context in
            let world = try IMSWorld(context)
            let userID = try user?.resolve(context) ?? ""
            switch action {
            // Enrolment and registration are administrative and instant: they run on the scenario's thread
            // (the kernel's), as an operator's console command would.
            case "enrol":
                let token = world.signer.enrol(user: userID)
                try world.ims.enrol(issuer: world.signer.configuration.apiKey, subject: userID)
                var tokens = context.state("ims.app-tokens") { [String: String]() }
                tokens[userID] = token
                context.setState("ims.app-tokens", tokens)
                context.publish(variable, ["token": token, "status": "enrolled"])
                return nil
            case "register-certificate":
                let certificate = try world.ims.registerCertificate(issuer: world.signer.configuration.apiKey,
                                                                    keyID: try kid?.resolve(context) ?? world.signer.configuration.keyID,
                                                                    pem: world.signer.certificate.pem)
                context.publish(variable, ["status": "registered", "fingerprint": certificate.fingerprint, "subject": certificate.subject])
                return nil
            case "sign":
                let client = try world.client(for: userID, on: context.kernel.node(sender), context: context)
                let seconds = try window.map { try parseDuration($0.resolve(context)).components.seconds }
                let signer = try world.urlSigner(for: userID, on: context.kernel.node(sender), context: context)
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
            case "start-session":
                let client = try world.client(for: userID, on: context.kernel.node(sender), context: context)
                return context.perform("ims start-session", label: variable, timeout: .seconds(300)) {
                    let session = try await client.startSession()
                    return ["status": "started", "session": session.id, "jti": session.claims.id, "exp": "\(session.claims.expires)"]
                }
            default:
                let client = try world.client(for: userID, on: context.kernel.node(sender), context: context)
                return context.perform("ims status", label: variable, timeout: .seconds(300)) {
                    let (response, refreshed) = try await client.status()
                    return ["status": "\(response.status.code)", "body": response.text, "refreshed": "\(refreshed)"]
                }
            }
        }
    }
}

/// The two IMS actors of a scenario, and the SDK clients its apps hold.
private struct IMSWorld {
    let signer: HostSigningBackend
    let ims: IMSVerifier

    init(_ context: ScenarioContext) throws {
        guard let signer = (context.actor(named: "ims-signer") as? RunningIMSSigner)?.backend else {
            throw StepError("no ims-signer running; expected 'start ims-signer' first")
        }
        guard let ims = (context.actor(named: "ims") as? RunningIMS)?.verifier else {
            throw StepError("no ims running; expected 'start ims' first")
        }
        self.signer = signer
        self.ims = ims
    }

    /// The app token `ims enrol` gave the user.
    func appToken(for user: String, context: ScenarioContext) throws -> String {
        guard let token = context.state("ims.app-tokens", create: { [String: String]() })[user] else {
            throw StepError("user \(user) has no app token; expected 'ims enrol \(user)' first")
        }
        return token
    }

    func urlSigner(for user: String, on node: Node, context: ScenarioContext) throws -> URLTokenSigner {
        try URLTokenSigner(node: node, url: signer.baseURL + "sign", appAuthorization: appToken(for: user, context: context))
    }

    /// The SDK instance of the app signed in as `user` on `node`, kept for the rest of the scenario.
    func client(for user: String, on node: Node, context: ScenarioContext) throws -> IMSClient {
        let signer = try urlSigner(for: user, on: node, context: context)
        let configuration = IMSClient.Configuration(apiKey: self.signer.configuration.apiKey, userID: user, imsURL: ims.baseURL)
        return context.state("ims.client.\(node.name).\(user)") {
            IMSClient(node: node, configuration: configuration, tokenSignerFactory: { signer })
        }
    }
}
