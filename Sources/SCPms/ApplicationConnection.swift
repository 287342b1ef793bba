/// One registration of a device for an application, as the server keeps it and answers it.
public struct ApplicationConnection: Sendable, Equatable {
    public let id: String
    public let applicationId: String
    /// The user who registered it (the Basic-auth user), who alone may read, change or delete it.
    public let owner: String
    public let createdAtMilliseconds: Int64
    public var modifiedAtMilliseconds: Int64
    public var settings: ConnectionSettings

    public init(
        id: String, applicationId: String, owner: String, createdAtMilliseconds: Int64,
        modifiedAtMilliseconds: Int64, settings: ConnectionSettings
    ) {
        self.id = id
        self.applicationId = applicationId
        self.owner = owner
        self.createdAtMilliseconds = createdAtMilliseconds
        self.modifiedAtMilliseconds = modifiedAtMilliseconds
        self.settings = settings
    }

    /// Changes whenever the entity changes (OData optimistic concurrency token).
    public var etag: String { ODataDate.iso8601(milliseconds: modifiedAtMilliseconds) }

    /// The OData v2 JSON entity: `{"d": {"__metadata": …, "ApplicationConnectionId": …, …}}`.
    ///
    /// - parameter uri: the entity's own URL, `…/Connections('<id>')`.
    public func odataJSON(uri: String) -> String {
        var members: [(String, ODataJSON.Value)] = [
            ("__metadata", .object([("uri", .string(uri)), ("type", .string("applications.Connection"))])),
            ("ApplicationConnectionId", .string(id)),
            ("ETag", .string(etag)),
            ("CreatedAt", .string(ODataDate.format(milliseconds: createdAtMilliseconds))),
        ]
        for field in ConnectionSettings.fields {
            let value = settings[field] ?? (field == "DeviceType" ? "Unknown" : nil)
            members.append((field, value.map(ODataJSON.Value.string) ?? .null))
        }
        return ODataJSON.text(.object([("d", .object(members))]))
    }
}
