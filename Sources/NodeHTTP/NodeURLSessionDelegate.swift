import Foundation
import NIOHTTP1
import WireHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Answers the challenges of a ``NodeURLSession``'s requests: `URLSessionDelegate`'s challenge method in its async
/// form, with the session's type in the first place, so the body an app's URLSession delegate has for a Basic
/// challenge serves here as it is.
///
/// The session asks about HTTP Basic only (`NSURLAuthenticationMethodHTTPBasic`), once per request, with
/// `previousFailureCount` 0 and the `401` as `failureResponse`; server trust is the session's ``NodeURLSession/Trust``.
public protocol NodeURLSessionDelegate: AnyObject, Sendable {
    /// How to answer `challenge`.
    ///
    /// - returns: `.useCredential` and a credential with a user and password to send the request again with them;
    ///   `.cancelAuthenticationChallenge` to fail the request with `URLError(.cancelled)`; anything else (or
    ///   `.useCredential` without a password) to take the `401` as the answer.
    func urlSession(
        _ session: NodeURLSession, didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?)
}

extension NodeURLSession {
    /// `request` to send again after `answer`, with the credential the ``delegate`` gives when `answer` is a Basic
    /// challenge; nil when the answer stands (no challenge, no delegate, or no credential given).
    ///
    /// - throws: `URLError(.cancelled)` when the delegate cancels the challenge.
    func retried(_ request: HTTPRequest, after answer: HTTPResponse, for outgoing: OutgoingRequest) async throws -> HTTPRequest? {
        guard answer.isBasicChallenge, let delegate else { return nil }
        let (disposition, credential) = await delegate.urlSession(self, didReceive: try Self.challenge(answer, for: outgoing))
        switch disposition {
        case .useCredential:
            guard let credential, let user = credential.user, let password = credential.password else { return nil }
            var again = request
            again.headers.replaceOrAdd(name: "Authorization", value: BasicCredentials(user: user, password: password).headerValue)
            return again
        case .cancelAuthenticationChallenge:
            throw outgoing.error(.cancelled, "the delegate cancelled the Basic challenge of \(outgoing.url.absoluteString)")
        default:
            return nil
        }
    }

    /// The challenge of a `401` Basic answer, as URLSession makes it: the protection space of the request's origin
    /// and the answer's realm.
    static func challenge(_ answer: HTTPResponse, for request: OutgoingRequest) throws -> URLAuthenticationChallenge {
        let space = URLProtectionSpace(
            host: request.origin.host, port: request.origin.port, protocol: request.origin.usesTLS ? "https" : "http",
            realm: realm(of: answer.headers.first(name: "WWW-Authenticate") ?? ""), authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        return URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: 0, failureResponse: try request.response(answer), error: nil,
            sender: ChallengeSender())
    }

    /// `Basic realm="SAP Mobile Services"` → `SAP Mobile Services`; nil when the challenge names no realm.
    static func realm(of challenge: String) -> String? {
        guard let start = challenge.range(of: "realm=", options: .caseInsensitive) else { return nil }
        var value = challenge[start.upperBound...]
        if value.first == "\"" {
            value = value.dropFirst()
            return String(value.prefix { $0 != "\"" })
        }
        return String(value.prefix { $0 != "," && $0 != " " })
    }
}

/// The sender a challenge must have. URLSession's delegates answer through the returned disposition, never through
/// the sender (NSURLConnection's way), so it does nothing.
private final class ChallengeSender: NSObject, URLAuthenticationChallengeSender, Sendable {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
