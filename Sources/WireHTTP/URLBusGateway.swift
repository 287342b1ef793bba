import NIOCore
import NIOHTTP1
import Wire

/// The URL-scheme bus reachable from outside the process: `POST /open` with a URL as the body opens it on the
/// bus, as the app named by the `X-Bus-Sender` header (default `external`).
///
/// Answers `202 opened URL for OWNER` when an app handles the scheme (delivery is asynchronous, as on iOS),
/// `404` when none does, `400` for a body that is not one URL, `413` above `maxURLBytes`. This is how
/// `workbench open 'scheme://…'` and plain curl reach apps and actors inside a running `workbench serve`.
public enum URLBusGateway {
    /// The header naming the sending app.
    public static let senderHeader = "X-Bus-Sender"
    public static let defaultSender = "external"

    /// Serves the gateway on `port` of `node`.
    public static func start(on node: Node, port: Int, maxURLBytes: Int) -> EventLoopFuture<HTTPServer> {
        HTTPServer.start(on: node, port: port, limits: HTTPServer.Limits(maxBodyBytes: maxURLBytes + 2)) { request in
            guard request.path == "/open" else {
                return .text(.notFound, "no such path \(request.path); POST the URL to /open")
            }
            guard request.method == .POST else {
                return .text(.methodNotAllowed, "\(request.method) /open: POST the URL as the body", headers: ["Allow": "POST"])
            }
            var url = request.text
            if url.hasSuffix("\n") { url.removeLast() }
            if url.hasSuffix("\r") { url.removeLast() }
            guard !url.isEmpty, !url.contains(where: { $0.isNewline || $0 == " " }), let scheme = URLBus.scheme(of: url) else {
                return .text(.badRequest, "the body must be one URL like scheme://command?query (no spaces or line breaks)")
            }
            let sender = request.headers.first(name: senderHeader) ?? defaultSender
            guard !sender.isEmpty, sender.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
                return .text(.badRequest, "\(senderHeader) must be an app name (letters, digits, '-', '_', '.')")
            }
            guard node.bus.open(url, from: sender), let owner = node.bus.owner(of: scheme) else {
                return .text(.notFound, "no app handles the scheme '\(scheme)'")
            }
            return .text(.accepted, "opened for \(owner) (scheme \(scheme))")
        }
    }
}
