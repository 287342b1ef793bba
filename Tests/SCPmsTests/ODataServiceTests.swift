import Foundation
import SCPms
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The app's OData v2 service core: what `{base}/{appId}/…` answers, without I/O.
@Suite struct ODataServiceTests {
    static let root = "https://scpms/com.x/"

    static func get(
        _ resource: String, _ query: [(name: String, value: String)] = [], accept: String? = nil,
        method: String = "GET"
    ) -> ODataService.Response {
        ODataService.demo.answer(method: method, resource: resource, query: query, accept: accept, serviceRoot: root)
    }

    static func json(_ response: ODataService.Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
    }

    static func results(_ response: ODataService.Response) throws -> [[String: Any]] {
        let d = try #require(try json(response)["d"] as? [String: Any])
        return try #require(d["results"] as? [[String: Any]])
    }

    static func ids(_ response: ODataService.Response) throws -> [Int] {
        try results(response).map { try #require($0["ProductID"] as? Int) }
    }

    /// The OData error body's code and message, after checking its shape.
    static func error(_ response: ODataService.Response) throws -> (String, String) {
        let error = try #require(try json(response)["error"] as? [String: Any])
        let message = try #require(error["message"] as? [String: Any])
        #expect(message["lang"] as? String == "en")
        return (try #require(error["code"] as? String), try #require(message["value"] as? String))
    }

    @Test func collectionIsDResultsWithMetadataAndTypedValues() throws {
        let response = Self.get("Products", [("$format", "json")])
        #expect(response.status == 200)
        #expect(response.contentType == "application/json; charset=utf-8")
        let first = try #require(try Self.results(response).first)
        let metadata = try #require(first["__metadata"] as? [String: Any])
        #expect(metadata["uri"] as? String == "https://scpms/com.x/Products(1)")
        #expect(metadata["type"] as? String == "WorkbenchDemo.Product")
        // OData v2 JSON: Int32 a number, Decimal a string, Boolean a boolean; __metadata first.
        #expect(
            response.body.hasPrefix(
                #"{"d":{"results":[{"__metadata":{"uri":"https://scpms/com.x/Products(1)","type":"WorkbenchDemo.Product"},"ProductID":1,"Name":"Notebook Basic 15","Category":"Notebooks","Price":"956.00","CurrencyCode":"EUR","InStock":true}"#
            ))
        #expect(try Self.ids(response) == [1, 2, 3, 4, 5, 6])
    }

    @Test func topSkipFilterAndInlineCount() throws {
        #expect(try Self.ids(Self.get("Products", [("$top", "2")])) == [1, 2])
        #expect(try Self.ids(Self.get("Products", [("$skip", "4")])) == [5, 6])
        #expect(try Self.ids(Self.get("Products", [("$skip", "1"), ("$top", "2")])) == [2, 3])
        #expect(try Self.ids(Self.get("Products", [("$top", "0")])) == [])
        #expect(try Self.ids(Self.get("Products", [("$skip", "99")])) == [])
        #expect(try Self.ids(Self.get("Products", [("$filter", "Category eq 'Accessories'")])) == [4, 5])
        #expect(try Self.ids(Self.get("Products", [("$filter", "ProductID eq 3")])) == [3])
        #expect(try Self.ids(Self.get("Products", [("$filter", "InStock eq false")])) == [2, 6])
        #expect(try Self.ids(Self.get("Products", [("$filter", "Price eq 24.50M")])) == [4])
        #expect(try Self.ids(Self.get("Products", [("$filter", "Price eq 24.5")])) == [4])
        #expect(try Self.ids(Self.get("Products", [("$filter", "Name eq 'Nobody''s'")])) == [])
        #expect(try Self.ids(Self.get("Products", [("$filter", "Category eq 'Notebooks'"), ("$top", "1"), ("$skip", "1")])) == [2])
        let counted = try Self.json(Self.get("Products", [("$filter", "InStock eq true"), ("$top", "1"), ("$inlinecount", "allpages")]))
        #expect((counted["d"] as? [String: Any])?["__count"] as? String == "4")
        #expect(Self.get("Products/$count", [("$filter", "Category eq 'Notebooks'")]).body == "2")
        // Custom (non-$) options are ignored, as OData prescribes.
        #expect(try Self.ids(Self.get("Products", [("sap-client", "100"), ("$top", "1")])) == [1])
    }

    @Test func singleEntityByKey() throws {
        for resource in ["Products(3)", "Products(ProductID=3)"] {
            let response = Self.get(resource, [("$format", "json")])
            #expect(response.status == 200)
            let d = try #require(try Self.json(response)["d"] as? [String: Any])
            #expect(d["Name"] as? String == "Flat Screen 24")
            #expect((d["__metadata"] as? [String: Any])?["uri"] as? String == "https://scpms/com.x/Products(3)")
        }
        let missing = Self.get("Products(42)")
        #expect(missing.status == 404)
        #expect(try Self.error(missing).0 == "ResourceNotFound")
        #expect(Self.get("Products('3')").status == 400)
        #expect(Self.get("Products(Name=3)").status == 400)
        #expect(Self.get("Products(99999999999)").status == 400)
    }

    @Test func serviceDocumentAndMetadata() throws {
        #expect(Self.get("").body == #"{"d":{"EntitySets":["Products"]}}"#)
        let metadata = Self.get("$metadata")
        #expect(metadata.status == 200)
        #expect(metadata.contentType == "application/xml")
        #expect(metadata.body.hasPrefix(#"<?xml version="1.0" encoding="utf-8"?>"#))
        for fragment in [
            #"<edmx:DataServices m:DataServiceVersion="2.0""#, #"<Schema Namespace="WorkbenchDemo""#,
            #"<Key><PropertyRef Name="ProductID"/></Key>"#,
            #"<Property Name="Price" Type="Edm.Decimal" Nullable="false" Precision="10" Scale="2"/>"#,
            #"<EntitySet Name="Products" EntityType="WorkbenchDemo.Product"/>"#,
        ] {
            #expect(metadata.body.contains(fragment))
        }
        // The EDMX is well-formed XML.
        #expect(throws: Never.self) { try XMLDocument(xmlString: metadata.body) }
    }

    @Test(
        arguments: [
            ([("$orderby", "Name")], "$orderby", "not supported here"),
            ([("$select", "Name")], "$select", "not supported here"),
            ([("$bogus", "1")], "unknown system query option '$bogus'", "supports"),
            ([("$top", "-1")], "$top=-1", "whole number"),
            ([("$top", "x")], "$top=x", "whole number"),
            ([("$skip", "99999999")], "$skip=99999999", "whole number"),
            ([("$top", "1"), ("$top", "2")], "given twice", "$top"),
            ([("$format", "atom")], "$format=atom", "JSON only"),
            ([("$filter", "Price gt 100")], "operator 'gt'", "only 'eq'"),
            ([("$filter", "Category eq 'A' and InStock eq true")], "operator 'and'", "only 'eq'"),
            ([("$filter", "Colour eq 'red'")], "'Colour'", "not a property"),
            ([("$filter", "ProductID eq 'three'")], "not a valid Edm.Int32", "whole number"),
            ([("$filter", "Price eq 1.234")], "not a valid Edm.Decimal", "two decimals"),
            ([("$filter", "Name eq 'open")], "unterminated", "string literal"),
            ([("$filter", "Name")], "not understood", "PROPERTY eq LITERAL"),
            ([("$inlinecount", "some")], "$inlinecount=some", "allpages or none"),
        ] as [([(name: String, value: String)], String, String)])
    func unsupportedOrBadOptionsAre400WithAClearMessage(query: [(name: String, value: String)], says: String, andSays: String) throws {
        let response = Self.get("Products", query)
        #expect(response.status == 400)
        let (code, message) = try Self.error(response)
        #expect(code == "BadRequest")
        #expect(message.contains(says), "\(message)")
        #expect(message.contains(andSays), "\(message)")
    }

    @Test func otherResourcesMethodsAndFormats() throws {
        let unknown = Self.get("Orders")
        #expect(unknown.status == 404)
        #expect(try Self.error(unknown).1.contains("Resource not found for the segment 'Orders'"))
        #expect(Self.get("Products(1)/Name").status == 400)
        #expect(Self.get("$metadata", [("$top", "1")]).status == 400)
        let post = Self.get("Products", method: "POST")
        #expect(post.status == 405)
        #expect(post.headers["Allow"] == "GET, HEAD")
        #expect(Self.get("Products", accept: "application/atom+xml").status == 406)
        #expect(Self.get("Products", accept: "application/atom+xml, application/json;q=0.5").status == 200)
        #expect(Self.get("Products", [("$format", "json")], accept: "application/atom+xml").status == 200)
        #expect(Self.get("Products", accept: "*/*").status == 200)
    }
}
