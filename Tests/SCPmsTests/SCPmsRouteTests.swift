import SCPms
import Testing

@Suite struct SCPmsRouteTests {
    @Test func routesTheRegistrationPathsOfEveryVersion() {
        #expect(SCPmsRoute.parse(path: "/odata/applications/latest/com.x/Connections") == .success(.connections(applicationId: "com.x")))
        #expect(SCPmsRoute.parse(path: "/odata/applications/v1/com.x/Connections") == .success(.connections(applicationId: "com.x")))
        #expect(
            SCPmsRoute.parse(path: "/odata/applications/v2/com.x/Connections('AB-12')")
                == .success(.connection(applicationId: "com.x", connectionId: "AB-12")))
        #expect(
            SCPmsRoute.parse(path: "/odata/applications/latest/com.x/Connections(%27AB-12%27)")
                == .success(.connection(applicationId: "com.x", connectionId: "AB-12")))
        #expect(SCPmsRoute.parse(path: "/com.x") == .success(.application(applicationId: "com.x")))
        #expect(
            SCPmsRoute.parse(path: "/mobileservices/application/com.x/clientlogs/v1/runtime/log/application/com.x")
                == .success(.clientLogs(applicationId: "com.x")))
    }

    @Test func badPathsAreMalformedOrNotFound() {
        func problem(_ path: String) -> SCPmsRoute.Problem? {
            if case .failure(let problem) = SCPmsRoute.parse(path: path) { return problem }
            return nil
        }
        guard case .malformed(let quote)? = problem("/odata/applications/latest/a/Connections(AB)") else {
            Issue.record("unquoted key accepted")
            return
        }
        #expect(quote.contains("single quotes"))
        guard case .malformed(let chars)? = problem("/odata/applications/latest/a/Connections('x;DROP%20TABLE')") else {
            Issue.record("bad id accepted")
            return
        }
        #expect(chars.contains("characters other than"))
        guard case .malformed(let long)? = problem("/odata/applications/latest/a/Connections('\(String(repeating: "a", count: 129))')") else {
            Issue.record("long id accepted")
            return
        }
        #expect(long.contains("at most 128"))
        guard case .malformed? = problem("/odata/applications/latest/a/Connections('')") else {
            Issue.record("empty id accepted")
            return
        }
        guard case .malformed? = problem("/a%zz") else {
            Issue.record("broken escape accepted")
            return
        }
        guard case .notFound(let version)? = problem("/odata/applications/beta/a/Connections") else {
            Issue.record("bad version accepted")
            return
        }
        #expect(version.contains("unknown API version"))
        guard case .notFound? = problem("/odata/applications/latest/a/Devices") else {
            Issue.record("unknown resource accepted")
            return
        }
        guard case .malformed(let twoApps)? = problem("/mobileservices/application/a/clientlogs/v1/runtime/log/application/b") else {
            Issue.record("two apps accepted")
            return
        }
        #expect(twoApps.contains("two applications"))
        guard case .notFound? = problem("/") else {
            Issue.record("root accepted")
            return
        }
    }
}
