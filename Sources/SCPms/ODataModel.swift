/// The shape of an OData v2 entity set: its properties, their EDM types, and how values of each type are
/// written in JSON (`Edm.Int32` a number, `Edm.Decimal` a string, as OData v2 JSON does) and in a URI.
public struct ODataEntityType: Sendable {
    public enum EdmType: Sendable, Equatable {
        case int32
        case string(maxLength: Int)
        /// Values are kept in hundredths: `Price` has two decimals, like a currency amount.
        case decimal(precision: Int, scale: Int)
        case boolean

        var name: String {
            switch self {
            case .int32: "Edm.Int32"
            case .string: "Edm.String"
            case .decimal: "Edm.Decimal"
            case .boolean: "Edm.Boolean"
            }
        }
    }

    public struct Property: Sendable {
        public let name: String
        public let type: EdmType
    }

    /// A property value.
    public enum Value: Sendable, Equatable {
        case int(Int64)
        case string(String)
        /// Hundredths: 956.00 is 95600.
        case decimal(hundredths: Int64)
        case bool(Bool)

        var json: ODataJSON.Value {
            switch self {
            case .int(let number): .integer(number)
            case .string(let text): .string(text)
            case .decimal(let hundredths): .string(Self.decimalText(hundredths))
            case .bool(let flag): .bool(flag)
            }
        }

        /// `956.00`, `-0.50`.
        static func decimalText(_ hundredths: Int64) -> String {
            let sign = hundredths < 0 ? "-" : ""
            let magnitude = hundredths.magnitude
            let cents = magnitude % 100
            return "\(sign)\(magnitude / 100).\(cents < 10 ? "0" : "")\(cents)"
        }
    }

    public let namespace: String
    public let name: String
    /// The key property (one, of type Edm.Int32, in this service).
    public let key: String
    public let properties: [Property]

    public var qualifiedName: String { "\(namespace).\(name)" }

    public func property(named name: String) -> Property? { properties.first { $0.name == name } }
}

/// One entity: values by property name, in the entity type's property order.
public struct ODataEntity: Sendable, Equatable {
    public let values: [String: ODataEntityType.Value]

    public init(_ values: [String: ODataEntityType.Value]) { self.values = values }

    public subscript(_ name: String) -> ODataEntityType.Value? { values[name] }
}

/// An entity set and its rows: what a read-only OData v2 service serves.
public struct ODataEntitySet: Sendable {
    public let name: String
    public let type: ODataEntityType
    public let entities: [ODataEntity]

    /// The entity whose key is `key`.
    public func entity(key: Int64) -> ODataEntity? {
        entities.first { $0[type.key] == .int(key) }
    }

    /// `Products(3)` — the entity's canonical path below the service root.
    public func path(of entity: ODataEntity) -> String {
        guard case .int(let key)? = entity[type.key] else { return name }
        return "\(name)(\(key))"
    }
}
