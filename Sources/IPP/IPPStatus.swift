/// An IPP status-code (RFC 8011 §B and the IANA IPP registry), with RFC names
/// such as `client-error-not-found`.
///
/// A struct so that unregistered codes read from the wire stay representable.
public struct IPPStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The status-code as it is on the wire, e.g. 0x0406 for client-error-not-found.
    public var rawValue: UInt16
    /// The status with this code, registered or not.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// successful-ok (0x0000)
    public static let successfulOK = IPPStatus(rawValue: 0x0000)
    /// successful-ok-ignored-or-substituted-attributes (0x0001)
    public static let successfulOKIgnoredOrSubstitutedAttributes = IPPStatus(rawValue: 0x0001)
    /// successful-ok-conflicting-attributes (0x0002)
    public static let successfulOKConflictingAttributes = IPPStatus(rawValue: 0x0002)
    /// successful-ok-ignored-subscriptions (0x0003)
    public static let successfulOKIgnoredSubscriptions = IPPStatus(rawValue: 0x0003)
    /// successful-ok-too-many-events (0x0005)
    public static let successfulOKTooManyEvents = IPPStatus(rawValue: 0x0005)
    /// successful-ok-events-complete (0x0007)
    public static let successfulOKEventsComplete = IPPStatus(rawValue: 0x0007)
    /// client-error-bad-request (0x0400)
    public static let badRequest = IPPStatus(rawValue: 0x0400)
    /// client-error-forbidden (0x0401)
    public static let forbidden = IPPStatus(rawValue: 0x0401)
    /// client-error-not-authenticated (0x0402)
    public static let notAuthenticated = IPPStatus(rawValue: 0x0402)
    /// client-error-not-authorized (0x0403)
    public static let notAuthorized = IPPStatus(rawValue: 0x0403)
    /// client-error-not-possible (0x0404)
    public static let notPossible = IPPStatus(rawValue: 0x0404)
    /// client-error-timeout (0x0405)
    public static let timeout = IPPStatus(rawValue: 0x0405)
    /// client-error-not-found (0x0406)
    public static let notFound = IPPStatus(rawValue: 0x0406)
    /// client-error-gone (0x0407)
    public static let gone = IPPStatus(rawValue: 0x0407)
    /// client-error-request-entity-too-large (0x0408)
    public static let requestEntityTooLarge = IPPStatus(rawValue: 0x0408)
    /// client-error-request-value-too-long (0x0409)
    public static let requestValueTooLong = IPPStatus(rawValue: 0x0409)
    /// client-error-document-format-not-supported (0x040A)
    public static let documentFormatNotSupported = IPPStatus(rawValue: 0x040A)
    /// client-error-attributes-or-values-not-supported (0x040B)
    public static let attributesOrValuesNotSupported = IPPStatus(rawValue: 0x040B)
    /// client-error-uri-scheme-not-supported (0x040C)
    public static let uriSchemeNotSupported = IPPStatus(rawValue: 0x040C)
    /// client-error-charset-not-supported (0x040D)
    public static let charsetNotSupported = IPPStatus(rawValue: 0x040D)
    /// client-error-conflicting-attributes (0x040E)
    public static let conflictingAttributes = IPPStatus(rawValue: 0x040E)
    /// client-error-compression-not-supported (0x040F)
    public static let compressionNotSupported = IPPStatus(rawValue: 0x040F)
    /// client-error-compression-error (0x0410)
    public static let compressionError = IPPStatus(rawValue: 0x0410)
    /// client-error-document-format-error (0x0411)
    public static let documentFormatError = IPPStatus(rawValue: 0x0411)
    /// client-error-document-access-error (0x0412)
    public static let documentAccessError = IPPStatus(rawValue: 0x0412)
    /// client-error-attributes-not-settable (0x0413)
    public static let attributesNotSettable = IPPStatus(rawValue: 0x0413)
    /// client-error-ignored-all-subscriptions (0x0414)
    public static let ignoredAllSubscriptions = IPPStatus(rawValue: 0x0414)
    /// client-error-too-many-subscriptions (0x0415)
    public static let tooManySubscriptions = IPPStatus(rawValue: 0x0415)
    /// client-error-document-password-error (0x0418)
    public static let documentPasswordError = IPPStatus(rawValue: 0x0418)
    /// client-error-document-permission-error (0x0419)
    public static let documentPermissionError = IPPStatus(rawValue: 0x0419)
    /// client-error-document-security-error (0x041A)
    public static let documentSecurityError = IPPStatus(rawValue: 0x041A)
    /// client-error-document-unprintable-error (0x041B)
    public static let documentUnprintableError = IPPStatus(rawValue: 0x041B)
    /// client-error-account-info-needed (0x041C)
    public static let accountInfoNeeded = IPPStatus(rawValue: 0x041C)
    /// client-error-account-closed (0x041D)
    public static let accountClosed = IPPStatus(rawValue: 0x041D)
    /// client-error-account-limit-reached (0x041E)
    public static let accountLimitReached = IPPStatus(rawValue: 0x041E)
    /// client-error-account-authorization-failed (0x041F)
    public static let accountAuthorizationFailed = IPPStatus(rawValue: 0x041F)
    /// client-error-not-fetchable (0x0420)
    public static let notFetchable = IPPStatus(rawValue: 0x0420)
    /// server-error-internal-error (0x0500)
    public static let internalError = IPPStatus(rawValue: 0x0500)
    /// server-error-operation-not-supported (0x0501)
    public static let operationNotSupported = IPPStatus(rawValue: 0x0501)
    /// server-error-service-unavailable (0x0502)
    public static let serviceUnavailable = IPPStatus(rawValue: 0x0502)
    /// server-error-version-not-supported (0x0503)
    public static let versionNotSupported = IPPStatus(rawValue: 0x0503)
    /// server-error-device-error (0x0504)
    public static let deviceError = IPPStatus(rawValue: 0x0504)
    /// server-error-temporary-error (0x0505)
    public static let temporaryError = IPPStatus(rawValue: 0x0505)
    /// server-error-not-accepting-jobs (0x0506)
    public static let notAcceptingJobs = IPPStatus(rawValue: 0x0506)
    /// server-error-busy (0x0507)
    public static let busy = IPPStatus(rawValue: 0x0507)
    /// server-error-job-canceled (0x0508)
    public static let jobCanceled = IPPStatus(rawValue: 0x0508)
    /// server-error-multiple-document-jobs-not-supported (0x0509)
    public static let multipleDocumentJobsNotSupported = IPPStatus(rawValue: 0x0509)
    /// server-error-printer-is-deactivated (0x050A)
    public static let printerIsDeactivated = IPPStatus(rawValue: 0x050A)
    /// server-error-too-many-jobs (0x050B)
    public static let tooManyJobs = IPPStatus(rawValue: 0x050B)
    /// server-error-too-many-documents (0x050C)
    public static let tooManyDocuments = IPPStatus(rawValue: 0x050C)

    /// The registered name, e.g. `successful-ok`; nil for unregistered codes.
    public var name: String? {
        switch rawValue {
        case 0x0000: "successful-ok"
        case 0x0001: "successful-ok-ignored-or-substituted-attributes"
        case 0x0002: "successful-ok-conflicting-attributes"
        case 0x0003: "successful-ok-ignored-subscriptions"
        case 0x0005: "successful-ok-too-many-events"
        case 0x0007: "successful-ok-events-complete"
        case 0x0400: "client-error-bad-request"
        case 0x0401: "client-error-forbidden"
        case 0x0402: "client-error-not-authenticated"
        case 0x0403: "client-error-not-authorized"
        case 0x0404: "client-error-not-possible"
        case 0x0405: "client-error-timeout"
        case 0x0406: "client-error-not-found"
        case 0x0407: "client-error-gone"
        case 0x0408: "client-error-request-entity-too-large"
        case 0x0409: "client-error-request-value-too-long"
        case 0x040A: "client-error-document-format-not-supported"
        case 0x040B: "client-error-attributes-or-values-not-supported"
        case 0x040C: "client-error-uri-scheme-not-supported"
        case 0x040D: "client-error-charset-not-supported"
        case 0x040E: "client-error-conflicting-attributes"
        case 0x040F: "client-error-compression-not-supported"
        case 0x0410: "client-error-compression-error"
        case 0x0411: "client-error-document-format-error"
        case 0x0412: "client-error-document-access-error"
        case 0x0413: "client-error-attributes-not-settable"
        case 0x0414: "client-error-ignored-all-subscriptions"
        case 0x0415: "client-error-too-many-subscriptions"
        case 0x0418: "client-error-document-password-error"
        case 0x0419: "client-error-document-permission-error"
        case 0x041A: "client-error-document-security-error"
        case 0x041B: "client-error-document-unprintable-error"
        case 0x041C: "client-error-account-info-needed"
        case 0x041D: "client-error-account-closed"
        case 0x041E: "client-error-account-limit-reached"
        case 0x041F: "client-error-account-authorization-failed"
        case 0x0420: "client-error-not-fetchable"
        case 0x0500: "server-error-internal-error"
        case 0x0501: "server-error-operation-not-supported"
        case 0x0502: "server-error-service-unavailable"
        case 0x0503: "server-error-version-not-supported"
        case 0x0504: "server-error-device-error"
        case 0x0505: "server-error-temporary-error"
        case 0x0506: "server-error-not-accepting-jobs"
        case 0x0507: "server-error-busy"
        case 0x0508: "server-error-job-canceled"
        case 0x0509: "server-error-multiple-document-jobs-not-supported"
        case 0x050A: "server-error-printer-is-deactivated"
        case 0x050B: "server-error-too-many-jobs"
        case 0x050C: "server-error-too-many-documents"
        default: nil
        }
    }

    /// Every registered status, in code order.
    public static let allRegistered: [IPPStatus] = [
        .successfulOK,
        .successfulOKIgnoredOrSubstitutedAttributes,
        .successfulOKConflictingAttributes,
        .successfulOKIgnoredSubscriptions,
        .successfulOKTooManyEvents,
        .successfulOKEventsComplete,
        .badRequest,
        .forbidden,
        .notAuthenticated,
        .notAuthorized,
        .notPossible,
        .timeout,
        .notFound,
        .gone,
        .requestEntityTooLarge,
        .requestValueTooLong,
        .documentFormatNotSupported,
        .attributesOrValuesNotSupported,
        .uriSchemeNotSupported,
        .charsetNotSupported,
        .conflictingAttributes,
        .compressionNotSupported,
        .compressionError,
        .documentFormatError,
        .documentAccessError,
        .attributesNotSettable,
        .ignoredAllSubscriptions,
        .tooManySubscriptions,
        .documentPasswordError,
        .documentPermissionError,
        .documentSecurityError,
        .documentUnprintableError,
        .accountInfoNeeded,
        .accountClosed,
        .accountLimitReached,
        .accountAuthorizationFailed,
        .notFetchable,
        .internalError,
        .operationNotSupported,
        .serviceUnavailable,
        .versionNotSupported,
        .deviceError,
        .temporaryError,
        .notAcceptingJobs,
        .busy,
        .jobCanceled,
        .multipleDocumentJobsNotSupported,
        .printerIsDeactivated,
        .tooManyJobs,
        .tooManyDocuments,
    ]

    /// Looks a registered value up by name (case-insensitive, as ipptool accepts them).
    public init?(name: String) {
        let wanted = name.lowercased()
        guard let found = IPPStatus.allRegistered.first(where: { $0.name?.lowercased() == wanted }) else { return nil }
        self = found
    }

    /// successful-ok* codes (0x0000–0x00FF).
    public var isSuccessful: Bool { rawValue <= 0x00FF }
    /// client-error-* codes (0x0400–0x04FF).
    public var isClientError: Bool { rawValue >= 0x0400 && rawValue <= 0x04FF }
    /// server-error-* codes (0x0500–0x05FF).
    public var isServerError: Bool { rawValue >= 0x0500 && rawValue <= 0x05FF }

    /// The status as RFC 8011 names it, e.g. `successful-ok`; for an unregistered one the code in hex, e.g.
    /// `status-0x0FFF`.
    public var description: String { name ?? "status-\(ippHex(rawValue, digits: 4))" }
}
