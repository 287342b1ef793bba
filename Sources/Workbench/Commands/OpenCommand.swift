import ArgumentParser
import Foundation
import NIOCore
import SystemKit
import Wire
import WireHTTP

/// `workbench open URL`: delivers a URL to the bus of a running `workbench serve`, through its gateway, as an
/// app of the phone would open it (`UIApplication.open`).
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open a URL on the bus of a running 'workbench serve' (e.g. workbench open 'appconnectdc://…').",
        discussion: """
            POSTs the URL to the bus gateway that serve lists as 'listening \(busGateway) http://…/open'. Prints the \
            gateway's answer: the app that handles the scheme, then what that app did with the URL ('accepted: …' or \
            'refused: …' and why). Exits 0 when an app handled it and did not refuse it, 1 otherwise.
            """
    )

    /// The actor that serves the bus gateway (the one with a `bus-port`).
    static var busGateway: String {
        Catalog.actorKinds.first { kind in kind.options.contains { $0.name == "bus-port" } }?.name ?? "ACTOR"
    }

    @Argument(help: "The URL to open, e.g. 'appconnect://register?scheme=myapp'.")
    var url: String

    @Option(help: "The bus gateway of the running serve.")
    var bus = "http://127.0.0.1:9084/open"

    @Option(help: "The app the URL comes from (the sender the receiving app sees).")
    var from = URLBusGateway.defaultSender

    func run() async throws {
        guard bus.hasPrefix("http://") else { throw ValidationError("--bus \(bus): expected http://HOST:PORT/open") }
        let rest = bus.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        let parts = authority.split(separator: ":", maxSplits: 1)
        guard let host = parts.first, parts.count == 2, let port = Int(parts[1]) else {
            throw ValidationError("--bus \(bus): expected http://HOST:PORT/open")
        }
        let wire = LiveWire(threads: 1)
        let request = HTTPRequest(
            method: .POST, target: path.isEmpty ? "/open" : String(path),
            headers: [URLBusGateway.senderHeader: from, "Content-Type": "text/plain"], body: ByteBuffer(string: url))
        let response: HTTPResponse
        do {
            response = try await HTTPClient.send(request, host: String(host), port: port, on: wire.node(from), timeout: .seconds(10))
        } catch {
            try? await wire.shutdown()
            throw ValidationError("cannot reach the bus gateway at \(bus) (is 'workbench serve' running?): \(error)")
        }
        try? await wire.shutdown()
        print(response.text, terminator: response.text.hasSuffix("\n") ? "" : "\n")
        guard response.status == .accepted, response.headers.first(name: URLBusGateway.receiptHeader) != "refused" else {
            throw ExitStatus.checkFailed
        }
    }
}
