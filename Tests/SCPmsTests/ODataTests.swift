import SCPms
import Testing

@Suite struct ODataTests {
    @Test func datesRoundTripAndRejectOtherText() {
        #expect(ODataDate.format(milliseconds: 1_767_225_600_123) == "/Date(1767225600123)/")
        #expect(ODataDate.parse("/Date(1767225600123)/") == 1_767_225_600_123)
        #expect(ODataDate.parse("/Date(-5)/") == -5)
        #expect(ODataDate.parse("/Date(1767225600123+0100)/") == 1_767_225_600_123)
        for bad in ["/Date()/", "Date(1)", "/Date(1x)/", "/Date(1+01)/", "/Date(--1)/"] { #expect(ODataDate.parse(bad) == nil) }
    }

    @Test func iso8601IsTheProlepticGregorianCalendar() {
        #expect(ODataDate.iso8601(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(ODataDate.iso8601(milliseconds: 1_767_225_600_000) == "2026-01-01T00:00:00.000Z")
        #expect(ODataDate.iso8601(milliseconds: 951_782_400_000 + 3_723_004) == "2000-02-29T01:02:03.004Z")
        #expect(ODataDate.iso8601(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
    }

    @Test func jsonStringsAreEscaped() {
        let text = ODataJSON.text(.object([("a", .string("q\"b\\n\n\u{1}é")), ("b", .null)]))
        #expect(text == #"{"a":"q\"b\\n\n\u0001é","b":null}"#)
    }

    @Test func settingsParseEveryWritableFieldAndNormaliseTheDeviceType() throws {
        let body = #"{"DeviceType": "Toaster", "DeviceModel": "iOS 17", "UserName": "o'brien; DROP TABLE connection;--", "Email": null}"#
        let settings = try ConnectionSettings.parse(json: Array(body.utf8)).get()
        #expect(settings["DeviceType"] == "Unknown")
        #expect(settings["UserName"] == "o'brien; DROP TABLE connection;--")
        #expect(settings["Email"] == nil)
        #expect(try ConnectionSettings.parse(json: []).get() == ConnectionSettings())
        #expect(try ConnectionSettings.parse(json: Array(#"{"d": {"DeviceType": "iPad"}}"#.utf8)).get()["DeviceType"] == "iPad")
    }

    @Test func badSettingsSayWhatIsWrong() {
        func why(_ body: String) -> String {
            if case .failure(let error) = ConnectionSettings.parse(json: Array(body.utf8)) { return error.description }
            return "accepted"
        }
        #expect(why("{\"DeviceType\": ").contains("not valid JSON"))
        #expect(why("[1]").contains("not an object"))
        #expect(why(#"{"Colour": "red"}"#).contains("unknown property Colour"))
        #expect(why(#"{"ApplicationConnectionId": "x"}"#).contains("set by the server"))
        #expect(why(#"{"DeviceType": 3}"#).contains("must be a string"))
        #expect(why("{\"Email\": \"\(String(repeating: "x", count: 600))\"}").contains("at most 512"))
    }

    @Test func theEntityIsODataV2() {
        let connection = ApplicationConnection(
            id: "ID-1", applicationId: "app", owner: "demo", createdAtMilliseconds: 1000,
            modifiedAtMilliseconds: 2000, settings: ConnectionSettings(["DeviceType": "iPhone"]))
        let json = connection.odataJSON(uri: "http://h/odata/applications/latest/app/Connections('ID-1')")
        #expect(
            json.hasPrefix(
                #"{"d":{"__metadata":{"uri":"http://h/odata/applications/latest/app/Connections('ID-1')","type":"applications.Connection"},"ApplicationConnectionId":"ID-1","ETag":"1970-01-01T00:00:02.000Z","CreatedAt":"\/Date(1000)\/""#
            )
                || json.hasPrefix(
                    #"{"d":{"__metadata":{"uri":"http://h/odata/applications/latest/app/Connections('ID-1')","type":"applications.Connection"},"ApplicationConnectionId":"ID-1","ETag":"1970-01-01T00:00:02.000Z","CreatedAt":"/Date(1000)/""#
                ))
        #expect(json.contains(#""DeviceType":"iPhone","DeviceModel":null"#))
    }
}
