/// Why a session could not start or a registration failed — the error model of the original
/// `SCPSessionManagerError`, with the HTTP status and a sentence saying what happened.
public struct SCPmsSessionError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The original's cases, spelled as the original spells them in ``description``.
    public enum Code: String, Sendable, CaseIterable {
        /// User or password empty, or no stored credentials when registering.
        case emptyCredentials = "EmptyCredentials"
        /// The server refused the credentials (401 after the challenge was answered, or 403 to a registration).
        case invalidCredentials = "InvalidCredentials"
        /// 500 or 503.
        case serviceUnavailable = "ServiceUnavailable"
        /// The application endpoint refused the stored X-SMP-APPCID (403): the registration is gone.
        case applicationConnectionIdRefused = "ApplicationConnectionIdRefused"
        /// A 201 whose body has no `d.ApplicationConnectionId`.
        case applicationConnectionIdNotInPayload = "ApplicationConnectionIdNotInPayload"
        /// 404: unknown application or wrong URL.
        case endpointNotFound = "EndpointNotFound"
        /// Any other status, or no answer at all (refused, reset, timed out).
        case unknownNetworkError = "UnknownNetworkError"
    }

    /// Which of the original's cases this is.
    public let code: Code
    /// The HTTP status that caused it, if an answer arrived.
    public let httpStatus: Int?
    /// A sentence saying what happened, with the server's own text when it sent some.
    public let detail: String

    /// An error of this kind; `httpStatus` is the status that caused it, nil when no answer arrived.
    public init(_ code: Code, httpStatus: Int? = nil, _ detail: String) {
        self.code = code
        self.httpStatus = httpStatus
        self.detail = detail
    }

    /// The error as the original spells it, the code's raw value, then the HTTP status when known and the detail,
    /// e.g. `EndpointNotFound (HTTP 404): …`.
    public var description: String {
        "\(code.rawValue)\(httpStatus.map { " (HTTP \($0))" } ?? ""): \(detail)"
    }

    /// The original's mapping of a check or registration status, with 500/503 as ServiceUnavailable in both
    /// (the original mapped them only for the check and reported registration 503s as UnknownNetworkError).
    static func from(status: Int, during step: String, body: String) -> SCPmsSessionError {
        let said = body.isEmpty ? "" : ": " + body.trimmingCharacters(in: [" ", "\n", "\r"])
        switch status {
        case 401: return SCPmsSessionError(.invalidCredentials, httpStatus: status, "\(step) refused the user or password\(said)")
        case 404: return SCPmsSessionError(.endpointNotFound, httpStatus: status, "\(step) found no such application or endpoint\(said)")
        case 500, 503: return SCPmsSessionError(.serviceUnavailable, httpStatus: status, "\(step) failed, the service is unavailable\(said)")
        default: return SCPmsSessionError(.unknownNetworkError, httpStatus: status, "\(step) answered HTTP \(status)\(said)")
        }
    }
}

/// Why a client log upload failed (the cases of SAP's `SAPcpmsLogUploader` errors that apply).
public enum SCPmsLogUploadError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Nothing to upload.
    case emptyLogFiles
    /// The device is not registered (no stored X-SMP-APPCID).
    case notRegistered
    /// Another upload of this session manager is still running.
    case uploadAlreadyInProgress
    /// The server refused the upload (403): log upload is disabled for the application, or the id is unknown.
    case configurationNotEnabled(String)
    /// Any other status, or no answer (status 0).
    case networkError(httpStatusCode: Int, String)

    /// The case's name, e.g. `configurationNotEnabled`.
    public var name: String {
        switch self {
        case .emptyLogFiles: "emptyLogFiles"
        case .notRegistered: "notRegistered"
        case .uploadAlreadyInProgress: "uploadAlreadyInProgress"
        case .configurationNotEnabled: "configurationNotEnabled"
        case .networkError: "networkError"
        }
    }

    /// The case's ``name``, the HTTP status when there was one, and what happened in words.
    public var description: String {
        switch self {
        case .emptyLogFiles: "emptyLogFiles: no log lines to upload"
        case .notRegistered: "notRegistered: the device has no application connection id; start a session first"
        case .uploadAlreadyInProgress: "uploadAlreadyInProgress: another upload is running"
        case .configurationNotEnabled(let said): "configurationNotEnabled (HTTP 403): \(said)"
        case .networkError(let status, let said): "networkError (HTTP \(status)): \(said)"
        }
    }
}

extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
