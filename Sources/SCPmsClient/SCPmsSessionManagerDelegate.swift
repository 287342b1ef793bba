/// The seed's delegate surface: told of every check, registration and log upload as it ends.
///
/// Called from the session manager's own task (on the node's loop under simulation). Every method has an
/// empty default, so a delegate implements only what it needs.
public protocol SCPmsSessionManagerDelegate: AnyObject, Sendable {
    /// The stored X-SMP-APPCID was accepted by the application endpoint.
    func sessionManager(_ manager: SCPmsSessionManager, checkDidSucceedWith applicationConnectionId: String)
    /// The check failed (a refused id is followed by a registration when the manager registers again).
    func sessionManager(_ manager: SCPmsSessionManager, checkDidFailWith error: SCPmsSessionError)
    func sessionManager(_ manager: SCPmsSessionManager, registerDidSucceedWith applicationConnectionId: String)
    func sessionManager(_ manager: SCPmsSessionManager, registerDidFailWith error: SCPmsSessionError)
    /// A log upload ended: the number of lines sent, or why not.
    func sessionManager(_ manager: SCPmsSessionManager, logUploadDidFinishWith result: Result<Int, SCPmsLogUploadError>)
}

extension SCPmsSessionManagerDelegate {
    public func sessionManager(_ manager: SCPmsSessionManager, checkDidSucceedWith applicationConnectionId: String) {}
    public func sessionManager(_ manager: SCPmsSessionManager, checkDidFailWith error: SCPmsSessionError) {}
    public func sessionManager(_ manager: SCPmsSessionManager, registerDidSucceedWith applicationConnectionId: String) {}
    public func sessionManager(_ manager: SCPmsSessionManager, registerDidFailWith error: SCPmsSessionError) {}
    public func sessionManager(_ manager: SCPmsSessionManager, logUploadDidFinishWith result: Result<Int, SCPmsLogUploadError>) {}
}
