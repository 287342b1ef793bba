import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Loads the data of one HTTP request, as `URLSession.data(for:)` does: the seam an app's own HTTP code is written
/// against, so it runs on Foundation's `URLSession` in the app and on a workbench `Node` (``NodeURLSession``) in the
/// app's tests, simulated or live, unchanged.
///
/// The contract is URLSession's: any status code is an answer (a `404` or a `503` is returned, not thrown), the
/// response is an `HTTPURLResponse` for `http` and `https` URLs, and what fails before an answer arrived throws a
/// `URLError` (`.timedOut`, `.cannotConnectToHost`, `.networkConnectionLost`, …).
public protocol HTTPDataLoading: Sendable {
    /// Sends `request` and returns the body and the head of the final answer.
    ///
    /// - parameter request: the URL, method, headers, body and `timeoutInterval` of the request.
    /// - returns: the answer's body, and its head (an `HTTPURLResponse` for an HTTP URL).
    /// - throws: a `URLError` when no answer arrived (or the request cannot be sent).
    func data(for request: URLRequest) async throws -> (Data, URLResponse)
}

// MARK: - URLSession

/// Foundation's `URLSession` is an ``HTTPDataLoading`` as it is. Its own method is `data(for:delegate:)` with a
/// default argument (on Apple platforms and in swift-corelibs-foundation alike), and a default argument does not
/// satisfy a protocol requirement, so the conformance forwards rather than being one line.
extension URLSession: HTTPDataLoading {
    /// `data(for: request, delegate: nil)`: the session's own delegate answers challenges, as for any task.
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await data(for: request, delegate: nil)
    }
}
