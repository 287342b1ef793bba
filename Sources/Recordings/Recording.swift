import Foundation
import IPP
import SystemKit

/// A recording `workbench record` made: a folder with one `NNNN.json` per exchange (``RecordedExchange``) and an
/// `index.json` (``RecordingIndex``) written when the recording ends; docs/record.md describes both. Readers take the
/// exchange files, so a recording whose proxy was killed before it wrote its index still reads.
package struct Recording {
    package let folder: String
    package let exchanges: [RecordedExchange]

    /// The file an exchange is kept in: its number, four digits or more (`0001.json`).
    package static func fileName(of number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + ".json"
    }

    /// Reads every exchange file of `folder` in number order.
    ///
    /// - throws: ``WorkbenchError`` naming the folder or file that cannot be read.
    package init(folder: String) throws(WorkbenchError) {
        self.folder = folder
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw WorkbenchError("\(folder): no such folder; expected a recording `workbench record --out DIR` made")
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".json") && Int($0.dropLast(5)) != nil }
            .sorted { Int($0.dropLast(5)) ?? 0 < Int($1.dropLast(5)) ?? 0 }
        guard !names.isEmpty else { throw WorkbenchError("\(folder): no exchange files (0001.json, …) in it; expected a recording") }
        var exchanges: [RecordedExchange] = []
        for name in names {
            let path = "\(folder)/\(name)"
            do {
                exchanges.append(try JSONDecoder().decode(RecordedExchange.self, from: Data(contentsOf: URL(fileURLWithPath: path))))
            } catch {
                throw WorkbenchError("\(path): not an exchange of a recording: \(error)")
            }
        }
        self.exchanges = exchanges
    }

    /// The encoder of every file of a recording: keys sorted and indented, so two recordings diff line by line.
    package static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

/// One request and the answer it got, kept whole (secrets redacted before it was written).
package struct RecordedExchange: Codable, Sendable {
    /// 1, 2, … in the order the requests arrived.
    package var number: Int
    /// When the request had arrived whole (UTC, ISO 8601 with milliseconds).
    package var startedAt: String
    /// From the request's last byte to the answer's last byte, in milliseconds.
    package var durationMs: Double
    /// The upstream's base URL.
    package var upstream: String
    package var request: RecordedExchange.Request
    package var response: RecordedExchange.Response
    /// Set when the proxy answered itself (the upstream could not be reached or its answer was too large): why.
    package var proxyError: String?
    /// What was redacted, e.g. `request.header.authorization`, `request.body.json.password`.
    package var redacted: [String]

    package init(
        number: Int, startedAt: String, durationMs: Double, upstream: String, request: RecordedExchange.Request, response: RecordedExchange.Response,
        proxyError: String?, redacted: [String]
    ) {
        self.number = number
        self.startedAt = startedAt
        self.durationMs = durationMs
        self.upstream = upstream
        self.request = request
        self.response = response
        self.proxyError = proxyError
        self.redacted = redacted
    }
}

extension RecordedExchange {
    package struct Request: Codable, Sendable {
        package var method: String
        /// The request target as the client sent it (path and query).
        package var target: String
        package var headers: [RecordedHeader]
        package var body: RecordedBody?

        package init(method: String, target: String, headers: [RecordedHeader], body: RecordedBody?) {
            self.method = method
            self.target = target
            self.headers = headers
            self.body = body
        }
    }

    package struct Response: Codable, Sendable {
        package var status: Int
        package var reason: String
        package var headers: [RecordedHeader]
        package var body: RecordedBody?
        package init(status: Int, reason: String, headers: [RecordedHeader], body: RecordedBody?) {
            self.status = status
            self.reason = reason
            self.headers = headers
            self.body = body
        }
    }
}

/// A header, in the order and spelling it had (repeated names stay repeated).
package struct RecordedHeader: Codable, Sendable, Equatable {
    package var name: String
    package var value: String

    /// Headers that belong to one connection (RFC 9110 §7.6.1), lowercased: the proxy does not pass them on, and an answer
    /// played back does not carry them (the length is the body's again). `Host` is the upstream's.
    package static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "expect", "content-length",
    ]

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A body: its size and its bytes, as UTF-8 text when they are, else as base64; an IPP message also decoded.
package struct RecordedBody: Codable, Sendable {
    package var bytes: Int
    package var text: String?
    package var base64: String?
    package var ipp: RecordedIPP?

    /// - parameter ipp: the side of an IPP exchange the body is (decoded then), nil for any other body.
    package init(_ data: [UInt8], ipp: RecordedIPP.Side?) {
        bytes = data.count
        if ipp == nil, let text = String(validating: data, as: UTF8.self) {
            self.text = text
        } else {
            base64 = Data(data).base64EncodedString()
        }
        self.ipp = ipp.map { RecordedIPP(data, side: $0) }
    }

    /// The bytes again.
    package var data: [UInt8] {
        if let text { return Array(text.utf8) }
        return base64.flatMap { Data(base64Encoded: $0) }.map(Array.init) ?? []
    }
}

/// An IPP message decoded (with the project's codec): operation or status, request id, and every attribute as ipptool
/// prints it (`name (syntax) = value,value`).
package struct RecordedIPP: Codable, Sendable {
    package struct Group: Codable, Sendable {
        package var tag: String
        package var attributes: [String]

        package init(tag: String, attributes: [String]) {
            self.tag = tag
            self.attributes = attributes
        }
    }

    /// A request's code is an operation, an answer's a status: the same number names both.
    package enum Side { case request, response }

    package var version: String?
    /// The operation (a request) or the status (an answer) as named by RFC 8011 (`Get-Printer-Attributes`,
    /// `successful-ok`), or `operation-0x…`/`status-0x…`.
    package var code: String?
    package var requestId: Int?
    package var groups: [Group]?
    /// Bytes after the attributes (the document of a Print-Job).
    package var documentBytes: Int?
    /// Why the body could not be decoded, when it could not.
    package var problem: String?

    package init(_ data: [UInt8], side: Side) {
        do {
            let (message, offset) = try IPPDecoder().decodeWithDocumentOffset(data)
            version = "\(message.version)"
            requestId = Int(message.requestID)
            code = side == .request ? "\(message.operation)" : "\(message.status)"
            groups = message.groups.map { group in Group(tag: "\(group.tag)", attributes: group.map { "\($0)" }) }
            documentBytes = data.count - offset
        } catch {
            problem = "\(error)"
        }
    }
}

/// `index.json`: the recording at a glance, written when the recording ends.
package struct RecordingIndex: Codable, Sendable {
    package struct Entry: Codable, Sendable {
        package var number: Int
        package var file: String
        package var method: String
        package var target: String
        package var status: Int
        package var durationMs: Double
        package var proxyError: String?

        package init(number: Int, file: String, method: String, target: String, status: Int, durationMs: Double, proxyError: String?) {
            self.number = number
            self.file = file
            self.method = method
            self.target = target
            self.status = status
            self.durationMs = durationMs
            self.proxyError = proxyError
        }
    }

    package var upstream: String
    package var startedAt: String
    package var endedAt: String
    /// Whether secrets were redacted (`--no-redact` turns it off), and the header names that were.
    package var redaction: Bool
    package var redactedHeaders: [String]
    package var exchanges: [Entry]

    package init(upstream: String, startedAt: String, endedAt: String, redaction: Bool, redactedHeaders: [String], exchanges: [Entry]) {
        self.upstream = upstream
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.redaction = redaction
        self.redactedHeaders = redactedHeaders
        self.exchanges = exchanges
    }
}
