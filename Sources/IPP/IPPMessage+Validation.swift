/// Why a server refuses a request before looking at its operation: the
/// status-code to answer with and a `status-message` for the response.
public struct IPPRequestProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status-code the response carries.
    public var status: IPPStatus
    /// A human-readable reason (fits `status-message`, ≤ 255 octets).
    public var message: String

    /// Creates a problem to answer with the status-code `status`, and `message` as its `status-message`.
    public init(_ status: IPPStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The status's name and the message, e.g. `client-error-bad-request: …`.
    public var description: String { "\(status): \(message)" }
}

extension IPPMessage {
    /// The IPP versions a server accepts by default: 1.0 to 2.2.
    public static let supportedVersions: [IPPVersion] = [.v1_0, .v1_1, .v2_0, .v2_1, .v2_2]

    /// Checks what every request must satisfy, in the order ipptool's
    /// ipp-1.1.test probes it (RFC 8011 §4.1.1–4.1.4):
    /// - the version is supported, else `server-error-version-not-supported`;
    /// - the request-id is > 0, else `client-error-bad-request`;
    /// - the first group is the operation group and there is only one;
    /// - `attributes-charset` then `attributes-natural-language` come first, each with
    ///   one value of the right syntax, else `client-error-bad-request`;
    /// - the charset is `utf-8` or `us-ascii`, else `client-error-charset-not-supported`;
    /// - no attribute appears twice in the operation group, else `client-error-bad-request`.
    ///
    /// Operation-specific checks (such as a missing `printer-uri`) are the server's.
    /// - parameter supportedVersions: the versions the server implements.
    /// - returns: nil if the request passes, else the problem to answer with.
    public func validateRequest(supportedVersions: [IPPVersion] = IPPMessage.supportedVersions) -> IPPRequestProblem? {
        guard supportedVersions.contains(version) else {
            return IPPRequestProblem(.versionNotSupported, "IPP version \(version) is not supported.")
        }
        guard requestID > 0 else {
            return IPPRequestProblem(.badRequest, "Bad request-id \(requestID): it must be greater than 0.")
        }
        guard let first = storage.groups.first, first.tag == IPPGroupTag.operation.rawValue else {
            return IPPRequestProblem(.badRequest, "Missing operation attributes: they must be the first group.")
        }
        guard storage.groups.dropFirst().allSatisfy({ $0.tag != IPPGroupTag.operation.rawValue }) else {
            return IPPRequestProblem(.badRequest, "More than one operation attributes group.")
        }
        let operation = IPPAttributeGroup(box: box, index: 0)
        guard operation.count >= 1, operation[0].hasName(IPPAttributeName.attributesCharset) else {
            return IPPRequestProblem(.badRequest, "Missing attributes-charset: it must be the first operation attribute.")
        }
        guard operation[0].tag == .charset, operation[0].count == 1, let charset = operation[0].stringValue else {
            return IPPRequestProblem(.badRequest, "Bad attributes-charset: expected one charset value.")
        }
        guard operation.count >= 2, operation[1].hasName(IPPAttributeName.attributesNaturalLanguage) else {
            return IPPRequestProblem(.badRequest, "Missing attributes-natural-language: it must be the second operation attribute.")
        }
        guard operation[1].tag == .naturalLanguage, operation[1].count == 1 else {
            return IPPRequestProblem(.badRequest, "Bad attributes-natural-language: expected one naturalLanguage value.")
        }
        let lowered = charset.lowercased()
        guard lowered == "utf-8" || lowered == "us-ascii" else {
            return IPPRequestProblem(.charsetNotSupported, "Charset \(charset) is not supported.")
        }
        if let duplicate = operation.firstDuplicateName {
            return IPPRequestProblem(.badRequest, "Attribute \(duplicate) appears more than once in the operation group.")
        }
        return nil
    }
}

extension IPPAttributeGroup {
    /// The first attribute name that occurs twice in this group, if any (RFC 8011 §4.1.3 forbids it).
    public var firstDuplicateName: String? {
        var seen = Set<String>()
        for attribute in self {
            let name = attribute.name
            if !seen.insert(name).inserted { return name }
        }
        return nil
    }
}
