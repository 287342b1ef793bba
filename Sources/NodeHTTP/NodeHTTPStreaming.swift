import Foundation
import NIOCore
import Wire
import WireHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Streamed bodies, both ways on both sides: a handler's answer written as it is produced and read by the client as it
// arrives (URLSession's `bytes(for:)` shape); a client's upload sent as it is produced and read by the handler as it
// arrives. Neither is held whole; each side reads the connection only as its reader asks.

/// Writes the parts of a streamed answer (``NodeHTTPResponse/streamed(status:headers:_:)``).
public struct NodeHTTPBodyWriter: Sendable {
    let writer: HTTPBodyWriter

    /// Sends `data` to the client now and waits until the connection took it, so a slow client slows the producer.
    /// - throws: the connection's error when the client went away.
    public func write(_ data: Data) async throws { try await writer.write(ByteBuffer(bytes: data)) }

    /// Sends `text` as UTF-8 (see ``write(_:)-(Data)``).
    /// - throws: the connection's error when the client went away.
    public func write(_ text: String) async throws { try await writer.write(ByteBuffer(string: text)) }
}

extension NodeHTTPResponse {
    /// An answer whose body `produce` writes part by part, each sent as it is written (chunked to an HTTP/1.1 client):
    /// a download, a feed of events, progress. The head goes out at once; what `produce` throws ends the answer early
    /// (the connection is closed, so the client sees an incomplete body, never a short one).
    public static func streamed(
        status: Int = 200, headers: NodeHTTPHeaders = [:], _ produce: @escaping @Sendable (NodeHTTPBodyWriter) async throws -> Void
    ) -> NodeHTTPResponse {
        var answer = NodeHTTPResponse(status: status, headers: headers)
        answer.producer = produce
        return answer
    }
}

extension NodeURLSession {
    /// Sends `request` and returns as soon as the answer's head arrived, with its body to read as it comes, as
    /// `URLSession.bytes(for:)` does on Apple's platforms (swift-corelibs-foundation has no `bytes(for:)`).
    ///
    /// The request's `timeoutInterval` bounds the wait for the head and then each wait for more of the body (an idle
    /// timeout, as URLSession's): a body may take as long as it keeps coming. A Basic challenge is answered through the
    /// ``NodeURLSession/delegate`` as ``data(for:)`` answers it.
    /// - returns: the body's bytes, and an `HTTPURLResponse` for the request's URL.
    /// - throws: `URLError` as ``data(for:)`` throws it, before the head; iterating the bytes throws
    ///   `URLError(.timedOut)` or `URLError(.networkConnectionLost)` when the body stops before its end.
    public func bytes(for request: URLRequest) async throws -> (NodeHTTPBytes, URLResponse) {
        let outgoing = try OutgoingRequest(request)
        let transport = NIOHTTPTransport(
            node: node, origin: outgoing.origin, tls: outgoing.origin.usesTLS ? tls : nil, timeout: outgoing.timeout)
        var answer = try await open(outgoing.http, on: transport, for: outgoing)
        if let again = try await retried(outgoing.http, after: HTTPResponse(status: answer.status, headers: answer.headers), for: outgoing) {
            answer = try await open(again, on: transport, for: outgoing)
        }
        let response = try outgoing.response(status: answer.status, headers: answer.headers)
        return (NodeHTTPBytes(parts: answer.body, outgoing: outgoing, clock: node.clock), response)
    }

    private func open(
        _ request: HTTPRequest, on transport: NIOHTTPTransport, for outgoing: OutgoingRequest
    ) async throws
        -> HTTPStreamedResponse
    {
        let started = node.clock.now
        do {
            return try await transport.open(request)
        } catch {
            throw outgoing.error(for: error, after: started.duration(to: node.clock.now))
        }
    }
}

/// The body of an answer as it arrives (``NodeURLSession/bytes(for:)``): its bytes one by one, as
/// `URLSession.AsyncBytes`, or its parts as the network delivered them (``chunks``). Iterate it once.
public struct NodeHTTPBytes: AsyncSequence, Sendable {
    /// One byte of the body.
    public typealias Element = UInt8

    let parts: HTTPBodyParts
    let outgoing: OutgoingRequest
    let clock: NodeClock

