import Foundation
import NodeHTTP
import PrintDesk
import Synchronization
import Testing
import WorkbenchKit
import WorkbenchTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The team's own backend, in the same world as MiG: a `NodeHTTPServer` on its own node that keeps the print history
/// the app reports, behind a bearer token.
@Suite struct PrintHistoryTests {
    /// The backend's history, kept by its handler.
    final class Backend: Sendable {
        let entries = Mutex<[PrintHistory.Entry]>([])

        /// `POST /history` with the device's token and an entry: `201`. Anything else says why not.
        func handle(_ request: NodeHTTPRequest) async throws -> NodeHTTPResponse {
            guard request.method == "POST", request.path == "/history" else { return .text("no \(request.method) \(request.path)", status: 404) }
            switch request.bearerToken {
            case .present("device-token"): break
            case .present: return .bearerChallenge(reason: "the token is not this backend's", invalidToken: true)
            case .malformed(let reason): return .bearerChallenge(reason: reason)
            case .missing: return .bearerChallenge()
            }
            // A body that is no entry throws: the server answers 500 with the decoder's reason.
            let entry = try JSONDecoder().decode(PrintHistory.Entry.self, from: request.body)
            entries.withLock { $0.append(entry) }
            return NodeHTTPResponse(status: 201)
        }
    }

    /// The backend serving on `backend:8080`, and the app's history client on the phone.
    static func history(in world: Simulation, token: String = "device-token") throws -> (Backend, PrintHistory) {
        let backend = Backend()
        let node = world.node("backend")
        let server = try world.perform("start the backend") { try await NodeHTTPServer.start(on: node, port: 8080, handler: backend.handle) }
        let loader: any HTTPDataLoading = try NodeURLSession(node: world.node("phone"))
        return (backend, PrintHistory(server: server.url, token: token, loader: loader))
    }

    /// The failure `report` threw, or nil when it recorded.
    static func failure(_ report: () async throws(PrintHistory.Failure) -> Void) async -> PrintHistory.Failure? {
        do {
            try await report()
            return nil
        } catch {
            return error
        }
    }

    /// The desk prints through MiG, then reports the job to the team's backend: both in one world, on one seed.
    @Test func recordsWhatTheDeskPrinted() throws {
        try simulate(seed: 41) { world in
            let desk = try PrintDeskTests.desk(in: world)
            let (backend, history) = try Self.history(in: world)
            let outcome = try world.perform("print and record") {
                let outcome = await desk.print(PrintDeskTests.report)
                if case .printed(let job, _) = outcome { try await history.record(document: "report.pdf", job: job) }
                return outcome
            }
            #expect(outcome == .printed(job: 1, submissions: 1))
            #expect(backend.entries.withLock { $0 } == [PrintHistory.Entry(document: "report.pdf", job: 1)])
        }
    }

    /// A token the backend does not know is refused with its reason; a partition leaves the report without an answer.
    @Test func saysWhyAReportWasNotRecorded() throws {
        try simulate(seed: 42) { world in
            let (backend, device) = try Self.history(in: world)
            let stranger = PrintHistory(
                server: URL(string: "http://backend:8080")!, token: "someone-else", loader: try NodeURLSession(node: world.node("phone")))
            let refused = try world.perform("record with a stranger's token") {
                await Self.failure { () async throws(PrintHistory.Failure) in try await stranger.record(document: "report.pdf", job: 1) }
            }
            #expect(refused?.description == "the backend answered HTTP 401: the token is not this backend's\n")
            try world.apply(.partition("phone", "backend"))
            let cut = try world.perform("record through a partition") {
                await Self.failure { () async throws(PrintHistory.Failure) in try await device.record(document: "report.pdf", job: 1) }
            }
            #expect(cut?.description.hasPrefix("no answer from the backend: ") == true, "\(String(describing: cut))")
            #expect(world.now >= .seconds(30), "the report waited its 30 s timeout: \(world.now)")
            #expect(backend.entries.withLock { $0 }.isEmpty)
        }
    }
}
