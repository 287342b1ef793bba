import DerivedCredential
import NIOCore
import Synchronization
import Wire

/// Receives AppConnect's secure-services availability changes (`AppConnectDelegate`).
public protocol AppConnectDelegate: AnyObject, Sendable {
    /// `appConnect:secureServicesAvailabilityChangedTo:`; called on the app's event loop.
    func appConnect(_ appConnect: AppConnect, secureServicesAvailabilityChangedTo availability: SecureServicesAvailability)
}

/// The AppConnect library inside one app: its view of the Ivanti client's state, learned over the bus.
///
/// The real library is a singleton that reads the process's environment; here an app holds one instance
/// for its `Node` (the simulated phone app), because the workbench runs many apps in one process and
/// keeps no globals. ``start()`` registers the app's AppConnect scheme and sends
/// `appconnect://register?scheme=…`; the Ivanti client answers with `<scheme>://state?…` now and on every
/// change. Everything else goes through URLs on the bus: this module never sees the Ivanti client's code.
public final class AppConnect: Sendable {
    /// The app's node: its bus carries AppConnect's URLs, and its trace gets the library's console errors.
    public let node: Node
    /// The scheme this app receives AppConnect messages on.
    public let scheme: String

    struct Mutable {
        var status: AppConnectStatus?
        weak var delegate: (any AppConnectDelegate)?
        var streams: [Int: AsyncStream<SecureServicesAvailability>.Continuation] = [:]
        var nextStream = 0
        /// Waiting ``AppConnect/certificate(serialNumber:tag:)`` calls, by what they asked for, each with its id
        /// so that its own timeout ends only it.
        var certificateRequests: [CertificateRequestKey: [(id: Int, continuation: CheckedContinuation<[UInt8], any Error>)]] = [:]
        var nextRequest = 0
    }

    struct CertificateRequestKey: Hashable {
        let serial: String
        let tag: String
    }

    let mutable = Mutex(Mutable())

    /// How long ``certificate(serialNumber:tag:)`` waits for the Ivanti client's answer.
    public static let replyTimeout: TimeAmount = .seconds(5)

    /// The library of the app on `node`, receiving AppConnect messages on `scheme` (kept lowercased); it does
    /// nothing until ``start()``.
    ///
    /// - returns: `nil` when `scheme` is not a URL scheme.
    public init?(node: Node, scheme: String) {
        guard BusURL.isScheme(scheme) else { return nil }
        self.node = node
        self.scheme = scheme.lowercased()
    }

    /// What an AppConnect app lists in its Info.plist's `LSApplicationQueriesSchemes`, so the library can ask
    /// `canOpenURL` which Ivanti client is installed.
    public static let queriesSchemes = [IvantiScheme.appConnect, IvantiScheme.derivedCredential]

    /// Starts AppConnect: registers the app's scheme and introduces the app to the Ivanti client.
    ///
    /// - returns: whether an Ivanti client received the introduction (`false` when none is installed, the
    ///   scheme is not among the app's declared URL types, or another app already owns it).
    @discardableResult
    public func start() -> Bool {
        if let declared = node.bus.declaration(of: node.name), !declared.urlSchemes.contains(scheme) {
            logError(
                "AppConnect scheme \(scheme) is not among the app's URL types (CFBundleURLSchemes: \(declared.urlSchemes.joined(separator: ", ")))")
            return false
        }
        guard node.bus.register(scheme: scheme, owner: node.name, on: node.eventLoop, handler: { [self] url, _ in handle(url: url) }) else {
            logError("AppConnect scheme \(scheme) belongs to another app")
            return false
        }
        // The introduction is AppConnect's background exchange: no app switch.
        return node.bus.open(AppConnectRequest.register(appScheme: scheme).url.description, from: node.name, activating: false)
    }

    /// Writes `message` to the device's console, as the AppConnect library logs its errors there.
    func logError(_ message: String) {
        node.trace("console", [("level", "error"), ("message", message)])
    }

    /// The delegate told of availability changes (held weakly, as in UIKit).
    public var delegate: (any AppConnectDelegate)? {
        get { mutable.withLock { $0.delegate } }
        set { mutable.withLock { $0.delegate = newValue } }
    }

    /// Availability changes as an async sequence: each call gives a new stream, which starts with the current
    /// availability and then yields every change.
    public func secureServicesAvailabilityChanges() -> AsyncStream<SecureServicesAvailability> {
        let (stream, continuation) = AsyncStream<SecureServicesAvailability>.makeStream()
        let current = mutable.withLock { all in
            let id = all.nextStream
            all.nextStream += 1
            all.streams[id] = continuation
            continuation.onTermination = { [weak self] _ in self?.mutable.withLock { _ = $0.streams.removeValue(forKey: id) } }
            return all.status?.secureServices ?? .unavailable
        }
        continuation.yield(current)
        return stream
    }

    // MARK: - State

    /// `authState`: unauthorized until the Ivanti client said otherwise.
    public var authState: AuthState { mutable.withLock { $0.status?.authState ?? .unauthorized } }
    /// `managedPolicy`.
    public var managedPolicy: ManagedPolicy { mutable.withLock { $0.status?.managedPolicy ?? .unknown } }
    /// `secureServicesAvailability`.
    public var secureServicesAvailability: SecureServicesAvailability { mutable.withLock { $0.status?.secureServices ?? .unavailable } }
    /// `isReady`: the Ivanti client has answered and reports AppConnect ready.
    public var isReady: Bool { mutable.withLock { $0.status?.ready ?? false } }