    /// The body's parts, each as the network delivered it: the cheap way to read a large body.
    public var chunks: Chunks { Chunks(bytes: self) }

    /// Iterates the bytes.
    public func makeAsyncIterator() -> Iterator { Iterator(chunks: chunks.makeAsyncIterator()) }

    /// Reads the body byte by byte, a part at a time underneath.
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: Chunks.Iterator
        var current = Data()
        var index = 0

        /// The next byte, or nil after the last.
        /// - throws: `URLError` when the body stopped before its end.
        public mutating func next() async throws -> UInt8? {
            while index == current.count {
                guard let part = try await chunks.next() else { return nil }
                (current, index) = (part, 0)
            }
            defer { index += 1 }
            return current[current.startIndex + index]
        }
    }

    /// The parts of the body, as `Data`.
    public struct Chunks: AsyncSequence, Sendable {
        /// One part of the body.
        public typealias Element = Data

        let bytes: NodeHTTPBytes

        /// Iterates the parts.
        public func makeAsyncIterator() -> Iterator { Iterator(parts: bytes.parts.makeAsyncIterator(), bytes: bytes) }

        /// Waits for each next part.
        public struct Iterator: AsyncIteratorProtocol {
            var parts: HTTPBodyParts.Iterator
            let bytes: NodeHTTPBytes

            /// The next part, or nil after the last.
            /// - throws: `URLError(.timedOut)` when no more came within the request's `timeoutInterval`,
            ///   `URLError(.networkConnectionLost)` when the connection ended before the body did.
            public mutating func next() async throws -> Data? {
                let started = bytes.clock.now
                do {
                    return try await parts.next().map { Data($0.readableBytesView) }
                } catch {
                    throw bytes.outgoing.error(for: error, after: started.duration(to: bytes.clock.now))
                }
            }
        }
    }
}

/// A request's body as it arrives (``NodeHTTPRequest/bodyParts``): its parts in order, as the network delivered them.
/// The server reads the connection only as the handler takes the parts. Iterate it once.
public struct NodeHTTPRequestBody: AsyncSequence, Sendable {
    /// One part of the body.
    public typealias Element = Data

    let parts: HTTPBodyParts

    /// Iterates the parts.
    public func makeAsyncIterator() -> Iterator { Iterator(parts: parts.makeAsyncIterator()) }

    /// Waits for each next part.
    public struct Iterator: AsyncIteratorProtocol {
        var parts: HTTPBodyParts.Iterator

        /// The next part, or nil after the last.
        /// - throws: ``NodeHTTPServerError`` when the body went over the server's limit (the client is answered
        ///   `413`), stopped coming within its time (`408`), or the connection ended before the body did.
        public mutating func next() async throws -> Data? {
            do {
                return try await parts.next().map { Data($0.readableBytesView) }
            } catch {
                throw NodeHTTPServerError("the request body did not arrive whole: \(error)")
            }
        }
    }
}

extension NodeURLSession {
    /// Sends `request` with the body `parts` produces, each part sent as it comes (chunked), and returns the answer as
    /// ``data(for:)`` does: an upload that is never held whole (a file read a block at a time, a recording as it is
    /// made). The request's `httpBody` is not sent.
    ///
    /// A part is sent once the connection took the one before, so a slow network slows the reading of `parts`. A
    /// Basic challenge is not answered with the body sent again (it was consumed): send credentials up front.
    /// - returns: the body and the head of the answer.
    /// - throws: `URLError` as ``data(for:)`` throws it; what iterating `parts` throws ends the upload with that error.
    public func upload<Parts: AsyncSequence & Sendable>(for request: URLRequest, streaming parts: Parts) async throws -> (Data, URLResponse)
    where Parts.Element == Data {
        let outgoing = try OutgoingRequest(request)
        let transport = NIOHTTPTransport(
            node: node, origin: outgoing.origin, tls: outgoing.origin.usesTLS ? tls : nil, timeout: outgoing.timeout,
            maxBodyBytes: maxResponseBytes)
        var http = outgoing.http
        http.body = nil
        http.producer = { writer in
            for try await part in parts { try await writer.write(ByteBuffer(bytes: part)) }
        }
        let answer = try await exchange(http, on: transport, for: outgoing)
        return (Data(answer.body.readableBytesView), try outgoing.response(answer))
    }
}
