import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import WireHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session delegate of a ``URLSessionTransport``: collects each task's answer and answers its challenges.
///
/// Each task's body is gathered here rather than through a completion handler: on Linux a completion handler
/// loses the `401` when a challenge is given up (the task ends as cancelled), while the delegate still holds that
/// answer's head (`task.response`) and its body, so the caller gets the `401` as the NIO transport hands it back.
final class URLSessionChallengeDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// One task in flight.
    private struct Exchange {
        let continuation: CheckedContinuation<HTTPResponse, any Error>
        let answer: BasicChallengeAnswer?
        /// The body of the current answer: emptied when a challenge is answered (the `401`'s body came first).
        var body = Data()
        /// A Basic challenge was declined or refused again: the task ends cancelled, and the `401` is the result.
        var gaveUp = false
    }

    private let exchanges = Mutex<[Int: Exchange]>([:])

    /// Registers `task` before it is resumed.
    func begin(_ task: URLSessionTask, answering answer: BasicChallengeAnswer?, continuation: CheckedContinuation<HTTPResponse, any Error>) {
        exchanges.withLock { $0[task.taskIdentifier] = Exchange(continuation: continuation, answer: answer) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchanges.withLock { $0[dataTask.taskIdentifier]?.body.append(data) }
    }

    /// Basic: the request's answer, once (`.forSession`, as the original app); declined, or asked again after the
    /// server refused it, the challenge is cancelled: on Linux, `.performDefaultHandling` without a stored
    /// credential leaves the task waiting for ever, and `.rejectProtectionSpace` cancels as well.
    /// Server trust (asked on Apple platforms only): the system's judgement.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        switch challenge.protectionSpace.authenticationMethod {
        case NSURLAuthenticationMethodHTTPBasic:
            let answer = exchanges.withLock { $0[task.taskIdentifier]?.answer }
            if challenge.previousFailureCount == 0, let credentials = answer?() {
                exchanges.withLock { $0[task.taskIdentifier]?.body = Data() }
                completionHandler(.useCredential, URLCredential(user: credentials.user, password: credentials.password, persistence: .forSession))
            } else {
                exchanges.withLock { $0[task.taskIdentifier]?.gaveUp = true }
                completionHandler(.cancelAuthenticationChallenge, nil)
            }
        default:
            #if canImport(Darwin)
                // Server trust and the rest: the system's judgement.
                completionHandler(.performDefaultHandling, nil)
            #else
                // corelibs-foundation asks only about Basic and Digest (it cannot answer Digest, and has no
                // `NSURLAuthenticationMethodServerTrust` at all): the 401 goes back to the caller.
                exchanges.withLock { $0[task.taskIdentifier]?.gaveUp = true }
                completionHandler(.cancelAuthenticationChallenge, nil)
            #endif
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let head = task.response as? HTTPURLResponse
        if let head, error == nil || (exchange.gaveUp && head.statusCode == 401) {
            exchange.continuation.resume(returning: Self.response(head, body: exchange.body))
        } else {
            exchange.continuation.resume(throwing: Self.transportError(error))
        }
    }

    static func response(_ head: HTTPURLResponse, body: Data) -> HTTPResponse {
        var headers = HTTPHeaders()
        for (name, value) in head.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers.add(name: name, value: value) }
        }
        var buffer = ByteBuffer()
        buffer.writeBytes(body)
        return HTTPResponse(status: HTTPResponseStatus(statusCode: head.statusCode), headers: headers, body: buffer)
    }

    /// URLSession's errors read `Error Domain=NSURLErrorDomain Code=-1 "(null)" UserInfo={…}`: the message and the
    /// code are what a reader needs.
    static func transportError(_ error: (any Error)?) -> HTTPClientError {
        guard let error else { return HTTPClientError("URLSession: the task ended without an HTTP answer") }
        let nsError = error as NSError
        return HTTPClientError("URLSession: \(nsError.localizedDescription) (\(nsError.domain) \(nsError.code))")
    }
}
