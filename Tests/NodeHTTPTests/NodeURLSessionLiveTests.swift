import Foundation
import NodeHTTP
import SCPmsServer
import TestSupport
import Testing
import Wire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The same app code on Foundation's URLSession and on a NodeURLSession of the live wire, against the SCPms actor on
/// loopback: what the protocol promises an app team, that its code runs on either unchanged.
@Suite struct NodeURLSessionLiveTests {
    /// App code written against the protocol only: registers the device, then reads its registration back.
    static func registerAndRead(with loader: any HTTPDataLoading, base: String) async throws -> (registered: Int, id: String, read: Int) {
        let connections = base + "/odata/applications/latest/com.workbench.demo/Connections"
        let authorization = "Basic " + Data("demo:password".utf8).base64EncodedString()
        var register = URLRequest(url: URL(string: connections)!, timeoutInterval: 30)
        register.httpMethod = "POST"
        register.setValue("application/json", forHTTPHeaderField: "Content-Type")
        register.setValue(authorization, forHTTPHeaderField: "Authorization")
        register.httpBody = Data(#"{"DeviceType":"Android"}"#.utf8)
        let (body, response) = try await loader.data(for: register)
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        let id = (object?["d"] as? [String: Any])?["ApplicationConnectionId"] as? String ?? ""
        var read = URLRequest(url: URL(string: "\(connections)('\(id)')")!, timeoutInterval: 30)
        read.setValue(authorization, forHTTPHeaderField: "Authorization")
        let (_, readResponse) = try await loader.data(for: read)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, id, (readResponse as? HTTPURLResponse)?.statusCode ?? 0)
    }

    @Test func theSameCodeRunsOnURLSessionAndOnALiveNode() async throws {
        let wire = LiveWire(seed: 1, threads: 1)
        let server = try await SCPmsServer.start(on: wire.node("scpms"), configuration: SCPmsServer.Configuration(port: 0))
        let port = try #require(server.httpBaseURL?.split(separator: ":").last.flatMap { Int($0) })
        let base = "http://127.0.0.1:\(port)"
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let loaders: [(String, any HTTPDataLoading)] = [("URLSession", session), ("NodeURLSession", try NodeURLSession(node: wire.node("phone")))]
        var ids: [String] = []
        for (name, loader) in loaders {
            let outcome = try await withDeadline(liveStepLimit, "register and read through \(name)") {
                try await Self.registerAndRead(with: loader, base: base)
            }
            #expect(outcome.registered == 201, "\(name)")
            #expect(outcome.read == 200, "\(name)")
            #expect(!outcome.id.isEmpty, "\(name)")
            ids.append(outcome.id)
        }
        #expect(Set(ids).count == 2, "two registrations: \(ids)")
        try await server.stop()
        try await wire.shutdown()
    }
}
