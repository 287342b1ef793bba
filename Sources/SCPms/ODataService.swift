/// A read-only OData v2 service as SAP Mobile Services exposes it behind `{base}/{appId}`: the service
/// document, `$metadata` (EDMX), entity sets with `$top`/`$skip`/`$filter`/`$inlinecount`, `/$count`, and single
/// entities by key. Answers JSON (`{"d":{"results":[…]}}`, `{"d":{…}}`); errors are OData JSON error bodies.
/// Pure: the server passes the decoded resource path, the query items and the `Accept` header in.
public struct ODataService: Sendable {
    public struct Response: Sendable, Equatable {
        public let status: Int
        public let contentType: String
        public let body: String
        /// Extra headers (e.g. `Allow` on a 405).
        public let headers: [String: String]

        init(status: Int = 200, contentType: String, body: String, headers: [String: String] = [:]) {
            self.status = status
            self.contentType = contentType
            self.body = body
            self.headers = headers
        }

        static func error(_ error: ODataError, headers: [String: String] = [:]) -> Response {
            Response(status: error.status, contentType: json, body: error.json, headers: headers)
        }
    }

    public static let json = "application/json; charset=utf-8"
    public static let demo = ODataService(entitySets: [DemoProducts.entitySet], containerName: DemoProducts.containerName)

    public let entitySets: [ODataEntitySet]
    public let containerName: String

    public init(entitySets: [ODataEntitySet], containerName: String) {
        self.entitySets = entitySets
        self.containerName = containerName
    }

    /// Answers one request.
    ///
    /// - parameters:
    ///   - resource: the decoded path below the service root: `""`, `$metadata`, `Products`, `Products(3)`, `Products/$count`.
    ///   - serviceRoot: the absolute service URL ending in `/` (entities' `__metadata.uri` start with it).
    public func answer(
        method: String, resource: String, query: [(name: String, value: String)], accept: String?,
        serviceRoot: String
    ) -> Response {
        guard method == "GET" || method == "HEAD" else {
            return .error(
                ODataError(
                    status: 405, code: "MethodNotAllowed",
                    "\(method) is not supported: the demo service is read-only; use GET"), headers: ["Allow": "GET, HEAD"])
        }
        let segments = resource.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if resource.isEmpty {
            return negotiated(query, accept, allowed: ["$format"]) {
                ODataJSON.text(.object([("d", .object([("EntitySets", .array(entitySets.map { .string($0.name) }))]))]))
            }
        }
        if segments == ["$metadata"] {
            if let error = optionsError(query, allowed: []) { return .error(error) }
            return Response(contentType: "application/xml", body: metadata)
        }
        let (setName, key) = Self.splitKey(segments[0])
        guard let set = entitySets.first(where: { $0.name == setName }) else {
            return .error(
                .notFound("Resource not found for the segment '\(segments[0])'; entity sets: \(entitySets.map(\.name).joined(separator: ", "))"))
        }
        switch (key, segments.count) {
        case (nil, 1):
            return collection(set, query, accept, serviceRoot)
        case (nil, 2) where segments[1] == "$count":
            switch ODataQuery.parse(query, for: set.type, allowed: ["$filter", "$top", "$skip"]) {
            case .failure(let error): return .error(error)
            case .success(let parsed): return Response(contentType: "text/plain; charset=utf-8", body: "\(parsed.apply(to: set.entities).rows.count)")
            }
        case (let key?, 1):
            switch Self.keyValue(key, of: set.type) {
            case .failure(let error): return .error(error)
            case .success(let value):
                guard let entity = set.entity(key: value) else {
                    return .error(.notFound("Resource not found for the segment '\(segments[0])': no \(set.type.name) with \(set.type.key) \(value)"))
                }
                return negotiated(query, accept, allowed: ["$format"]) {
                    ODataJSON.text(.object([("d", entityJSON(entity, in: set, serviceRoot: serviceRoot))]))
                }
            }
        default:
            return .error(.badRequest("'\(resource)' is not supported: this service reads entity sets, single entities by key and /$count only"))
        }
    }

    private func collection(
        _ set: ODataEntitySet, _ query: [(name: String, value: String)], _ accept: String?,
        _ serviceRoot: String
    ) -> Response {
        let parsed: ODataQuery
        switch ODataQuery.parse(query, for: set.type) {
        case .failure(let error): return .error(error)
        case .success(let value): parsed = value
        }
        return negotiated(query, accept, allowed: Set(ODataQuery.supported)) {
            let (rows, matching) = parsed.apply(to: set.entities)
            var members: [(String, ODataJSON.Value)] = []
            if parsed.inlineCount { members.append(("__count", .string("\(matching)"))) }
            members.append(("results", .array(rows.map { entityJSON($0, in: set, serviceRoot: serviceRoot) })))
            return ODataJSON.text(.object([("d", .object(members))]))
        }
    }

