import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Wire
import WireHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `URLRequest` as the workbench's HTTP client sends it: the origin, the origin-form request and the timeout,
/// checked before anything is sent. Also turns what comes back into URLSession's types.
struct OutgoingRequest {
    let url: URL
    let origin: HTTPOrigin
    let http: HTTPRequest
    let timeout: TimeAmount

    /// URLSession writes these itself, whatever the request says (the client writes the body's length and `Host`).
    static let managedHeaders: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]
    /// The longest timeout taken: a day. URLSession's default is 60 s.
    static let maxTimeout: Double = 86_400

    /// - throws: `URLError(.badURL)` or `URLError(.unsupportedURL)` saying what is wrong with the request.
    init(_ request: URLRequest) throws {
        guard let url = request.url else { throw Self.error(.badURL, nil, "the request has no URL") }
        self.url = url
        func refuse(_ code: URLError.Code, _ why: String) -> URLError { Self.error(code, url, "\(url.absoluteString): \(why)") }
        guard let scheme = url.scheme?.lowercased() else { throw refuse(.unsupportedURL, "no scheme; expected http or https") }
        guard scheme == "http" || scheme == "https" else {
            throw refuse(.unsupportedURL, "the scheme '\(scheme)' is not supported; expected http or https")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true), var host = components.host, !host.isEmpty else {
            throw refuse(.badURL, "no host")
        }
        // Host names are case-insensitive (node names are lowercase); an IPv6 literal comes in brackets, which the
        // origin adds back where a URL or Host header needs them.
        host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65_535).contains(port) else { throw refuse(.badURL, "port \(port) is outside 1…65535") }
        if request.httpBodyStream != nil, request.httpBody == nil {
            throw refuse(.unsupportedURL, "a body stream is not supported; give the body as httpBody")
        }
        origin = HTTPOrigin(usesTLS: scheme == "https", host: host, port: port)

        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let target = path + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
        var headers = HTTPHeaders()
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key })
        where !Self.managedHeaders.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        let body = request.httpBody.flatMap { $0.isEmpty ? nil : ByteBuffer(bytes: $0) }
        http = HTTPRequest(method: HTTPMethod(rawValue: request.httpMethod ?? "GET"), target: target, headers: headers, body: body)

        // URLSession takes a timeout of zero or less (or none at all) as its default, 60 s.
        let seconds = request.timeoutInterval.isFinite && request.timeoutInterval > 0 ? min(request.timeoutInterval, Self.maxTimeout) : 60
        timeout = .nanoseconds(Int64((seconds * 1_000_000_000).rounded()))
    }

    /// The answer's head as URLSession gives it: an `HTTPURLResponse` for the request's URL, repeated header fields
    /// joined with `, `.
    ///
    /// - throws: `URLError(.badServerResponse)` for a status code Foundation refuses (the server's, not ours).
    func response(_ answer: HTTPResponse) throws -> HTTPURLResponse { try response(status: answer.status, headers: answer.headers) }

    /// The head of an answer as URLSession gives it (see ``response(_:)``).
    func response(status: HTTPResponseStatus, headers: HTTPHeaders) throws -> HTTPURLResponse {
        var fields: [String: String] = [:]
        var names: [String: String] = [:]  // lowercased name → the spelling first seen
        for (name, value) in headers {
            let key = names[name.lowercased(), default: name]
            names[name.lowercased()] = key
            fields[key] = fields[key].map { "\($0), \(value)" } ?? value
        }
        guard let response = HTTPURLResponse(url: url, statusCode: Int(status.code), httpVersion: "HTTP/1.1", headerFields: fields)
        else { throw error(.badServerResponse, "\(url.absoluteString): the server answered with status code \(status.code)") }
        return response
    }

    /// What failed before an answer arrived, as the `URLError` URLSession would throw.
    ///
    /// - parameter elapsed: how long the exchange ran on the node's clock: a failure at or after the timeout is a
    ///   timeout, whatever the client closed the exchange with.
    func error(for underlying: any Error, after elapsed: Duration) -> URLError {
        let text = "\(underlying)"
        let code: URLError.Code
        if elapsed >= .nanoseconds(timeout.nanoseconds) || (underlying as? HTTPClientError)?.kind == .timedOut {
            code = .timedOut
        } else if let wire = underlying as? WireError {
            switch wire.kind {
            case .refused, .addressInUse: code = .cannotConnectToHost
            case .unknownHost: code = .cannotFindHost
            case .timedOut: code = .timedOut
            case .reset, .closed: code = .networkConnectionLost
            }
        } else if underlying is NIOSSLError || underlying is BoringSSLError {
            code = .secureConnectionFailed
        } else if (underlying as? HTTPClientError)?.kind == .responseTooLarge {
            code = .dataLengthExceedsMaximum
        } else {
            code = .networkConnectionLost
        }
        return Self.error(code, url, "\(url.absoluteString): \(text)", underlying: underlying)
    }

    /// A `URLError` for this request with `text` as its description.
    func error(_ code: URLError.Code, _ text: String) -> URLError { Self.error(code, url, text) }

    static func error(_ code: URLError.Code, _ url: URL?, _ text: String, underlying: (any Error)? = nil) -> URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: text]
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return URLError(code, userInfo: info)
    }
}
