/// An IPP request or response (RFC 8010 §3.1): version, operation-id or
/// status-code, request-id and attribute groups in wire order (a group tag
/// may repeat, as in a Get-Jobs response with one job group per job).
///
/// Build one with `IPPMessage.request(_:requestID:_:)` or
/// `IPPMessage.response(to:status:_:)` (a closure adds each group's
/// attributes), or without closures: `addGroup(_:)`, then `add(_:_:)` and
/// `add(_:values:)` add to the last group, as libcups' `ippAdd*` add to the
/// end of a message. Or decode one with `IPPDecoder`.
/// Values are kept in wire form, so a decoded message encodes back to the
/// same bytes and reading an attribute costs nothing until a value is read.
// Unchecked: the storage buffer (a ManagedBuffer, which cannot be Sendable) is only changed while one message
// holds it alone (see `IPPStorageBox`), so every buffer a view or a shared message sees is immutable.
public struct IPPMessage: @unchecked Sendable {
    /// The IPP version (`version-number`).
    public var version: IPPVersion
    /// The operation-id of a request or the status-code of a response.
    public var code: UInt16
    /// The request-id; a response echoes the request's.
    public var requestID: Int32
    /// Shared with the views this message hands out; copied before a change when shared (see `IPPStorageBox`).
    @usableFromInline var box: IPPStorageBox

    /// Creates a message without groups; add groups with `addGroup(_:)` or `addGroup(_:_:)`.
    public init(version: IPPVersion = .v2_0, code: UInt16, requestID: Int32) {
        self.version = version
        self.code = code
        self.requestID = requestID
        self.box = IPPStorageBox.empty
    }

    @usableFromInline
    init(version: IPPVersion, code: UInt16, requestID: Int32, box: IPPStorageBox) {
        self.version = version
        self.code = code
        self.requestID = requestID
        self.box = box
    }

    @usableFromInline var storage: IPPStorageBox { box }

    /// The code read as an operation-id (for requests).
    public var operation: IPPOperation {
        get { IPPOperation(rawValue: code) }
        set { code = newValue.rawValue }
    }

    /// The code read as a status-code (for responses).
    public var status: IPPStatus {
        get { IPPStatus(rawValue: code) }
        set { code = newValue.rawValue }
    }

    // MARK: Groups and attributes

    /// The groups in wire order (views of the message: getting them allocates nothing).
    @inlinable public var groups: IPPAttributeGroups { IPPAttributeGroups(box: box) }

    /// The number of groups.
    public var groupCount: Int { storage.groups.count }

    /// The first group with this tag, if any.
    public func group(_ tag: IPPGroupTag) -> IPPAttributeGroup? {
        guard let index = storage.groups.firstIndex(where: { $0.tag == tag.rawValue }) else { return nil }
        return IPPAttributeGroup(box: box, index: index)
    }

    /// Every group with this tag, in order (e.g. one job group per job in a Get-Jobs response).
    public func groups(_ tag: IPPGroupTag) -> [IPPAttributeGroup] {
        storage.groups.indices.filter { storage.groups[$0].tag == tag.rawValue }
            .map { IPPAttributeGroup(box: box, index: $0) }
    }

    /// The operation attributes group (the first group of a well-formed request or response).
    public var operationAttributes: IPPAttributeGroup? { group(.operation) }

    /// The first attribute with this name in the first group with this tag.
    public func attribute(_ name: String, in tag: IPPGroupTag = .operation) -> IPPAttribute? {
        for index in storage.groups.indices where storage.groups[index].tag == tag.rawValue {
            return IPPAttributeGroup(box: box, index: index)[name]
        }
        return nil
    }

    /// The first value a builder could not encode, if any; `IPPEncoder` throws it.
    public var encodingProblem: IPPError? { storage.problem }
}

/// An IPP version number such as 2.0.
public struct IPPVersion: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The major version number, the first byte of a message (2 in 2.0).
    public var major: UInt8
    /// The minor version number, the second byte of a message (0 in 2.0).
    public var minor: UInt8

    /// The version `major.minor`, supported or not.
    public init(major: UInt8, minor: UInt8) {
        self.major = major
        self.minor = minor
    }

    // The versions as RFC 8011 writes them (1.0 … 2.2), which lowerCamelCase would blur.
    /// IPP/1.0 (RFC 2566).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let v1_0 = IPPVersion(major: 1, minor: 0)
    /// IPP/1.1 (RFC 8011).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let v1_1 = IPPVersion(major: 1, minor: 1)
    /// IPP/2.0 (PWG 5100.12), the default of new messages.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let v2_0 = IPPVersion(major: 2, minor: 0)
    /// IPP/2.1 (PWG 5100.12).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let v2_1 = IPPVersion(major: 2, minor: 1)
    /// IPP/2.2 (PWG 5100.12).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    public static let v2_2 = IPPVersion(major: 2, minor: 2)

    /// Whether `lhs` is an earlier version: by major, then minor number.
    public static func < (lhs: IPPVersion, rhs: IPPVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// The version as `major.minor`, e.g. `2.0`.
    public var description: String { "\(major).\(minor)" }
}

// MARK: Equatable

extension IPPMessage: Equatable {
    /// Two messages are equal when they encode to the same bytes.
    public static func == (lhs: IPPMessage, rhs: IPPMessage) -> Bool {
        guard lhs.version == rhs.version, lhs.code == rhs.code, lhs.requestID == rhs.requestID,
            lhs.storage.items.count == rhs.storage.items.count,
            lhs.storage.problem == rhs.storage.problem
        else { return false }
        let left = lhs.box
        let right = rhs.box
        for index in left.items.indices {
            let a = left.items[index]
            let b = right.items[index]
            guard a.tag == b.tag, a.nameLength == b.nameLength, a.valueLength == b.valueLength else { return false }
            let length = a.wireLength
            let leftBytes = UnsafeBufferPointer(rebasing: left.bytes[Int(a.start)..<(Int(a.start) + length)])
            let rightBytes = UnsafeBufferPointer(rebasing: right.bytes[Int(b.start)..<(Int(b.start) + length)])
            if !leftBytes.elementsEqual(rightBytes) { return false }
        }
        return true
    }
}

// MARK: CustomStringConvertible

extension IPPMessage: CustomStringConvertible {
    /// A readable dump in the style of ipptool's output, one attribute a line.
    public var description: String {
        var text = "IPP/\(version) code \(ippHex(code, digits: 4)) (\(operation.name ?? "-") / \(status.name ?? "-")) request-id \(requestID)\n"
        for group in groups {
            text += "\(group.tag)\n"
            for attribute in group {
                text += "    \(attribute)\n"
            }
        }
        return text
    }
}