    /// JSON unless the client asked for something else only: `$format=json` wins; an `Accept` naming no JSON
    /// and no wildcard gets 406 (this service has no Atom/XML representation of data).
    private func negotiated(
        _ query: [(name: String, value: String)], _ accept: String?, allowed: Set<String>,
        _ body: () -> String
    ) -> Response {
        if let error = optionsError(query, allowed: allowed) { return .error(error) }
        let formatGiven = query.contains { $0.name == "$format" }
        if !formatGiven, let accept, !accept.isEmpty {
            let types = accept.split(separator: ",").map { String($0.split(separator: ";").first ?? "").trimmingCharacters(in: [" "]).lowercased() }
            guard types.contains(where: { $0.contains("json") || $0 == "*/*" || $0 == "application/*" }) else {
                return .error(
                    ODataError(
                        status: 406, code: "NotAcceptable",
                        "Accept '\(accept)' names no JSON type; this service answers application/json only (or use $format=json)"))
            }
        }
        return Response(contentType: Self.json, body: body())
    }

    private func optionsError(_ query: [(name: String, value: String)], allowed: Set<String>) -> ODataError? {
        guard let type = entitySets.first?.type else { return nil }
        if case .failure(let error) = ODataQuery.parse(query, for: type, allowed: allowed) { return error }
        return nil
    }

    private func entityJSON(_ entity: ODataEntity, in set: ODataEntitySet, serviceRoot: String) -> ODataJSON.Value {
        var members: [(String, ODataJSON.Value)] = [
            ("__metadata", .object([("uri", .string(serviceRoot + set.path(of: entity))), ("type", .string(set.type.qualifiedName))]))
        ]
        for property in set.type.properties { members.append((property.name, entity[property.name]?.json ?? .null)) }
        return .object(members)
    }

    /// `Products(3)` → (`Products`, `3`); `Products` → (`Products`, nil).
    static func splitKey(_ segment: String) -> (String, String?) {
        guard let open = segment.firstIndex(of: "("), segment.hasSuffix(")") else { return (segment, nil) }
        return (String(segment[..<open]), String(segment[segment.index(after: open)..<segment.index(before: segment.endIndex)]))
    }

    /// `3` or `ProductID=3`.
    static func keyValue(_ key: String, of type: ODataEntityType) -> Result<Int64, ODataError> {
        var literal = key
        if let equals = key.firstIndex(of: "=") {
            guard key[..<equals] == type.key else {
                return .failure(.badRequest("the key names '\(key[..<equals])'; the key of \(type.qualifiedName) is \(type.key)"))
            }
            literal = String(key[key.index(after: equals)...])
        }
        guard case .int(let value)? = ODataFilter.literal(literal, of: .int32) else {
            return .failure(.badRequest("invalid key '\(key)': \(type.key) is an Edm.Int32, e.g. (3) or (\(type.key)=3)"))
        }
        return .success(value)
    }

    /// The EDMX document of `$metadata`.
    public var metadata: String {
        var xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
            <edmx:DataServices m:DataServiceVersion="2.0" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">

            """
        let namespace = entitySets.first?.type.namespace ?? "Default"
        xml += "<Schema Namespace=\"\(namespace)\" xmlns=\"http://schemas.microsoft.com/ado/2008/09/edm\">\n"
        for set in entitySets {
            xml += "<EntityType Name=\"\(set.type.name)\">\n<Key><PropertyRef Name=\"\(set.type.key)\"/></Key>\n"
            for property in set.type.properties {
                var facets = ""
                switch property.type {
                case .string(let maxLength): facets = " MaxLength=\"\(maxLength)\""
                case .decimal(let precision, let scale): facets = " Precision=\"\(precision)\" Scale=\"\(scale)\""
                case .int32, .boolean: break
                }
                xml += "<Property Name=\"\(property.name)\" Type=\"\(property.type.name)\" Nullable=\"false\"\(facets)/>\n"
            }
            xml += "</EntityType>\n"
        }
        xml += "<EntityContainer Name=\"\(containerName)\" m:IsDefaultEntityContainer=\"true\">\n"
        for set in entitySets { xml += "<EntitySet Name=\"\(set.name)\" EntityType=\"\(set.type.qualifiedName)\"/>\n" }
        xml += "</EntityContainer>\n</Schema>\n</edmx:DataServices>\n</edmx:Edmx>\n"
        return xml
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        var text = Substring(self)
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}
