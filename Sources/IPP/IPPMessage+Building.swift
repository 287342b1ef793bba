/// Adds attributes to one group of a message under construction.
///
/// Handed to the closures of `IPPMessage.request(_:requestID:_:)`,
/// `IPPMessage.response(to:status:_:)` and `IPPMessage.addGroup(_:_:)`.
/// Values that cannot be encoded are left out and reported by the encoder.
/// The message's own adders (`addGroup(_:)`, then `add(_:_:)`) write the
/// same bytes without a closure, adding to the last group.
public struct IPPGroupBuilder {
    /// A message holding the buffer being built while the closure runs (swapped in and out by the caller).
    @usableFromInline var storage: IPPMessage
    @usableFromInline var group: Int

    @usableFromInline
    init(storage: IPPMessage, group: Int) {
        self.storage = storage
        self.group = group
    }

    /// The tag of the group being built.
    public var tag: IPPGroupTag { IPPGroupTag(rawValue: storage.box.groups[group].tag) }

    /// Adds an attribute with one value.
    public mutating func add(_ name: String, _ value: IPPValue) {
        storage.appendAttribute(name, value: value, toGroup: group)
    }

    /// Adds an attribute with one or more values (more than one makes a 1setOf).
    public mutating func add(_ name: String, _ values: IPPValue...) {
        storage.appendAttribute(name, values: values, toGroup: group)
    }

    /// Adds an attribute with the given values (more than one makes a 1setOf).
    public mutating func add(_ name: String, values: [IPPValue]) {
        storage.appendAttribute(name, values: values, toGroup: group)
    }

    /// Adds an attribute with values borrowed where they are (an array's or an `InlineArray`'s `span`, a run of
    /// a larger array): they are read in place, and no array is made or retained for them.
    public mutating func add(_ name: String, values: Span<IPPValue>) {
        _ = values.withUnsafeBufferPointer { storage.appendAttribute(name, values: $0, toGroup: group) }
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

    /// Appends an empty group (a tag may repeat, e.g. one job group per job); `add(_:_:)` and the other adders of
    /// the message then add to it, as libcups' ippAdd* add to the end of a message.
    public mutating func addGroup(_ tag: IPPGroupTag) {
        _ = appendGroup(tag)
    }

    /// Appends a group (a tag may repeat, e.g. one job group per job) and adds its attributes.
    public mutating func addGroup(_ tag: IPPGroupTag, _ build: (inout IPPGroupBuilder) -> Void) {
        // The group is appended inside the builder, so that the storage is held once and appending does not copy it.
        // The buffer is swapped in and out rather than taken and put back: that counted three references, not one.
        var builder = IPPGroupBuilder(storage: IPPMessage(code: 0, requestID: 0), group: 0)
        swap(&builder.storage.box, &box)
        builder.group = builder.storage.appendGroup(tag)
        defer { swap(&builder.storage.box, &box) }
        build(&builder)
    }

    /// Adds an attribute with one value to the last group (see `addGroup(_:)`).
    ///
    /// The message's own adders change its buffer in place: no closure, no builder. A value that cannot be
    /// encoded, or an attribute added before any group, is left out and reported by the encoder
    /// (`encodingProblem`), as with `IPPGroupBuilder`.
    public mutating func add(_ name: String, _ value: IPPValue) {
        guard let group = lastGroup(adding: name) else { return }
        appendAttribute(name, value: value, toGroup: group)
    }

    /// Adds an attribute with one or more values to the last group (more than one makes a 1setOf).
    public mutating func add(_ name: String, _ values: IPPValue...) {
        add(name, values: values)
    }

    /// Adds an attribute with the given values to the last group (more than one makes a 1setOf).
    public mutating func add(_ name: String, values: [IPPValue]) {
        guard let group = lastGroup(adding: name) else { return }
        appendAttribute(name, values: values, toGroup: group)
    }

    /// Adds an attribute with values borrowed where they are to the last group (see
    /// `IPPGroupBuilder.add(_:values:)`): a caller that keeps its values in one array passes each attribute's run
    /// of it as a span, and nothing is retained for them.
    public mutating func add(_ name: String, values: Span<IPPValue>) {
        guard let group = lastGroup(adding: name) else { return }
        _ = values.withUnsafeBufferPointer { appendAttribute(name, values: $0, toGroup: group) }
    }

    /// Adds a byte-for-byte copy of an attribute of another message to the last group.
    public mutating func add(_ attribute: IPPAttribute) {
        guard let group = lastGroup(adding: attribute.name) else { return }
        appendCopy(of: attribute, toGroup: group)
    }

    /// Adds attributes at the end of the group at `index` (see `groups`); does nothing for a bad index.
    public mutating func updateGroup(at index: Int, _ build: (inout IPPGroupBuilder) -> Void) {
        guard storage.groups.indices.contains(index) else { return }
        // The buffer is swapped into the builder so that it is held once and appending does not copy it.
        var builder = IPPGroupBuilder(storage: IPPMessage(code: 0, requestID: 0), group: index)
        swap(&builder.storage.box, &box)
        defer { swap(&builder.storage.box, &box) }
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
        removeAttribute(at: index)
        return true
    }
}
