/// Adds attributes to one group of a message under construction.
///
/// Handed to the closures of `IPPMessage.request(_:requestID:_:)`,
/// `IPPMessage.response(to:status:_:)` and `IPPMessage.addGroup(_:_:)`.
/// Values that cannot be encoded are left out and reported by the encoder.
public struct IPPGroupBuilder {
    @usableFromInline var storage: IPPStorage
    @usableFromInline var group: Int

    @usableFromInline
    init(storage: IPPStorage, group: Int) {
        self.storage = storage
        self.group = group
    }

    /// The tag of the group being built.
    public var tag: IPPGroupTag { IPPGroupTag(rawValue: storage.box.groups[group].tag) }

    /// Adds an attribute with one or more values (more than one makes a 1setOf).
    public mutating func add(_ name: String, _ values: IPPValue...) {
        storage.appendAttribute(name, values: values, toGroup: group)
    }

    /// Adds an attribute with the given values (more than one makes a 1setOf).
    public mutating func add(_ name: String, values: [IPPValue]) {
        storage.appendAttribute(name, values: values, toGroup: group)
    }

    /// Adds a byte-for-byte copy of an attribute of another message (e.g. echoing a request's attribute).
    public mutating func add(_ attribute: IPPAttribute) {
        storage.appendCopy(of: attribute, toGroup: group)
    }

    /// Whether the group already has an attribute with this name.
    public func contains(_ name: String) -> Bool {
        storage.box.attribute(named: name, inGroup: group) != nil
    }
}

extension IPPMessage {
    /// Creates a request whose operation group starts with `attributes-charset`
    /// and `attributes-natural-language`, as RFC 8011 §4.1.4 requires.
    ///
    /// - parameters:
    ///   - operation: the operation-id.
    ///   - requestID: the request-id (must be > 0 for a valid request).
    ///   - version: the IPP version (2.0 by default).
    ///   - charset: the `attributes-charset` value.
    ///   - naturalLanguage: the `attributes-natural-language` value.
    ///   - build: adds the remaining operation attributes.
    /// - returns: the request; add more groups with `addGroup(_:_:)`.
    public static func request(
        _ operation: IPPOperation, requestID: Int32, version: IPPVersion = .v2_0,
        charset: String = "utf-8", naturalLanguage: String = "en",
        _ build: (inout IPPGroupBuilder) -> Void = { _ in }
    ) -> IPPMessage {
        var message = IPPMessage(version: version, code: operation.rawValue, requestID: requestID)
        message.addGroup(.operation) { group in
            group.add(IPPAttributeName.attributesCharset, .charset(charset))
            group.add(IPPAttributeName.attributesNaturalLanguage, .naturalLanguage(naturalLanguage))
            build(&group)
        }
        return message
    }

    /// Creates a response to `request`: it echoes the request's version and
    /// request-id, and its operation group starts with `attributes-charset`
    /// and `attributes-natural-language`, then `status-message` if given.
    ///
    /// - parameters:
    ///   - request: the request being answered.
    ///   - status: the status-code.
    ///   - naturalLanguage: the language of the response's text values.
    ///   - statusMessage: an optional human-readable `status-message`.
    ///   - build: adds further operation attributes.
    /// - returns: the response; add job or printer groups with `addGroup(_:_:)`.
    public static func response(
        to request: IPPMessage, status: IPPStatus, naturalLanguage: String = "en",
        statusMessage: String? = nil,
        _ build: (inout IPPGroupBuilder) -> Void = { _ in }
    ) -> IPPMessage {
        var message = IPPMessage(version: request.version, code: status.rawValue, requestID: request.requestID)
        message.addGroup(.operation) { group in
            group.add(IPPAttributeName.attributesCharset, .charset("utf-8"))
            group.add(IPPAttributeName.attributesNaturalLanguage, .naturalLanguage(naturalLanguage))
            if let statusMessage {
                group.add(IPPAttributeName.statusMessage, .text(statusMessage))
            }
            build(&group)
        }
        return message
    }

    /// Appends a group (a tag may repeat, e.g. one job group per job) and adds its attributes.
    public mutating func addGroup(_ tag: IPPGroupTag, _ build: (inout IPPGroupBuilder) -> Void = { _ in }) {
        // The group is appended inside the builder, so that the storage is held once and appending does not copy it.
        // The buffer is swapped in and out rather than taken and put back: that counted three references, not one.
        var builder = IPPGroupBuilder(storage: IPPStorage(box: IPPStorageBox.empty), group: 0)
        swap(&builder.storage.box, &box)
        builder.group = builder.storage.appendGroup(tag)
        defer { swap(&builder.storage.box, &box) }
        build(&builder)
    }

    /// Adds attributes at the end of the group at `index` (see `groups`); does nothing for a bad index.
    public mutating func updateGroup(at index: Int, _ build: (inout IPPGroupBuilder) -> Void) {
        guard storage.groups.indices.contains(index) else { return }
        // Move the storage into the builder so that appending does not copy it.
        var builder = IPPGroupBuilder(storage: takeStorage(), group: index)
        defer { putStorage(builder.storage) }
        build(&builder)
    }

    /// Removes every group. With `keepingCapacity`, the buffer is kept (emptied) when this message holds it alone, so
    /// that building message after message into one allocates nothing once the buffer is large enough.
    public mutating func removeAllGroups(keepingCapacity: Bool = false) {
        // The shared empty buffer is never unique (the static holds it), so it is never written to.
        guard keepingCapacity, isKnownUniquelyReferenced(&box) else {
            box = IPPStorageBox.empty
            return
        }
        box.head.pointee.itemCount = 0
        box.head.pointee.attributeCount = 0
        box.head.pointee.groupCount = 0
        box.head.pointee.byteCount = 0
        box.head.pointee.problem = nil
    }

    /// Removes the first attribute with this name from the first group with this tag.
    /// - returns: whether an attribute was removed.
    @discardableResult
    public mutating func removeAttribute(_ name: String, from tag: IPPGroupTag) -> Bool {
        // Take only the index, so that no view keeps the storage shared while it is modified.
        guard let index = attribute(name, in: tag)?.index else { return false }
        var storage = takeStorage()
        storage.removeAttribute(at: index)
        putStorage(storage)
        return true
    }
}
