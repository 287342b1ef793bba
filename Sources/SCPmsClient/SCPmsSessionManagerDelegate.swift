import Synchronization

/// The original session manager's delegate surface: asked for the id when a session starts, told of every check, registration and
/// log upload as it ends.
///
/// Called from the session manager's own task (on the node's loop under simulation). Every method has a
/// default, so a delegate implements only what it needs.
public protocol SCPmsSessionManagerDelegate: AnyObject, Sendable {
    /// The original's `session(_:applicationConnectionIdFor:)`: asked as a session starts. The delegate may add
    /// headers to `session` (sent with every later request of the manager) and return the id to check; nil
    /// or empty uses the stored one (or registers when there is none).
    func sessionManager(_ manager: SCPmsSessionManager, applicationConnectionIdFor session: SCPmsURLSession) -> String?
    /// The stored X-SMP-APPCID was accepted by the application endpoint.
    func sessionManager(_ manager: SCPmsSessionManager, checkDidSucceedWith applicationConnectionId: String)
    /// The check failed (a refused id is followed by a registration when the manager registers again).
    func sessionManager(_ manager: SCPmsSessionManager, checkDidFailWith error: SCPmsSessionError)
    /// The device registered: the new id is already stored and is sent as X-SMP-APPCID from now on.
    func sessionManager(_ manager: SCPmsSessionManager, registerDidSucceedWith applicationConnectionId: String)
    /// A registration failed: no stored credentials, refused credentials, no id in the answer, or the endpoint, the
    /// service or the network failed.
    func sessionManager(_ manager: SCPmsSessionManager, registerDidFailWith error: SCPmsSessionError)
    /// A log upload ended: the number of lines sent, or why not.
    func sessionManager(_ manager: SCPmsSessionManager, logUploadDidFinishWith result: Result<Int, SCPmsLogUploadError>)
}

extension SCPmsSessionManagerDelegate {
    public func sessionManager(_ manager: SCPmsSessionManager, applicationConnectionIdFor session: SCPmsURLSession) -> String? { nil }
    public func sessionManager(_ manager: SCPmsSessionManager, checkDidSucceedWith applicationConnectionId: String) {}
    public func sessionManager(_ manager: SCPmsSessionManager, checkDidFailWith error: SCPmsSessionError) {}
    /// By default nothing: the manager has already stored the new id.
    public func sessionManager(_ manager: SCPmsSessionManager, registerDidSucceedWith applicationConnectionId: String) {}
    /// By default nothing: the async `registerApplication()` and `startSession(user:password:)` throw the same error.
    public func sessionManager(_ manager: SCPmsSessionManager, registerDidFailWith error: SCPmsSessionError) {}
    public func sessionManager(_ manager: SCPmsSessionManager, logUploadDidFinishWith result: Result<Int, SCPmsLogUploadError>) {}
}

/// The session manager's HTTP session as its delegate sees it (the original's `SAPURLSession`): a description and
/// the extra headers every request carries.
public final class SCPmsURLSession: Sendable {
    /// `X-SMP-APPCID Check`, as the original names the session before asking its delegate.
    public let sessionDescription: String
    private let extraHeaders = Mutex<[(name: String, value: String)]>([])

    init(sessionDescription: String) { self.sessionDescription = sessionDescription }

    /// Adds (or replaces) a header sent with every request. A name that is not an HTTP token, or a value with
    /// control characters (a line break would split the request), is refused; returns whether it was taken.
    @discardableResult
    public func setHeader(_ name: String, _ value: String) -> Bool {
        let tokenPunctuation = Set("!#$%&'*+-.^_`|~".unicodeScalars)
        let nameIsToken =
            !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || tokenPunctuation.contains($0))
            }
        let valueIsClean = value.unicodeScalars.allSatisfy { $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }
        guard nameIsToken, valueIsClean else { return false }
        extraHeaders.withLock { headers in
            headers.removeAll { $0.name.lowercased() == name.lowercased() }
            headers.append((name, value))
        }
        return true
    }

    /// The extra headers in the order they were set.
    public var headers: [(name: String, value: String)] { extraHeaders.withLock { $0 } }
}
