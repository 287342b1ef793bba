import Foundation
import NIOCore
import SCPms
import WireHTTP

/// The original's `OnlineODataProvider(serviceName:serviceRoot:sapURLSession:)`: reads the app's OData v2 service at
/// `{base}/{appId}/` through its session manager, so every request carries the credentials, the device's
/// `X-SMP-APPCID` and the delegate's headers, over the manager's TLS trust. A revoked registration is refused
/// (403) like the application endpoint refuses it.
public struct SCPmsODataProvider: Sendable {
    /// The name given to ``SCPmsSessionManager/createODataProvider(withName:)``; the service root comes from the
    /// application id, not from it.
    public let serviceName: String
    let manager: SCPmsSessionManager

    /// `https://host:port/prefix/{appId}/`.
    public var serviceRoot: String { manager.backend.text + "/\(manager.configuration.applicationId)/" }

    /// One entity as read: its `__metadata` and its properties as text (numbers and booleans as JSON spells them).
    public struct Entity: Sendable, Equatable {
        /// The entity's own URL, from `__metadata.uri`.
        public let uri: String
        /// The entity's OData type name, from `__metadata.type`.
        public let type: String
        /// Every member but `__metadata`, by name: strings as they are, numbers and booleans as JSON spells
        /// them, null as "", objects and arrays as "(structured)".
        public let properties: [String: String]
    }

    /// The EDMX document of `$metadata`.
    public func metadata() async throws(SCPmsODataError) -> String {
        try await get("$metadata", query: [], accept: "application/xml").text
    }

    /// `GET {root}{entitySet}` with the given options (`$top`, `$skip`, `$filter`, …; `$format=json` is always sent).
    public func fetch(_ entitySet: String, query: [(name: String, value: String)] = []) async throws(SCPmsODataError) -> [Entity] {
        let response = try await get(entitySet, query: query.filter { $0.name != "$format" } + [("$format", "json")], accept: "application/json")
        guard case .object(let d)? = Self.object(response.body)?["d"], case .array(let results)? = d["results"] else {
            throw SCPmsODataError(.malformedResponse, httpStatus: Int(response.status.code), "the answer has no d.results array")
        }
        var entities: [Entity] = []
        for result in results {
            guard case .object(let members) = result, let entity = Self.entity(members) else {
                throw SCPmsODataError(.malformedResponse, httpStatus: Int(response.status.code), "an entry of d.results has no __metadata")
            }
            entities.append(entity)
        }
        return entities
    }

    /// `GET {root}{entitySet}({key})`.
    public func fetch(_ entitySet: String, key: Int) async throws(SCPmsODataError) -> Entity {
        let response = try await get("\(entitySet)(\(key))", query: [("$format", "json")], accept: "application/json")
        guard case .object(let d)? = Self.object(response.body)?["d"], let entity = Self.entity(d) else {
            throw SCPmsODataError(.malformedResponse, httpStatus: Int(response.status.code), "the answer has no d object with __metadata")
        }
        return entity
    }

    private func get(_ resource: String, query: [(name: String, value: String)], accept: String) async throws(SCPmsODataError) -> HTTPResponse {
        guard let id = manager.store.load().applicationConnectionId else {
            throw SCPmsODataError(.notRegistered, "the device has no application connection id; start a session first")
        }
        let encoded = query.map { "\(Self.encode($0.name))=\(Self.encode($0.value))" }.joined(separator: "&")
        let target =
            manager.backend.path("/\(manager.configuration.applicationId)/\(Self.encode(resource, keep: "$()=,'"))")
            + (encoded.isEmpty ? "" : "?" + encoded)
        let response: HTTPResponse
        do {
            response = try await manager.send(.GET, target, headers: ["X-SMP-APPCID": id, "Accept": accept])
        } catch {
            throw SCPmsODataError(.network, httpStatus: error.httpStatus, error.description)
        }
        let status = Int(response.status.code)
        manager.node.trace("scpms-odata", [("resource", resource), ("status", "\(status)")])
        switch status {
        case 200: return response
        case 403: throw SCPmsODataError(.applicationConnectionIdRefused, httpStatus: status, response.text.trimmingCharacters(in: [" ", "\n"]))
        default:
            // OData errors carry {"error":{"code":…,"message":{"value":…}}}; anything else is passed on as text.
            var message = response.text.trimmingCharacters(in: [" ", "\n"])
            var code: String?
            if case .object(let error)? = Self.object(response.body)?["error"] {
                if case .string(let text)? = error["code"] { code = text }
                if case .object(let said)? = error["message"], case .string(let text)? = said["value"] { message = text }
            }
            throw SCPmsODataError(.odata, httpStatus: status, message, odataCode: code)
        }
    }

    private static func object(_ body: ByteBuffer) -> [String: JSONValue]? {
        guard case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: Data(body.readableBytesView)) else { return nil }
        return members
    }

