import Foundation
import JWT
import TestSupport
import Testing

/// `workbench serve` with the IMS actors, driven with curl and openssl as a host app's back-end client would be.
@Suite(.serialized) struct ServeIMSTests {
    /// Options that keep serve's IMS actors off the fixed live ports and its database out of the repository,
    /// so tests can run next to a developer's own `workbench serve`.
    static var freePorts: [String] {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("serve-ims-\(getpid())-\(UInt32.random(in: 0 ... .max)).sqlite")
            .path
        return ["--set", "ims-signer.port=0", "--set", "ims.port=0", "--set", "ims.database=\(database)"]
    }

    static func curl(_ arguments: [String]) throws -> String {
        try ExternalProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10"] + arguments).stdout
    }

    /// curl trusting only the workbench's test CA, which issued the back end's certificate.
    static func curlTLS(_ arguments: [String]) throws -> String {
        try curl(["--cacert", Repository.fixture("tls/ca.pem")] + arguments)
    }

    /// A prototype for the demo host's user 14, valid from now.
    static func prototype(_ label: String) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        return JWTPrototype(
            claims: JWTClaims(
                issuer: "63d9a389-4ddc-4df1-8dd1-af6a10c7226e", subject: "14",
                id: "\(label)-\(now)-\(UInt32.random(in: 0 ... .max))", notBefore: now, expires: now + 900)
        ).compact
    }

    @Test func serveListsTheIMSActorsAndTheirDemoCredentialsWork() throws {
        let serve = try WorkbenchBinary.serve(
            ["--only", "ims-signer", "--only", "ims", "--state-dir", NSTemporaryDirectory() + "workbench-ims-serve-\(getpid())"] + Self.freePorts,
            until: { $0.contains("note ims admin-token") && $0.hasSuffix("\n") })
        defer { serve.stop() }
        let signerURL = try serve.lastWord(ofLineStartingWith: "listening ims-signer https://")
        let imsURL = try serve.lastWord(ofLineStartingWith: "listening ims http://")
        let apiKey = try serve.lastWord(ofLineStartingWith: "note ims-signer api-key ")
        #expect(apiKey == "63d9a389-4ddc-4df1-8dd1-af6a10c7226e")
        let bearer = try #require(serve.lines.first { $0.hasPrefix("note ims-signer bearer-token ") }?.split(separator: " ")[3].description)

        // The host app signs a prototype for user 14 with the demo bearer token, then starts an IMS session.
        let prototype = Self.prototype("serve")
        let token = try Self.curlTLS([
            "-H", "Authorization: Bearer \(bearer)", "-H", "Content-Type: text/plain", "--data-binary", prototype, signerURL + "sign",
        ])
        #expect(token.split(separator: ".").count == 3, "signing answered: \(token)")
        let session = try Self.curl(["-X", "POST", "-H", "Authorization: Bearer \(token)", imsURL + "v1/sessions"])
        #expect(session.contains(#""sub":"14""#), "IMS answered: \(session)")
        let wrong = try Self.curlTLS([
            "-H", "Authorization: Bearer nope", "-H", "Content-Type: text/plain", "--data-binary", prototype, signerURL + "sign",
        ])
        #expect(wrong.contains("not a valid app token"))
    }

    /// The URLs serve prints answer a GET with what is there: the signer's root says where /sign is.
    @Test func theRootsServePrintsSayWhatIsThere() throws {
        let serve = try WorkbenchBinary.serve(
            ["--only", "ims-signer", "--only", "ims", "--state-dir", NSTemporaryDirectory() + "workbench-ims-roots-\(getpid())"] + Self.freePorts,
            until: { $0.contains("note ims admin-token") && $0.hasSuffix("\n") })
        defer { serve.stop() }
        let signerURL = try serve.lastWord(ofLineStartingWith: "listening ims-signer https://")
        let imsURL = try serve.lastWord(ofLineStartingWith: "listening ims http://")
        let signer = try Self.curlTLS(["-i", signerURL])
        #expect(signer.hasPrefix("HTTP/1.1 200"), "\(signer)")
        #expect(signer.contains("POST \(signerURL)sign signs a token prototype"), "\(signer)")
        let ims = try Self.curl(["-i", imsURL])
        #expect(ims.hasPrefix("HTTP/1.1 200") && ims.contains("POST /v1/sessions starts a session"), "\(ims)")
    }

    /// A port another program holds is named by the actor and option that asked for it.
    @Test func aTakenPortNamesTheActorAndOption() throws {
        let holder = try ServerSocketHolder()
        let run = try WorkbenchBinary.run(
            [
                "serve", "--only", "ims", "--set", "ims.port=\(holder.port)", "--state-dir",
                NSTemporaryDirectory() + "workbench-ims-taken-\(getpid())",
            ],
            timeout: 60)
        #expect(run.status != 0)
        #expect(run.stderr.contains("ims.port=\(holder.port): address already in use (127.0.0.1:\(holder.port))"), "\(run.output)")
    }

    /// The original signer posts to `https://…/sign`: serve's back end speaks TLS with the test certificate, which
    /// openssl s_client shows and verifies, and curl gets a signed token over it.
    @Test func theSigningBackEndServesHTTPSThatOpenSSLAndCurlVerify() throws {
        let serve = try WorkbenchBinary.serve(
            ["--only", "ims-signer", "--state-dir", NSTemporaryDirectory() + "workbench-ims-tls-\(getpid())", "--set", "ims-signer.port=0"],
            until: { $0.contains("note ims-signer bearer-token") && $0.hasSuffix("\n") })
        defer { serve.stop() }
        let signerURL = try serve.lastWord(ofLineStartingWith: "listening ims-signer https://")
        let bearer = try #require(serve.lines.first { $0.hasPrefix("note ims-signer bearer-token ") }?.split(separator: " ")[3].description)
        let url = try #require(URL(string: signerURL))
        let authority = "\(url.host ?? ""):\(try #require(url.port))"

        let handshake = try ExternalProcess.run(
            "/usr/bin/openssl",
            [
                "s_client", "-connect", authority, "-servername", "ims-signer",
                "-CAfile", Repository.fixture("tls/ca.pem"), "-verify_return_error",
            ],
            input: Data(), timeout: 30)
        #expect(handshake.stdout.contains("CN = tls-server") || handshake.stdout.contains("CN=tls-server"), "s_client printed: \(handshake.stdout)")
        #expect(handshake.stdout.contains("Workbench Test CA"), "s_client printed: \(handshake.stdout)")
        #expect(handshake.stdout.contains("Verify return code: 0 (ok)"), "s_client printed: \(handshake.stdout)")

        let prototype = Self.prototype("serve-tls")
        let signed = try Self.curlTLS([
            "-H", "Authorization: Bearer \(bearer)", "-H", "Content-Type: text/plain", "--data-binary", prototype,
            "-w", "\n%{http_code} %{content_type}", signerURL + "sign",
        ])
        let lines = signed.split(separator: "\n")
        #expect(lines.last == "200 text/plain; charset=utf-8", "curl printed: \(signed)")
        let token = try SignedJWT(compact: String(lines.first ?? ""))
        #expect(token.claims.subject == "14")
        let certificate = try HostCertificate(pem: String(contentsOfFile: Repository.fixture("ims/host.pem"), encoding: .utf8))
        #expect(token.hasValidSignature(certificate.publicKey))

        // Without the test CA curl refuses the certificate; plain HTTP to the TLS port gets nginx's 400.
        let untrusted = try ExternalProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--data-binary", prototype, signerURL + "sign"])
        #expect(untrusted.status == 60, "curl said: \(untrusted.stderr)")  // CURLE_PEER_FAILED_VERIFICATION
        let plain = try ExternalProcess.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "10", "-w", "%{http_code}", "--data-binary", prototype,
                signerURL.replacingOccurrences(of: "https://", with: "http://") + "sign",
            ])
        #expect(plain.stdout == "The plain HTTP request was sent to HTTPS port\n400", "curl said: \(plain.stderr)")
    }
}

/// A listening socket on a free loopback port, held until the value is gone: a port another program has taken.
final class ServerSocketHolder {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 1) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
