import Foundation

/// The writable properties of an SCPms application connection (a device registration), as a client sends
/// them in the body of `POST …/Connections` or `PUT …/Connections('<id>')`.
///
/// Every property is optional: `{}` registers with defaults. Values are strings; an unknown `DeviceType` is
/// stored as `Unknown`, as SCPms does.
public struct ConnectionSettings: Sendable, Equatable {
    /// The writable property names, in the order they appear in payloads and in the store.
    public static let fields: [String] = [
        "DeviceType", "DeviceModel", "DeviceSubType", "FormFactor", "UserName", "UserLocale", "TimeZone", "Email",
        "ApnsDeviceToken", "AndroidGcmRegistrationId", "PushGroup",
        "CustomCustom1", "CustomCustom2", "CustomCustom3", "CustomCustom4",
    ]

    /// Properties the server sets; a client sending them gets a 400 that says so.
    public static let readOnlyFields: Set<String> = ["ApplicationConnectionId", "ETag", "CreatedAt", "__metadata"]

    /// The device types SCPms knows; anything else is stored as `Unknown`.
    public static let deviceTypes: Set<String> = [
        "iPhone", "iPad", "iPod", "Android", "Windows", "WindowsPhone", "Windows8", "WinPhone8", "Blackberry", "Rim6",
        "Custom", "Unknown",
    ]

    /// The longest value accepted for one property (SCPms columns are bounded too).
    public static let maxValueLength = 512

    /// Values by property name; absent properties have no entry.
    public private(set) var values: [String: String]

    /// Settings with `values` (unknown names are dropped, `DeviceType` normalised).
    public init(_ values: [String: String] = [:]) {
        var kept: [String: String] = [:]
        for name in Self.fields { if let value = values[name] { kept[name] = value } }
        if let type = kept["DeviceType"], !Self.deviceTypes.contains(type) { kept["DeviceType"] = "Unknown" }
        self.values = kept
    }

    public subscript(_ name: String) -> String? { values[name] }

    /// The settings in a request body, or why the body is unacceptable.
    ///
    /// An empty body means `{}`. `null` for a property means "not set".
    public static func parse(json body: [UInt8]) -> Result<ConnectionSettings, ConnectionSettingsError> {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .success(ConnectionSettings()) }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(body), options: [])
        } catch {
            return .failure(ConnectionSettingsError("the body is not valid JSON; expected an object like {\"DeviceType\": \"iPhone\"}"))
        }
        // OData v2 clients may wrap the entity in {"d": {...}}.
        var members = object as? [String: Any]
        if let wrapped = members?["d"] as? [String: Any], members?.count == 1 { members = wrapped }
        guard let members else {
            return .failure(ConnectionSettingsError("the body is JSON but not an object; expected an object like {\"DeviceType\": \"iPhone\"}"))
        }
        var values: [String: String] = [:]
        for name in members.keys.sorted() {
            let value = members[name]!
            if readOnlyFields.contains(name) {
                return .failure(ConnectionSettingsError("property \(name) is set by the server and cannot be written"))
            }
            guard fields.contains(name) else {
                return .failure(ConnectionSettingsError("unknown property \(name); writable properties: \(fields.joined(separator: ", "))"))
            }
            if value is NSNull { continue }
            guard let text = value as? String else {
                return .failure(ConnectionSettingsError("property \(name) must be a string or null"))
            }
            guard text.utf8.count <= maxValueLength else {
                return .failure(ConnectionSettingsError("property \(name) is \(text.utf8.count) bytes long; at most \(maxValueLength) are accepted"))
            }
            values[name] = text
        }
        return .success(ConnectionSettings(values))
    }
}

/// Why a connection body was refused (the text goes back to the client in a 400).
public struct ConnectionSettingsError: Error, Equatable, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
