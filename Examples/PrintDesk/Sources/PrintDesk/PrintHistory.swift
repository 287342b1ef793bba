import Foundation
import NodeHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The team's own backend keeps a history of what each device printed: after a print, the app reports it there
/// (`POST /history`, a bearer token, `{"document":"report.pdf","job":2}`). Written against ``HTTPDataLoading`` only:
/// `URLSession` in the app, a `NodeURLSession` in the tests, where the backend itself runs in the simulated world
/// (`NodeHTTPServer`).
public struct PrintHistory: Sendable {
    /// Why a report was not recorded.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        /// What went wrong: the backend's status and reason, or the request's error.
        public let description: String
    }

    let history: URL
    let token: String
    let loader: any HTTPDataLoading

    /// Reports to the backend at `server` (e.g. `https://backend.example.com`) with the device's bearer `token`.
    public init(server: URL, token: String, loader: any HTTPDataLoading) {
        history = server.appendingPathComponent("history")
        self.token = token
        self.loader = loader
    }

    /// Records that `document` printed as MiG's job `job`.
    ///
    /// - throws: ``Failure`` when the backend did not answer `201` (its reason included) or gave no answer in 30 s.
    public func record(document: String, job: Int32) async throws(Failure) {
        var request = URLRequest(url: history, timeoutInterval: 30)
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        do {
            request.httpBody = try JSONEncoder().encode(Entry(document: document, job: job))
            let (body, response) = try await loader.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard status == 201 else {
                throw Failure(description: "the backend answered HTTP \(status): \(String(decoding: body, as: UTF8.self))")
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "no answer from the backend: \(error.localizedDescription)")
        }
    }

    /// One line of the history, as the backend takes it.
    public struct Entry: Codable, Sendable, Equatable {
        /// The document's name.
        public let document: String
        /// MiG's job id.
        public let job: Int32

        /// The entry for `document`, printed as `job`.
        public init(document: String, job: Int32) {
            self.document = document
            self.job = job
        }
    }
}
