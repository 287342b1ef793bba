import IPP
import NIOCore
import NIOHTTP1

/// Sending a message exactly as it was captured or written by someone else — the original app's request, a
/// capture from a phone — to see what the server answers, without the client's own checks in between.
extension MiGClient {
    /// What the server answered to a request sent as-is.
    public struct ReplayAnswer: Sendable {
        /// The HTTP status: 200 for every IPP answer, whether the IPP status is success or an error.
        public let httpStatus: Int
        /// The IPP response, when the answer is `application/ipp` and decodes.
        public let message: IPPMessage?
        /// Why `message` is nil (another content type, or bytes that do not decode).
        public let problem: String?
        /// The first bytes of a body that is not IPP (an error page), as text.
        public let text: String
    }

    /// POSTs `encodedRequest` (an IPP message, unchanged: its version, request-id and attributes are the
    /// caller's) followed by `document`, with the original app's headers and `Content-Length`, once — no retries, no
    /// request-id check. - throws: `MiGError` when no HTTP answer arrives at all.
    public func replay(encodedRequest: [UInt8], document: Document? = nil) async throws(MiGError) -> ReplayAnswer {
        let documentSize = try document?.size() ?? 0
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: configuration.endpoint.path)
        addCommonHeaders(to: &head.headers)
        head.headers.add(name: "Content-Type", value: "application/ipp")
        head.headers.add(name: "Content-Length", value: "\(Int64(encodedRequest.count) + documentSize)")
        node.trace("mig-client-replay", [("bytes", "\(encodedRequest.count)"), ("document-bytes", "\(documentSize)")])
        let request = OutgoingRequest(
            head: head, prefix: ByteBuffer(bytes: encodedRequest), document: document,
            documentSize: document == nil ? nil : documentSize, compression: .none,
            expectContinue: false, progress: nil, maxResponseBytes: Self.maxResponseBytes)
        let response: IncomingResponse
        switch await exchange(request) {
        case .success(let answer): response = answer
        case .failure(let error): throw error
        }
        let status = Int(response.head.status.code)
        let type = response.head.headers.first(name: "Content-Type") ?? "none"
        var message: IPPMessage?
        var problem: String?
        if type.lowercased().hasPrefix("application/ipp") {
            do {
                message = try IPPDecoder().decode(Array(buffer: response.body))
            } catch {
                problem = "the IPP answer cannot be decoded: \(error)"
            }
        } else {
            problem = "HTTP \(status) with Content-Type \(type), not application/ipp"
        }
        node.trace("mig-client-replay-answer", [("http", "\(status)"), ("ipp", message.map { "\($0.status)" } ?? "none")])
        return ReplayAnswer(
            httpStatus: status, message: message, problem: problem,
            text: message == nil ? String(decoding: response.body.readableBytesView.prefix(200), as: UTF8.self) : "")
    }
}