    /// `+[ACDerivedCredentialService derivedCredentialSupport]`: which Ivanti client the phone has, judged by
    /// the schemes it handles (`canOpenURL`), as the real library does with its queried schemes — so an app
    /// that did not list ``queriesSchemes`` sees no client at all.
    public var derivedCredentialSupport: DerivedCredentialSupport {
        if node.bus.canOpen(IvantiScheme.derivedCredential + "://", from: node.name) { return .present }
        if node.bus.canOpen(IvantiScheme.appConnect + "://", from: node.name) { return .oldClient }
        return .missingClient
    }

    /// `+[ACDerivedCredentialService canSendCredential]`: a supporting client is installed and secure services
    /// are available.
    public var canSendCredential: Bool {
        derivedCredentialSupport == .present && secureServicesAvailability == .available
    }

    var clientKey: [UInt8]? { mutable.withLock { $0.status?.clientKey } }

    // MARK: - Certificates

    /// Asks the Ivanti client for the certificate (DER) tagged `tag` of the credential `serialNumber` this app
    /// sent. Another app's credential is denied like a missing one.
    ///
    /// - throws: ``AppConnectError``: denied (with the client's reason), no client, not started, or no answer
    ///   within ``replyTimeout``.
    public func certificate(serialNumber: String, tag: CredentialTag) async throws -> [UInt8] {
        guard mutable.withLock({ $0.status }) != nil else {
            throw AppConnectError("AppConnect has not heard from the Ivanti client; call start() and wait for its state first")
        }
        let key = CertificateRequestKey(serial: serialNumber, tag: tag.rawValue)
        return try await withCheckedThrowingContinuation { continuation in
            let id = mutable.withLock { all in
                all.nextRequest += 1
                all.certificateRequests[key, default: []].append((all.nextRequest, continuation))
                return all.nextRequest
            }
            let url = AppConnectRequest.certificate(serial: serialNumber, tag: tag).url.description
            guard node.bus.open(url, from: node.name, activating: false) else {
                finishCertificateRequests(key, only: id, .failure(AppConnectError("no Ivanti client that supports derived credentials is installed")))
                return
            }
            node.schedule(in: Self.replyTimeout) { [self] in
                finishCertificateRequests(key, only: id, .failure(AppConnectError("the Ivanti client did not answer within \(Self.replyTimeout)")))
            }
        }
    }

    /// Resumes the requests waiting for `key` (or only request `id`) with `result`.
    private func finishCertificateRequests(_ key: CertificateRequestKey, only id: Int? = nil, _ result: Result<[UInt8], any Error>) {
        let finished = mutable.withLock { all -> [CheckedContinuation<[UInt8], any Error>] in
            let waiting = all.certificateRequests[key] ?? []
            let (done, remaining) = (waiting.filter { id == nil || $0.id == id }, waiting.filter { id != nil && $0.id != id })
            all.certificateRequests[key] = remaining.isEmpty ? nil : remaining
            return done.map(\.continuation)
        }
        for continuation in finished { continuation.resume(with: result) }
    }

    // MARK: - URLs

    private func handle(url: String) {
        let message: AppConnectReply
        do {
            message = try AppConnectReply(parsing: url)
        } catch {
            node.trace("appconnect-error", [("problem", error.code.rawValue)])
            return
        }
        switch message {
        case .state(let status):
            let (previous, delegate, streams) = mutable.withLock { all in
                defer { all.status = status }
                return (all.status?.secureServices ?? .unavailable, all.delegate, all.streams.sorted { $0.key < $1.key }.map(\.value))
            }
            node.trace(
                "appconnect-state",
                [
                    ("auth", status.authState.word), ("policy", status.managedPolicy.word), ("ready", String(status.ready)),
                    ("secure", status.secureServices.word),
                ])
            if previous != status.secureServices {
                node.trace("secure-services-changed", [("availability", status.secureServices.word)])
                delegate?.appConnect(self, secureServicesAvailabilityChangedTo: status.secureServices)
                for stream in streams { stream.yield(status.secureServices) }
            }
        case .certificate(let serial, let tag, let outcome):
            let result: Result<[UInt8], any Error> =
                switch outcome {
                case .granted(let der): .success(der)
                case .denied(let reason): .failure(AppConnectError("denied: \(reason)"))
                }
            finishCertificateRequests(CertificateRequestKey(serial: serial, tag: tag), result)
        case .newCredential:
            node.trace("appconnect-error", [("problem", "new arrived on the AppConnect scheme, not a callback scheme")])
        }
    }
}

/// A failure of an AppConnect call that is not a derived-credential send (those throw
/// ``DerivedCredentialServiceError``).
public struct AppConnectError: Error, CustomStringConvertible, Sendable {
    /// What failed, in words, e.g. `denied: …` when the Ivanti client refused a certificate.
    public let description: String
    /// An error that `description` explains, e.g. `denied: …` when the Ivanti client refused a certificate.
    public init(_ description: String) { self.description = description }
}
