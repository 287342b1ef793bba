import Foundation
import NIOCore
import NIOHTTP1
import WireHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``HTTPTransport`` over Foundation's `URLSession` — on Linux, FoundationNetworking on libcurl (Debian's `libcurl4`).
/// Real sockets and the wall clock: the live wire only.
///
/// Challenges are answered in the session's delegate, as the original SCPms app answers them: a Basic challenge
/// with `URLCredential(user:password:persistence: .forSession)` from the request's ``BasicChallengeAnswer`` (once),
/// a server-trust challenge by the system's judgement. What libcurl-backed URLSession cannot do on Linux
/// (docs/urlsession.md): it never asks the delegate about server trust, and has no per-session trust roots, so an
/// `https://` origin is trusted exactly when the system trusts it.
public final class URLSessionTransport: HTTPTransport {
    public let origin: HTTPOrigin
    /// Per request; libcurl counts it in whole seconds, from each (re)send.
    public let timeout: Duration
    private let session: URLSession
    private let delegate: URLSessionChallengeDelegate

    /// - parameter configuration: the session's settings (ephemeral by default: no cookies, cache or credential
    ///   store kept between transports).
    public init(origin: HTTPOrigin, timeout: Duration = .seconds(30), configuration: URLSessionConfiguration = .ephemeral) {
        self.origin = origin
        self.timeout = timeout
        delegate = URLSessionChallengeDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: HTTPRequest, answering challenge: BasicChallengeAnswer?) async throws -> HTTPResponse {
        let urlRequest = try urlRequest(for: request)
        let task = session.dataTask(with: urlRequest)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.begin(task, answering: challenge, continuation: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// The request as URLSession takes it. `Host`, `Content-Length`, `Transfer-Encoding` and `Connection` are
    /// libcurl's to write (the body is always sent whole, never chunked).
    func urlRequest(for request: HTTPRequest) throws -> URLRequest {
        guard request.target.hasPrefix("/"), let url = URL(string: origin.text + request.target) else {
            throw HTTPClientError("URLSession: '\(request.target)' is no origin-form target (/path?query) for \(origin.text)")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.timeoutInterval = max(1, Double(timeout.components.seconds))
        let managed: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]
        for (name, value) in request.headers where !managed.contains(name.lowercased()) {
            urlRequest.addValue(value, forHTTPHeaderField: name)
        }
        if let body = request.body, body.readableBytes > 0 {
            urlRequest.httpBody = Data(body.readableBytesView)
        }
        return urlRequest
    }
}
