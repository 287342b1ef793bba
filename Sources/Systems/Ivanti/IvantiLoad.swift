import DerivedCredential
import NIOCore
import SystemKit
import Wire
import WireHTTP

/// Ivanti's share of `workbench bench load`: URLs opened on the bus through serve's gateway.
extension LoadBenchPart {
    static let ivanti = LoadBenchPart(operations: [
        LoadOperation(
            "ivanti-open",
            "POST appconnect://register?scheme=loadbenchK to the Ivanti bus gateway's /open as app "
                + "load-K (a URL the Ivanti client accepts: it registers the app and sends it its state); 202.")
    ]) { announced in
        let bus = try announced.requiredURL("ivanti", "http")
        let host = bus.host ?? ""
        let port = bus.port ?? 0
        let path = bus.path.isEmpty ? "/open" : bus.path
        return { index, node in IvantiLoadSession(index: index, node: node, host: host, port: port, path: path) }
    }
}

struct IvantiLoadSession: LoadSession {
    let index: Int
    let node: Node
    let host: String, port: Int, path: String

    func perform(_ operation: String) async throws {
        let url = AppConnectRequest.register(appScheme: "loadbench\(index)").url.description
        let request = HTTPRequest(
            method: .POST, target: path,
            headers: [URLBusGateway.senderHeader: "load-\(index)", "Content-Type": "text/plain"],
            body: ByteBuffer(string: url))
        let response = try await HTTPClient.send(request, host: host, port: port, on: node)
        guard response.status == .accepted else {
            throw WorkbenchError("bus gateway answered \(response.status.code): \(response.text.prefix(120))")
        }
    }
}
