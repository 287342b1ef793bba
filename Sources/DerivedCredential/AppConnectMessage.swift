import Base64URLEncoding

/// The URL schemes of the Ivanti client. Apps list both as queried schemes: an installed client that
/// handles `appconnect` but not `appconnectdc` is too old for derived credentials.
public enum IvantiScheme {
    public static let appConnect = "appconnect"
    public static let derivedCredential = "appconnectdc"
}

/// What an app opens towards the Ivanti client.
public enum AppConnectRequest: Sendable, Equatable {
    /// `appconnect://register?scheme=S`: the app starts AppConnect and wants state messages on scheme S.
    case register(appScheme: String)
    /// `appconnectdc://credential?v=1&epk=…&nonce=…&box=…`: a sealed ``CredentialPayload``.
    case credential(PayloadSeal.Sealed)
    /// `appconnectdc://certificate?serial=S&tag=T`: the app asks for the certificate of a stored credential.
    case certificate(serial: String, tag: CredentialTag)

    public var url: BusURL {
        switch self {
        case .register(let scheme):
            BusURL(scheme: IvantiScheme.appConnect, command: "register", query: [("scheme", scheme)])
        case .credential(let sealed):
            BusURL(
                scheme: IvantiScheme.derivedCredential, command: "credential",
                query: [
                    ("v", "1"), ("epk", Base64URL.encode(sealed.ephemeralPublicKey)), ("nonce", Base64URL.encode(sealed.nonce)),
                    ("box", Base64URL.encode(sealed.box)),
                ])
        case .certificate(let serial, let tag):
            BusURL(scheme: IvantiScheme.derivedCredential, command: "certificate", query: [("serial", serial), ("tag", tag.rawValue)])
        }
    }

    /// Parses a URL the Ivanti client received.
    ///
    /// - throws: ``CredentialProblem`` `oversized` or `malformed-url`, saying what was expected.
    public init(parsing text: String) throws(CredentialProblem) {
        let url = try BusURL(parsing: text)
        switch (url.scheme, url.command) {
        case (IvantiScheme.appConnect, "register"):
            let scheme = try url.required("scheme")
            guard BusURL.isScheme(scheme) else { throw CredentialProblem(.malformedURL, "scheme=\(BusURL.excerpt(scheme)) is not a URL scheme") }
            self = .register(appScheme: scheme.lowercased())
        case (IvantiScheme.derivedCredential, "credential"):
            guard try url.required("v") == "1" else {
                throw CredentialProblem(.malformedURL, "payload version v=\(url.value("v") ?? ""); expected 1")
            }
            func bytes(_ name: String, count: Int?) throws(CredentialProblem) -> [UInt8] {
                let text = try url.required(name)
                guard let value = Base64URL.decode(text, padding: .optional), count.map({ value.count == $0 }) ?? true else {
                    throw CredentialProblem(.malformedURL, "\(name) is not base64url\(count.map { " of \($0) bytes" } ?? "")")
                }
                return value
            }
            self = .credential(
                PayloadSeal.Sealed(
                    ephemeralPublicKey: try bytes("epk", count: 32), nonce: try bytes("nonce", count: 12),
                    box: try bytes("box", count: nil)))
        case (IvantiScheme.derivedCredential, "certificate"):
            let serial = try url.required("serial")
            let tagText = try url.required("tag")
            guard let tag = CredentialTag(rawValue: tagText) else {
                throw CredentialProblem(
                    .unknownTag, "tag=\(BusURL.excerpt(tagText)); expected one of \(CredentialTag.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self = .certificate(serial: serial, tag: tag)
        default:
            throw CredentialProblem(
                .malformedURL,
                "\(url.scheme)://\(BusURL.excerpt(url.command)) is not a request the Ivanti client knows; expected appconnect://register, appconnectdc://credential or appconnectdc://certificate"
            )
        }
    }
}

/// What the Ivanti client opens towards an app.
public enum AppConnectReply: Sendable, Equatable {
    /// `<app-scheme>://state?…`
    case state(AppConnectStatus)
    /// `<app-scheme>://certificate?serial=S&tag=T&status=granted&der=…` or `…&status=denied&reason=…`.
    case certificate(serial: String, tag: String, outcome: CertificateOutcome)
    /// `<callback-scheme>://new`: the client asks the app for a new derived credential.
    case newCredential

    public enum CertificateOutcome: Sendable, Equatable {
        case granted(der: [UInt8])
        case denied(reason: String)
    }

    public func url(scheme: String) -> BusURL {
        switch self {
        case .state(let status):
            status.url(appScheme: scheme)
        case .certificate(let serial, let tag, .granted(let der)):
            BusURL(
                scheme: scheme, command: "certificate",
                query: [("serial", serial), ("tag", tag), ("status", "granted"), ("der", Base64URL.encode(der))])
        case .certificate(let serial, let tag, .denied(let reason)):
            BusURL(scheme: scheme, command: "certificate", query: [("serial", serial), ("tag", tag), ("status", "denied"), ("reason", reason)])
        case .newCredential:
            BusURL(scheme: scheme, command: "new")
        }
    }

    /// Parses a URL an app received on one of its schemes.
    public init(parsing text: String) throws(CredentialProblem) {
        let url = try BusURL(parsing: text)
        switch url.command {
        case "state":
            self = .state(try AppConnectStatus(url: url))
        case "new":
            self = .newCredential
        case "certificate":
            let serial = try url.required("serial")
            let tag = try url.required("tag")
            switch try url.required("status") {
            case "granted":
                guard let der = Base64URL.decode(try url.required("der"), padding: .optional) else {
                    throw CredentialProblem(.malformedURL, "der is not base64url")
                }
                self = .certificate(serial: serial, tag: tag, outcome: .granted(der: der))
            case "denied":
                self = .certificate(serial: serial, tag: tag, outcome: .denied(reason: url.value("reason") ?? ""))
            case let other:
                throw CredentialProblem(.malformedURL, "status=\(BusURL.excerpt(other)); expected granted or denied")
            }
        default:
            throw CredentialProblem(
                .malformedURL,
                "\(url.scheme)://\(BusURL.excerpt(url.command)) is not a message an AppConnect app knows; expected state, new or certificate")
        }
    }
}
