import Foundation
import NIOCore
import Wire
import WireHTTP

/// The ready-made signer of the seed's example: `POST` the prototype to the host's back end as
/// `text/plain` with the app's bearer token, and hand back the body of a `200` as the signed token.
public struct URLTokenSigner: TokenSigner {
    public let node: Node
    public let host: String
    public let port: Int
    public let path: String
    public let appAuthorization: String
    public let timeout: TimeAmount

    /// - parameters:
    ///   - url: `http://host[:port]/path` of the back end's signing endpoint.
    ///   - appAuthorization: the token that authenticates the app's user to its host (not an IMS token).
    public init(node: Node, url: String, appAuthorization: String, timeout: TimeAmount = .seconds(30)) throws {
        guard url.hasPrefix("http://") else {
            throw TokenSigningError(.transport, "signing URL \(url): expected http://host[:port]/path")
        }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        let hostPort = authority.split(separator: ":")
        guard let host = hostPort.first, !host.isEmpty, hostPort.count <= 2 else {
            throw TokenSigningError(.transport, "signing URL \(url): expected http://host[:port]/path")
        }
        self.node = node
        self.host = String(host)
        self.port = hostPort.count == 2 ? Int(hostPort[1]) ?? 80 : 80
        self.path = rest.count > authority.count ? String(rest.dropFirst(authority.count)) : "/"
        self.appAuthorization = appAuthorization
        self.timeout = timeout
    }

    public func sign(_ unsignedToken: String, resultHandler: @escaping @Sendable (Result<String, any Error>) -> Void) {
        let request = HTTPRequest(method: .POST, target: path,
                                  headers: ["Authorization": "Bearer \(appAuthorization)", "Content-Type": "text/plain",
                                            "Cache-Control": "no-cache"],
                                  body: ByteBuffer(string: unsignedToken))
        let (node, host, port, timeout) = (self.node, self.host, self.port, self.timeout)
        node.task { () -> Result<String, any Error> in
            let response: HTTPResponse
            do {
                response = try await HTTPClient.send(request, host: host, port: port, on: node, timeout: timeout)
            } catch {
                return .failure(TokenSigningError(.transport, "Problem signing token: no response from the back end (\(error))"))
            }
            return Self.interpret(response)
        }.whenComplete { outcome in
            switch outcome {
            case .success(let result): resultHandler(result)
            case .failure(let error): resultHandler(.failure(error))
            }
        }
    }

    /// The seed's checks, in its order: response type, status, decodable body.
    static func interpret(_ response: HTTPResponse) -> Result<String, any Error> {
        guard response.status.code == 200 else {
            let reason = response.text.trimmingCharacters(in: .whitespacesAndNewlines)
            return .failure(TokenSigningError(.badStatus(Int(response.status.code)), "Bad response: \(response.status.code)\(reason.isEmpty ? "" : " (\(reason))")"))
        }
        let type = response.headers.first(name: "Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "text/plain" || type == "application/jwt" else {
            return .failure(TokenSigningError(.invalidResponseType, "Invalid response type \(type ?? "(none)"), expecting text/plain"))
        }
        guard let text = String(validating: response.body.readableBytesView, as: UTF8.self) else {
            return .failure(TokenSigningError(.undecodableBody, "Problem signing token: the body is not UTF-8"))
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.split(separator: ".", omittingEmptySubsequences: false).count == 3 else {
            return .failure(TokenSigningError(.undecodableBody, "Problem signing token: the body is not a compact JWS (header.payload.signature)"))
        }
        return .success(token)
    }
}
