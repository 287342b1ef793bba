import DerivedCredential
import Testing

@Suite struct BusURLTests {
    @Test func printsAndParsesTheSameURL() throws {
        let url = BusURL(scheme: "MyApp", command: "certificate", query: [("serial", "12 34/é"), ("tag", "Signing"), ("empty", "")])
        #expect(url.description == "myapp://certificate?serial=12%2034%2F%C3%A9&tag=Signing&empty=")
        let parsed = try BusURL(parsing: url.description)
        #expect(parsed == url)
        #expect(parsed.value("serial") == "12 34/é")
        #expect(parsed.value("empty") == "")
        #expect(try BusURL(parsing: "scheme://new").query.isEmpty)
    }

    @Test(arguments: [
        ("appconnectdc:credential", "has no 'scheme://'"),
        ("1dc://credential", "is not a URL scheme"),
        ("appconnectdc://cred/ential", "is not a command word"),
        ("appconnectdc://credential?v", "is not name=value"),
        ("appconnectdc://credential?=1", "is not name=value"),
        ("appconnectdc://credential?v=%G1", "valid %-escapes"),
        ("appconnectdc://credential?v=%FF", "valid %-escapes"),
        // Found by tools/fuzz-ivanti.sh: a sign is not a hex digit (UInt8("+a", radix: 16) is 10).
        ("appconnectdc://credential?v=%+a", "valid %-escapes"),
        ("appconnectdc://credential?v=%-0", "valid %-escapes"),
    ])
    func malformedURLsSayWhatIsWrong(text: String, message: String) {
        #expect {
            try BusURL(parsing: text)
        } throws: { error in
            let problem = error as? CredentialProblem
            return problem?.code == .malformedURL && problem?.detail.contains(message) == true
        }
    }

    @Test func oversizedURLsAreRefusedBeforeParsing() {
        let text = "appconnectdc://credential?box=" + String(repeating: "A", count: CredentialLimits.maxURLBytes)
        #expect(throws: CredentialProblem.self) { try BusURL(parsing: text) }
        do {
            _ = try AppConnectRequest(parsing: text)
        } catch {
            #expect(error.code == .oversized)
            #expect(error.detail.contains("at most \(CredentialLimits.maxURLBytes)"))
        }
    }

    @Test func requestsRoundTripAndUnknownOnesAreRefused() throws {
        let sealed = PayloadSeal.Sealed(ephemeralPublicKey: Array(repeating: 1, count: 32), nonce: Array(repeating: 2, count: 12), box: [3, 4, 5])
        for request in [AppConnectRequest.register(appScheme: "mail-ac"), .credential(sealed), .certificate(serial: "S 1", tag: .escrow)] {
            #expect(try AppConnectRequest(parsing: request.url.description) == request)
        }
        #expect(throws: CredentialProblem.self) { try AppConnectRequest(parsing: "appconnectdc://register?scheme=x") }
        #expect(throws: CredentialProblem.self) { try AppConnectRequest(parsing: "appconnectdc://certificate?serial=1&tag=Bogus") }
        #expect(throws: CredentialProblem.self) { try AppConnectRequest(parsing: "appconnect://register?scheme=not%20a%20scheme") }
    }

    @Test func repliesRoundTrip() throws {
        let status = AppConnectStatus(
            authState: .retired, managedPolicy: .unmanaged, secureServices: .unavailable, ready: false,
            clientKey: Array(repeating: 9, count: 32))
        let replies: [AppConnectReply] = [
            .state(status), .newCredential, .certificate(serial: "1", tag: "Signing", outcome: .granted(der: [1, 2])),
            .certificate(serial: "1", tag: "Signing", outcome: .denied(reason: "not yours")),
        ]
        for reply in replies {
            #expect(try AppConnectReply(parsing: reply.url(scheme: "app").description) == reply)
        }
        #expect(throws: CredentialProblem.self) { try AppConnectReply(parsing: "app://state?auth=authorized") }
    }
}
