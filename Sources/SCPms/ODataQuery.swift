/// The system query options this service understands on a collection: `$top`, `$skip`, `$filter` (one
/// `PROPERTY eq LITERAL`), `$format=json` and `$inlinecount`. Any other `$` option is refused with a 400 that
/// names it, rather than ignored: a client relying on `$orderby` must not get unsorted rows silently.
/// Options without `$` are custom options (e.g. `sap-client`) and ignored, as OData prescribes.
public struct ODataQuery: Sendable, Equatable {
    public var top: Int?
    public var skip: Int?
    public var filter: ODataFilter?
    public var inlineCount = false

    public init(top: Int? = nil, skip: Int? = nil, filter: ODataFilter? = nil, inlineCount: Bool = false) {
        self.top = top
        self.skip = skip
        self.filter = filter
        self.inlineCount = inlineCount
    }

    /// The largest `$top` / `$skip` accepted.
    public static let maxCount = 1_000_000

    public static let supported = ["$top", "$skip", "$filter", "$format", "$inlinecount"]
    static let known = ["$orderby", "$select", "$expand", "$skiptoken", "$search", "$count", "$callback"]

    /// Parses the (already percent-decoded) query items for `type`.
    ///
    /// - parameter allowed: the options this resource takes (`$metadata` takes none, one entity only `$format`).
    public static func parse(
        _ items: [(name: String, value: String)], for type: ODataEntityType,
        allowed: Set<String> = Set(supported)
    ) -> Result<ODataQuery, ODataError> {
        var query = ODataQuery()
        var seen: Set<String> = []
        for (name, value) in items where name.hasPrefix("$") {
            guard supported.contains(name) || known.contains(name) else {
                return .failure(.badRequest("unknown system query option '\(name)'; this service supports \(supported.joined(separator: ", "))"))
            }
            guard allowed.contains(name) else {
                let list = allowed.isEmpty ? "none" : allowed.sorted().joined(separator: ", ")
                return .failure(.badRequest("system query option '\(name)' is not supported here; supported on this resource: \(list)"))
            }
            guard seen.insert(name).inserted else { return .failure(.badRequest("system query option '\(name)' is given twice")) }
            switch name {
            case "$top", "$skip":
                switch count(value, name) {
                case .success(let number): if name == "$top" { query.top = number } else { query.skip = number }
                case .failure(let error): return .failure(error)
                }
            case "$filter":
                switch ODataFilter.parse(value, for: type) {
                case .success(let filter): query.filter = filter
                case .failure(let error): return .failure(error)
                }
            case "$format":
                guard value == "json" else {
                    return .failure(.badRequest("$format=\(value) is not supported; this service answers JSON only ($format=json)"))
                }
            default:
                switch value {
                case "allpages": query.inlineCount = true
                case "none": query.inlineCount = false
                default: return .failure(.badRequest("$inlinecount=\(value): expected allpages or none"))
                }
            }
        }
        return .success(query)
    }

    private static func count(_ text: String, _ name: String) -> Result<Int, ODataError> {
        guard !text.isEmpty, text.count <= 7, text.allSatisfy(\.isASCIIDigit), let number = Int(text), number <= maxCount else {
            return .failure(.badRequest("\(name)=\(text): expected a whole number from 0 to \(maxCount)"))
        }
        return .success(number)
    }

    /// The rows the query selects, in key order: filtered, then `$skip`, then `$top`.
    public func apply(to entities: [ODataEntity]) -> (rows: [ODataEntity], matching: Int) {
        let matching = filter.map { filter in entities.filter(filter.matches) } ?? entities
        let skipped = matching.dropFirst(skip ?? 0)
        return (Array(top.map { skipped.prefix($0) } ?? skipped), matching.count)
    }
}

/// `$filter=PROPERTY eq LITERAL`, the literal typed by the property: `'text'` (a quote doubled inside),
/// `42`, `956.00M` (or `956.00`), `true`/`false`.
public struct ODataFilter: Sendable, Equatable {
    public let property: String
    public let value: ODataEntityType.Value

    public func matches(_ entity: ODataEntity) -> Bool { entity[property] == value }

    static let example = "expected PROPERTY eq LITERAL, e.g. Category eq 'Notebooks' or ProductID eq 3"

