import DerivedCredential
import Wire

/// What the Ivanti client does with the URLs apps open: it runs on the node's loop, one URL at a time, and says
/// what it did with each (the bus gateway tells `workbench open`).
extension IvantiClient {
    func receive(_ url: String, from sender: String) -> URLBus.Receipt {
        let request: AppConnectRequest
        do {
            request = try AppConnectRequest(parsing: url)
        } catch {
            node.trace("url-rejected", [("from", sender), ("problem", error.code.rawValue)])
            if URLBus.scheme(of: url) == IvantiScheme.derivedCredential {
                record(Outcome(app: sender, result: "rejected", serialNumber: "", problem: error.code.rawValue, detail: error.detail))
            }
            return .refused("\(error.code.rawValue): \(error.detail)")
        }
        switch request {
        case .register(let appScheme):
            return register(app: sender, scheme: appScheme)
        case .credential(let sealed):
            return receiveCredential(sealed, from: sender)
        case .certificate(let serial, let tag):
            return answerCertificateRequest(serial: serial, tag: tag, from: sender)
        }
    }

    private func register(app: String, scheme: String) -> URLBus.Receipt {
        let state = mutable.withLock { all in
            all.registeredApps[app] = scheme
            return all.state
        }
        node.trace("app-registered", [("app", app), ("scheme", scheme)])
        sendState(state, to: scheme)
        return .accepted("registered app \(app) for AppConnect; its state goes to \(scheme)://state")
    }

    private func receiveCredential(_ sealed: PayloadSeal.Sealed, from sender: String) -> URLBus.Receipt {
        var serial = ""
        do throws(CredentialProblem) {
            if state.secureServices == .unavailable || node.fault(Self.secureServicesFault) {
                throw CredentialProblem(
                    .servicesUnavailable, "secure services are unavailable (the passcode must be entered, the app authorized and AppConnect ready)")
            }
            let payload = try CredentialPayload(decoding: PayloadSeal.open(sealed, with: identity, sender: sender))
            serial = payload.serialNumber
            if let problem = CredentialValidator.problem(in: payload, now: node.clock.unixSeconds) { throw problem }
            do {
                try vault.store(payload, owner: sender, receivedAt: node.clock.unixSeconds)
            } catch {
                throw CredentialProblem(Self.vaultFailure, "the vault could not store the credential: \(error)")
            }
            node.trace("credential-stored", [("app", sender), ("serial", payload.serialNumber), ("tags", payload.tags.joined(separator: ","))])
            record(Outcome(app: sender, result: "stored", serialNumber: payload.serialNumber, problem: "", detail: ""))
            return .accepted("stored credential \(payload.serialNumber) of app \(sender) (\(payload.tags.joined(separator: ", ")))")
        } catch {
            node.trace("credential-rejected", [("app", sender), ("problem", error.code.rawValue), ("serial", serial)])
            record(Outcome(app: sender, result: "rejected", serialNumber: serial, problem: error.code.rawValue, detail: error.detail))
            return .refused("\(error.code.rawValue): \(error.detail)")
        }
    }

    private func answerCertificateRequest(serial: String, tag: CredentialTag, from sender: String) -> URLBus.Receipt {
        guard let scheme = mutable.withLock({ $0.registeredApps[sender] }) else {
            node.trace("certificate-denied", [("app", sender), ("reason", "unregistered"), ("serial", serial)])
            return .refused("app \(sender) has not started AppConnect (appconnect://register?scheme=S), so there is no scheme to answer on")
        }
        let outcome: AppConnectReply.CertificateOutcome
        do {
            // The owner is part of the lookup: another app's credential is indistinguishable from none.
            if let payload = try vault.credential(owner: try credentialLookup.owner(serial, sender, self), serial: serial) {
                if let entry = payload.certificates.first(where: { $0.tag == tag.rawValue }) {
                    outcome = .granted(der: entry.certificate)
                } else {
                    outcome = .denied(reason: "credential \(serial) of app \(sender) has no \(tag.rawValue) certificate")
                }
            } else {
                outcome = .denied(reason: "app \(sender) holds no credential with serial number \(serial)")
            }
        } catch {
            outcome = .denied(reason: "the vault could not be read: \(error)")
        }
        if case .granted = outcome {
            node.trace("certificate-granted", [("app", sender), ("serial", serial), ("tag", tag.rawValue)])
        } else {
            node.trace("certificate-denied", [("app", sender), ("serial", serial), ("tag", tag.rawValue)])
        }
        node.bus.open(
            AppConnectReply.certificate(serial: serial, tag: tag.rawValue, outcome: outcome).url(scheme: scheme).description, from: node.name,
            activating: false)
        switch outcome {
        case .granted: return .accepted("sent the \(tag.rawValue) certificate of credential \(serial) to \(scheme)://")
        case .denied(let reason): return .refused("\(reason) (the denial went to \(scheme)://)")
        }
    }

    private func record(_ outcome: Outcome) {
        mutable.withLock { $0.lastOutcome = outcome }
    }

    /// The vault could not store a credential.
    public static let vaultFailure = CredentialProblem.Code(rawValue: "vault-failure")
}
