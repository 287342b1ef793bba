import IPP
import NIOCore
import NIOHTTP1
import NIOSSL
import Wire

#if canImport(Glibc)
    import Glibc
#endif

/// What answers mean: HTTP statuses, IPP responses and connection failures mapped to `MiGError`.
extension MiGClient {
    /// Turns an HTTP answer into the IPP response, or the error its status means.
    func interpret(_ response: IncomingResponse, requestID: Int32) throws(MiGError) -> IPPMessage {
        let status = response.head.status
        switch status.code {
        case 200:
            if let type = response.head.headers.first(name: "Content-Type"), !type.lowercased().hasPrefix("application/ipp") {
                throw .malformedResponse("HTTP 200 with Content-Type \(type), expected application/ipp: is this URL MiG's /ipp/print?")
            }
            let message: IPPMessage
            do {
                message = try IPPDecoder().decode(Array(buffer: response.body))
            } catch {
                throw .malformedResponse("the IPP response cannot be decoded: \(error)")
            }
            guard message.requestID == requestID else {
                throw .malformedResponse("the IPP response has request-id \(message.requestID), expected \(requestID)")
            }
            return message
        case 401:
            throw .unauthorized(realm: Self.realm(of: response.head.headers.first(name: "WWW-Authenticate")))
        case 404:
            throw .notFound(path: configuration.endpoint.path)
        default:
            let text = String(decoding: response.body.readableBytesView.prefix(200), as: UTF8.self)
            // nginx with `ssl_verify_client on` completes TLS 1.3 without a client certificate and answers
            // "400 No required SSL certificate was sent" (or "…certificate error") at the HTTP level.
            if status.code == 400, text.contains("SSL certificate") {
                throw .tlsClientCertificateRejected("the TLS proxy answered 400: \(Self.htmlTitle(text) ?? text)")
            }
            throw .httpStatus(
                code: Int(status.code), reason: status.reasonPhrase,
                body: text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    static func requireSuccess(_ message: IPPMessage) throws(MiGError) -> IPPMessage {
        guard message.status.isSuccessful else {
            throw .ipp(status: message.status, message: message.statusMessage)
        }
        return message
    }

    /// The `<title>` of an HTML error page (nginx's), if any.
    static func htmlTitle(_ text: String) -> String? {
        guard let open = text.range(of: "<title>"), let close = text.range(of: "</title>", range: open.upperBound..<text.endIndex) else {
            return nil
        }
        return String(text[open.upperBound..<close.lowerBound])
    }

    /// The realm of `WWW-Authenticate: Basic realm="MiG"`.
    static func realm(of header: String?) -> String? {
        guard let header, let range = header.range(of: "realm=", options: .caseInsensitive) else { return nil }
        let value = header[range.upperBound...]
        if value.hasPrefix("\"") {
            return String(value.dropFirst().prefix { $0 != "\"" })
        }
        return String(value.prefix { $0 != "," && $0 != " " })
    }

    static func classify(_ error: any Error, endpoint: MiGEndpoint) -> MiGError {
        let target = "\(endpoint.host):\(endpoint.port)"
        switch error {
        case let error as MiGError:
            return error
        case let error as WireError:
            switch error.kind {
            case .refused: return .connectionRefused(target)
            case .unknownHost: return .unknownHost(endpoint.host)
            case .timedOut: return .timedOut("connecting to \(target)")
            case .reset, .closed, .addressInUse: return .connectionDropped(error.description)
            }
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return .connectionRefused(target)
            case ETIMEDOUT: return .timedOut("the connection to \(target) timed out")
            default: return .connectionDropped("\(error)")
            }
        case ChannelError.connectTimeout:
            return .timedOut("connecting to \(target)")
        case let error where MiGTLS.isTLSError(error):
            if let ssl = error as? NIOSSLError, case .uncleanShutdown = ssl {
                return .connectionDropped("the server closed the TLS connection without an answer")
            }
            return MiGTLS.classify(error)
        case is HTTPParserError:
            return .malformedResponse("the answer is not HTTP/1.1: \(error)")
        default:
            return .connectionDropped("\(error)")
        }
    }
}
