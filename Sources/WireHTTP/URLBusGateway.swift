import NIOCore
import NIOHTTP1
import Wire

/// The URL-scheme bus reachable from outside the process: `POST /open` with a URL as the body opens it on the
/// bus, as the app named by the `X-Bus-Sender` header (default `external`).
///
/// Answers `202 opened for OWNER (scheme S)` when an app handles the scheme, once the app has handled the URL, with a
/// second line saying what it did: `accepted: …`, `refused: …` (also in the `X-Bus-Receipt` header), or that the
/// app does not say (iOS tells the opener nothing more; this is for tools outside the phone). `404` when no app
/// handles the scheme, `400` for a body that is not one URL, `413` above `maxURLBytes`. This is how
/// `workbench open 'scheme://…'` and plain curl reach apps and actors inside a running `workbench serve`.
public enum URLBusGateway {
    /// The header naming the sending app.
    public static let senderHeader = "X-Bus-Sender"
    public static let defaultSender = "external"
    /// The answer's header saying what the receiving app did: `accepted`, `refused`, or `none` (it does not say).
    public static let receiptHeader = "X-Bus-Receipt"
    /// How long the gateway waits for the receiving app to handle the URL.
    static let receiptSeconds = 5

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
            let (receipts, receipt) = AsyncStream.makeStream(of: URLBus.Receipt?.self)
            guard node.bus.open(url, from: sender, receipt: { receipt.yield($0) }), let owner = node.bus.owner(of: scheme) else {
                receipt.finish()
                return .text(.notFound, "no app handles the scheme '\(scheme)'")
            }
            // The answer waits for the app, which runs on its own loop, but not for ever: a loop that stopped never runs it.
            let patience = node.eventLoop.scheduleTask(in: .seconds(Int64(receiptSeconds))) { receipt.finish() }
            let said = await receipts.first { _ in true }
            patience.cancel()
            receipt.finish()
            let opened = "opened for \(owner) (scheme \(scheme))\n"
            switch said {
            case .some(.some(.accepted(let what))):
                return .text(.accepted, opened + "accepted: \(what)", headers: [receiptHeader: "accepted"])
            case .some(.some(.refused(let why))):
                return .text(.accepted, opened + "refused: \(why)", headers: [receiptHeader: "refused"])
            case .some(.none):
                return .text(.accepted, opened + "the app does not say what it did with it", headers: [receiptHeader: "none"])
            case .none:
                return .text(
                    .accepted, opened + "the app did not handle it within \(receiptSeconds) s", headers: [receiptHeader: "none"])
            }
        }
    }
}
