import DerivedCredential
import Synchronization
import Wire

/// Told when the Ivanti client asks the app for a new credential (`<callback-scheme>://new`).
public protocol DerivedCredentialServiceDelegate: AnyObject, Sendable {
    /// The Ivanti client asked `service` for a new credential (`<callback-scheme>://new`); called from
    /// ``DerivedCredentialService/handle(url:)``, on the app's event loop when the URL came over the bus.
    func derivedCredentialServiceDidRequestNewCredential(_ service: DerivedCredentialService)
}

/// `ACDerivedCredentialService`: sends derived credentials to the Ivanti client and receives its requests for
/// new ones on the app's callback scheme.
public final class DerivedCredentialService: Sendable {
    /// The brand name sent with every credential (`initWithBrand:`): never empty.
    public let brand: String
    /// The app's own URL scheme (lowercased) on which the Ivanti client asks for new credentials; sent with every
    /// credential.
    public let callbackScheme: String
    /// The app's AppConnect library: credentials go through its node's bus, and its state says whether they can.
    public let appConnect: AppConnect

    struct Mutable {
        weak var delegate: (any DerivedCredentialServiceDelegate)?
        var newCredentialRequests = 0
    }

    let mutable = Mutex(Mutable())

    /// `initWithBrand:callbackScheme:`; also starts handling the callback scheme, which must be one of the
    /// app's declared URL types (its Info.plist).
    ///
    /// - returns: `nil` — with the reason logged to the device's console — when a parameter is empty, the
    ///   callback scheme is not a URL scheme, is not among the app's URL types or belongs to another app, or
    ///   the Ivanti client does not support derived credentials.
    public init?(brand: String, callbackScheme: String, appConnect: AppConnect) {
        let node = appConnect.node
        let initializer = "ACDerivedCredentialService initWithBrand:callbackScheme: returned nil"
        guard !brand.isEmpty, brand.utf8.count <= CredentialLimits.maxTextBytes else {
            appConnect.logError("\(initializer): the brand is empty or longer than \(CredentialLimits.maxTextBytes) bytes")
            return nil
        }
        guard BusURL.isScheme(callbackScheme), callbackScheme.lowercased() != appConnect.scheme else {
            appConnect.logError(
                "\(initializer): callback scheme '\(callbackScheme)' is not a URL scheme of its own (expected letters, digits, + - ., not the AppConnect scheme)"
            )
            return nil
        }
        guard appConnect.derivedCredentialSupport == .present else {
            appConnect.logError("\(initializer): the Ivanti client does not support derived credentials")
            return nil
        }
        let scheme = callbackScheme.lowercased()
        if let declared = node.bus.declaration(of: node.name), !declared.urlSchemes.contains(scheme) {
            appConnect.logError(
                "\(initializer): callback scheme \(scheme) is not among the app's URL types (CFBundleURLSchemes: \(declared.urlSchemes.joined(separator: ", ")))"
            )
            return nil
        }
        self.brand = brand
        self.callbackScheme = scheme
        self.appConnect = appConnect
        let registered =
            node.bus.owner(of: scheme) == node.name
            || node.bus.register(scheme: scheme, owner: node.name, on: node.eventLoop) { [weak self] url, _ in
                self?.handle(url: url)
            }
        guard registered else {
            appConnect.logError("\(initializer): callback scheme \(scheme) belongs to another app")
            return nil
        }
    }

    /// Told when the Ivanti client asks for a new credential; held weakly, as in UIKit.
    public var delegate: (any DerivedCredentialServiceDelegate)? {
        get { mutable.withLock { $0.delegate } }
        set { mutable.withLock { $0.delegate = newValue } }
    }

    /// How many times the Ivanti client asked for a new credential.
    public var newCredentialRequests: Int { mutable.withLock { $0.newCredentialRequests } }

    /// `sendDerivedCredential:withError:`: seals the credential for the Ivanti client and opens it as
    /// `appconnectdc://credential?…`. On success the Ivanti client comes to the front and control does not
    /// return to the app by itself (the app hears `didBecomeActive` when the user or the client brings it
    /// back); whether the client stored the credential is its business (it validates the key material).
    ///
    /// - throws: ``DerivedCredentialServiceError`` with the SDK's codes: `missingClient` / `oldClient` when no
    ///   supporting client handles `appconnectdc`, `notReady` before AppConnect is ready, `serviceUnavailable`
    ///   while secure services are not available, `invalid` for a credential the client would refuse on its
    ///   face (tags, empty or oversized data), `unknown` when the client's key is unusable.
    public func send(_ credential: DerivedCredential) throws(DerivedCredentialServiceError) {
        do {
            try deliver(credential)
            appConnect.node.trace("credential-sent", [("serial", credential.serialNumber)])
        } catch {
            appConnect.node.trace("credential-send-failed", [("code", String(error.code.rawValue)), ("serial", credential.serialNumber)])
            throw error
        }
    }

    private func deliver(_ credential: DerivedCredential) throws(DerivedCredentialServiceError) {
        switch appConnect.derivedCredentialSupport {
        case .missingClient: throw DerivedCredentialServiceError(.missingClient, "no Ivanti client is installed")
        case .oldClient:
            throw DerivedCredentialServiceError(.oldClient, "the installed Ivanti client is too old for derived credentials; it must be upgraded")
        case .present: break
        }
        guard appConnect.isReady, let clientKey = appConnect.clientKey else {
            throw DerivedCredentialServiceError(.notReady, "AppConnect is not ready (start it and wait for the Ivanti client's state)")
        }
        guard appConnect.secureServicesAvailability == .available else {
            throw DerivedCredentialServiceError(
                .serviceUnavailable, "secure services are unavailable; wait for secureServicesAvailabilityChangedTo: available")
        }
        let payload = credential.payload(brand: brand, callbackScheme: callbackScheme)
        if let problem = payload.structuralProblem() {
            throw DerivedCredentialServiceError(.invalid, problem.description)
        }
        let node = appConnect.node
        let sealed: PayloadSeal.Sealed
        do {
            sealed = try PayloadSeal.seal(
                payload.encoded(), to: clientKey, ephemeralSecret: node.secrets.bytes(32), nonce: node.secrets.bytes(12),
                sender: node.name)
        } catch {
            throw DerivedCredentialServiceError(.unknown, error.detail)
        }
        let url = AppConnectRequest.credential(sealed).url.description
        guard url.utf8.count <= CredentialLimits.maxURLBytes else {
            throw DerivedCredentialServiceError(
                .invalid, "the sealed credential takes \(url.utf8.count) bytes; a URL may take at most \(CredentialLimits.maxURLBytes)")
        }
        guard node.bus.open(url, from: node.name) else {
            throw DerivedCredentialServiceError(.missingClient, "the Ivanti client disappeared before the credential could be opened")
        }
    }

    /// The app delegate's `application(_:open:options:)` part for this service.
    ///
    /// - returns: `true` for `<callback-scheme>://new` (the delegate is asked for a new credential).
    @discardableResult
    public func handle(url: String) -> Bool {
        guard let parsed = try? BusURL(parsing: url), parsed.scheme == callbackScheme, parsed.command == "new" else {
            appConnect.node.trace("appconnect-error", [("problem", "unexpected URL on the callback scheme")])
            return false
        }
        let delegate = mutable.withLock { all in
            all.newCredentialRequests += 1
            return all.delegate
        }
        appConnect.node.trace("new-credential-requested", [("scheme", callbackScheme)])
        delegate?.derivedCredentialServiceDidRequestNewCredential(self)
        return true
    }
}