    private static func entity(_ members: [String: JSONValue]) -> Entity? {
        guard case .object(let metadata)? = members["__metadata"], case .string(let uri)? = metadata["uri"],
            case .string(let type)? = metadata["type"]
        else { return nil }
        var properties: [String: String] = [:]
        for (name, value) in members where name != "__metadata" { properties[name] = value.text }
        return Entity(uri: uri, type: type, properties: properties)
    }

    /// Percent-encodes everything but unreserved characters (and `keep`): spaces, quotes and `&` in a `$filter` survive.
    static func encode(_ text: String, keep: String = "$") -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if (byte < 0x80 && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))) || "-._~".unicodeScalars.contains(scalar)
                || keep.unicodeScalars.contains(scalar)
            {
                out.unicodeScalars.append(scalar)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded
            }
        }
        return out
    }
}

/// Why an OData read failed.
public struct SCPmsODataError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kind of failure; its raw value leads ``SCPmsODataError/description``.
    public enum Code: String, Sendable {
        /// No registration stored: start a session first.
        case notRegistered = "NotRegistered"
        /// 403: the registration was revoked (or belongs to someone else).
        case applicationConnectionIdRefused = "ApplicationConnectionIdRefused"
        /// The service answered an OData error (400, 404, 405, 406, 5xx).
        case odata = "ODataError"
        /// The service answered 200, but not with the JSON expected (no `d.results`, or an entity without
        /// `__metadata`).
        case malformedResponse = "MalformedResponse"
        /// No answer at all.
        case network = "UnknownNetworkError"
    }

    /// What kind of failure it was.
    public let code: Code
    /// The status of the service's answer; nil when no answer arrived or no request was sent (not registered).
    public let httpStatus: Int?
    /// What happened in words: the OData error's `message.value`, the server's text, or the client's own
    /// explanation.
    public let message: String
    /// The `error.code` of an OData error body.
    public let odataCode: String?

    /// An error of this kind; `httpStatus` is nil when no answer arrived, `odataCode` nil without an OData error body.
    public init(_ code: Code, httpStatus: Int? = nil, _ message: String, odataCode: String? = nil) {
        self.code = code
        self.httpStatus = httpStatus
        self.message = message
        self.odataCode = odataCode
    }

    /// The error as a message: the code's raw value (e.g. `ODataError`), the HTTP status and the OData `error.code`
    /// when known, then the message.
    public var description: String {
        "\(code.rawValue)\(httpStatus.map { " (HTTP \($0))" } ?? "")\(odataCode.map { " \($0)" } ?? ""): \(message)"
    }
}

extension String {
    fileprivate var leftPadded: String { count < 2 ? "0" + self : self }
}

/// Just enough JSON to read OData answers: booleans stay booleans (JSONSerialization would give NSNumbers).
indirect enum JSONValue: Decodable {
    case string(String)
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Scalars as JSON spells them; null as "".
    var text: String {
        switch self {
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .integer(let number): String(number)
        case .number(let number): String(number)
        case .null: ""
        case .array, .object: "(structured)"
        }
    }
}