    public static func parse(_ text: String, for type: ODataEntityType) -> Result<ODataFilter, ODataError> {
        let tokens: [String]
        switch tokenize(text) {
        case .success(let split): tokens = split
        case .failure(let error): return .failure(error)
        }
        let operators = ["ne", "gt", "ge", "lt", "le", "and", "or", "not", "add", "sub", "mul", "div", "mod"]
        if let unsupported = tokens.dropFirst().first(where: { operators.contains($0) }) {
            return .failure(.badRequest("$filter operator '\(unsupported)' is not supported; only 'eq' is (\(example))"))
        }
        guard tokens.count == 3, tokens[1] == "eq" else {
            return .failure(.badRequest("$filter '\(text)' is not understood; \(example)"))
        }
        guard let property = type.property(named: tokens[0]) else {
            return .failure(
                .badRequest(
                    "$filter names '\(tokens[0])', which is not a property of \(type.qualifiedName); properties: \(type.properties.map(\.name).joined(separator: ", "))"
                ))
        }
        guard let value = literal(tokens[2], of: property.type) else {
            return .failure(
                .badRequest("$filter literal \(tokens[2]) is not a valid \(property.type.name) for \(property.name)\(hint(property.type))"))
        }
        return .success(ODataFilter(property: property.name, value: value))
    }

    private static func hint(_ type: ODataEntityType.EdmType) -> String {
        switch type {
        case .int32: " (expected a whole number like 3)"
        case .string: " (expected a quoted string like 'Notebooks', a quote inside written '')"
        case .decimal: " (expected a number with at most two decimals like 24.50M)"
        case .boolean: " (expected true or false)"
        }
    }

    /// Splits on spaces outside string literals; a string literal stays one token with its quotes.
    private static func tokenize(_ text: String) -> Result<[String], ODataError> {
        var tokens: [String] = []
        var current = ""
        var inString = false
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            if inString {
                current.append(character)
                if character == "'" {
                    if characters.first == "'" { current.append(characters.removeFirst()) } else { inString = false }
                }
            } else if character == " " {
                if !current.isEmpty {
                    tokens.append(current)
                    current = ""
                }
            } else {
                if character == "'" { inString = true }
                current.append(character)
            }
        }
        guard !inString else { return .failure(.badRequest("$filter '\(text)' has an unterminated string literal")) }
        if !current.isEmpty { tokens.append(current) }
        return .success(tokens)
    }

    static func literal(_ token: String, of type: ODataEntityType.EdmType) -> ODataEntityType.Value? {
        switch type {
        case .int32:
            let digits = token.hasPrefix("-") ? token.dropFirst() : Substring(token)
            guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy(\.isASCIIDigit), let number = Int64(token),
                (Int64(Int32.min)...Int64(Int32.max)).contains(number)
            else { return nil }
            return .int(number)
        case .string(let maxLength):
            guard token.count >= 2, token.hasPrefix("'"), token.hasSuffix("'") else { return nil }
            let inner = String(token.dropFirst().dropLast())
            let text = inner.replacingOccurrences(of: "''", with: "'")
            // A lone quote inside would have ended the literal: `'a'b'` is not one string.
            guard !inner.replacingOccurrences(of: "''", with: "").contains("'"), text.count <= maxLength else { return nil }
            return .string(text)
        case .decimal(let precision, _):
            var body = Substring(token)
            if body.hasSuffix("M") || body.hasSuffix("m") { body = body.dropLast() }
            let negative = body.hasPrefix("-")
            if negative { body = body.dropFirst() }
            let parts = body.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.count <= precision - 2,
                whole.allSatisfy(\.isASCIIDigit)
            else { return nil }
            let fraction = parts.count == 2 ? parts[1] : ""
            guard fraction.count <= 2, fraction.allSatisfy(\.isASCIIDigit), parts.count == 1 || !fraction.isEmpty,
                let units = Int64(whole)
            else { return nil }
            let cents = Int64(fraction.padding(toLength: 2, withPad: "0")) ?? 0
            let hundredths = units * 100 + cents
            return .decimal(hundredths: negative ? -hundredths : hundredths)
        case .boolean:
            switch token {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: return nil
            }
        }
    }
}

extension Substring {
    fileprivate func padding(toLength length: Int, withPad pad: Character) -> String {
        String(self) + String(repeating: pad, count: Swift.max(0, length - count))
    }
}
