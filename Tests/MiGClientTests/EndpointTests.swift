import MiGClient
import Testing

/// Printer URLs as apps and ipptool write them.
@Suite struct EndpointTests {
    @Test func theOriginalAppsURLAndItsIPPSpelling() throws {
        let https = try MiGEndpoint(url: "https://safeq-server:8050/ipp/print")
        #expect(https.host == "safeq-server" && https.port == 8050 && https.path == "/ipp/print" && https.usesTLS)
        #expect(https.printerURI == "ipps://safeq-server:8050/ipp/print")
        let ipps = try MiGEndpoint(url: "ipps://safeq-server:8050/ipp/print")
        #expect(ipps == https)
    }

    @Test func defaultPortsAndPath() throws {
        #expect(try MiGEndpoint(url: "ipp://printer").port == 631)
        #expect(try MiGEndpoint(url: "ipps://printer").port == 631)
        #expect(try MiGEndpoint(url: "http://printer").port == 80)
        #expect(try MiGEndpoint(url: "https://printer").port == 443)
        #expect(try MiGEndpoint(url: "ipp://printer:8631/").path == "/ipp/print")
        #expect(try MiGEndpoint(url: "ipp://printer:8631/ipp/print?x#frag").path == "/ipp/print?x")
    }

    @Test func credentialsFromTheURL() throws {
        let endpoint = try MiGEndpoint(url: "ipp://demo:p%40ss:w@127.0.0.1:8631/ipp/print")
        #expect(endpoint.credentials?.user == "demo")
        #expect(endpoint.credentials?.password == "p@ss:w")
        #expect(endpoint.host == "127.0.0.1")
        let configuration = try MiGClient.Configuration(url: "ipp://demo:pw@host/ipp/print")
        #expect(configuration.credentials?.user == "demo" && configuration.credentials?.password == "pw")
        let overridden = try MiGClient.Configuration(url: "ipp://demo:pw@host/ipp/print", user: "alice", password: "x")
        #expect(overridden.credentials?.user == "alice")
    }

    @Test func ipv6Hosts() throws {
        let endpoint = try MiGEndpoint(url: "ipps://[::1]:8050/ipp/print")
        #expect(endpoint.host == "::1" && endpoint.port == 8050)
        #expect(endpoint.printerURI == "ipps://[::1]:8050/ipp/print")
    }

    @Test(arguments: ["printer:631/ipp/print", "ftp://printer/ipp/print", "ipp://:631/ipp/print", "ipp://printer:99999/", "ipp://printer:abc/"])
    func badURLsSayWhatWasExpected(url: String) {
        #expect(throws: MiGError.self) { _ = try MiGEndpoint(url: url) }
    }

    @Test func backoffDoublesUpToTheCap() {
        let policy = MiGClient.RetryPolicy(maxAttempts: 10, baseDelay: .milliseconds(250), maxDelay: .seconds(2))
        #expect((1...6).map { policy.delay(afterAttempt: $0).nanoseconds / 1_000_000 } == [250, 500, 1000, 2000, 2000, 2000])
    }
}
