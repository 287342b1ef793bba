import Foundation
import JSONEscaping
import NIOCore
import NIOHTTP1
import Scenario
import SystemKit
import Wire
import WireHTTP

/// `serve`'s control endpoint: scenario lines posted over HTTP/1.1 on loopback, for `workbench attach` and for a
/// test harness (XCUITest, Espresso, a CI script). Every request needs the bearer token `serve` wrote (0600) in its
/// state folder; without it the answer is 401 and nothing changes. docs/control-api.md lists the routes.
///
/// It listens on a wire of its own: the links a session sets act on the served actors' connections, never on the
/// connection that sets them.
final class ControlServer: Sendable {
    let wire: LiveWire
    let server: HTTPServer
    let token: String

    /// The routes, for the 404 answer's near miss.
    static let routes = ["POST /lines", "GET /faults", "GET /links", "GET /connections", "GET /actors", "GET /trace", "GET /requests", "GET /misses"]

    private init(wire: LiveWire, server: HTTPServer, token: String) {
        (self.wire, self.server, self.token) = (wire, server, token)
    }

    var url: String { "http://\(server.listener.host):\(server.listener.port)/" }

    /// Starts listening on `host:port` (0: a free one), answering with `session`.
    static func start(session: LiveSession, host: String, port: Int, token: String) async throws -> ControlServer {
        let wire = LiveWire(threads: 1, bindHost: host)
        let server = try await HTTPServer.start(on: wire.node("control"), port: port, handlerLoop: .connection) { request in
            await answer(request, session: session, token: token)
        }.get()
        return ControlServer(wire: wire, server: server, token: token)
    }

    func stop() async {
        try? await server.stop().get()
        try? await wire.shutdown()
    }

    static func answer(_ request: HTTPServerRequest, session: LiveSession, token: String) async -> HTTPResponse {
        guard authorized(request.headers.first(name: "Authorization"), token: token) else {
            printError("control: 401 \(request.method.rawValue) \(request.path): no or wrong bearer token (nothing changed)")
            return json(
                .unauthorized, ["ok": "false", "error": JSONString.quoted("a bearer token is needed: see control.json in serve's state folder")],
                headers: ["WWW-Authenticate": "Bearer realm=\"workbench\""])
        }
        let route = "\(request.method.rawValue) \(request.path)"
        switch route {
        case "POST /lines":
            guard let line = Self.line(in: request) else {
                return json(.badRequest, ["ok": "false", "error": JSONString.quoted("expected a JSON body {\"line\": \"…\"} or a text/plain line")])
            }
            return reply(await run(line, on: session))
        case "GET /faults", "GET /links", "GET /connections", "GET /actors", "GET /trace", "GET /requests", "GET /misses":
            var words = [String(request.path.dropFirst())]
            if let extra = request.queryValue("n") ?? request.queryValue("actor") { words.append(extra) }
            return reply(await run("show " + words.joined(separator: " "), on: session))
        default:
            let paths = routes.map { $0.split(separator: " ")[1] }.map(String.init)
            let status: HTTPResponseStatus = paths.contains(request.path) ? .methodNotAllowed : .notFound
            return json(
                status,
                [
                    "ok": "false",
                    "error": JSONString.quoted("no route \(route)\(didYouMean(route, among: routes)); routes: \(routes.joined(separator: ", "))"),
                ])
        }
    }

    /// The line a request posts: `{"line": "…"}`, or the body itself as text.
    static func line(in request: HTTPServerRequest) -> String? {
        let type = request.headers.first(name: "Content-Type") ?? ""
        if type.hasPrefix("application/json") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.text.utf8)) as? [String: Any] else { return nil }
            return object["line"] as? String
        }
        // One line a request: a trailing newline is allowed, a second line is not.
        let text = request.text.hasSuffix("\n") ? String(request.text.dropLast()) : request.text
        return text.isEmpty || text.contains("\n") ? nil : text
    }

    /// Runs `line` on the session's queue without holding the control loop.
    static func run(_ line: String, on session: LiveSession) async -> LiveSession.Reply {
        await withCheckedContinuation { continuation in
            session.queue.async { continuation.resume(returning: session.handle(line)) }
        }
    }

    static func reply(_ reply: LiveSession.Reply) -> HTTPResponse {
        json(
            .ok,
            [
                "ok": String(reply.ok), "output": JSONString.quoted(reply.output),
                "error": reply.error.map(JSONString.quoted) ?? "null", "exit": String(reply.exit),
            ])
    }

    /// A JSON object of already-encoded values, keys in a fixed order.
    static func json(_ status: HTTPResponseStatus, _ members: [String: String], headers: [String: String] = [:]) -> HTTPResponse {
        let order = ["ok", "output", "error", "exit"]
        let body = "{" + order.compactMap { key in members[key].map { "\"\(key)\":\($0)" } }.joined(separator: ",") + "}\n"
        var fields = HTTPHeaders([("Content-Type", "application/json")])
        for (name, value) in headers { fields.add(name: name, value: value) }
        return HTTPResponse(status: status, headers: fields, body: ByteBuffer(string: body))
    }

    /// Whether `header` carries `Bearer TOKEN`, compared in constant time (no early exit on the first difference).
    static func authorized(_ header: String?, token: String) -> Bool {
        guard let header, header.hasPrefix("Bearer ") else { return false }
        let given = Array(header.dropFirst("Bearer ".count).utf8)
        let expected = Array(token.utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in expected.indices { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }
}

/// Where `serve` writes its control endpoint and token, and `attach` reads them: `control.json` in the state folder,
/// readable by its owner only.
struct ControlFile: Codable, Equatable {
    var url: String
    var token: String

    static func path(in stateDirectory: String) -> String { "\(stateDirectory)/control.json" }

    /// Writes the file with mode 0600 from its creation (never readable by others, not even for a moment).
    func write(to stateDirectory: String) throws {
        let path = Self.path(in: stateDirectory)
        unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw WorkbenchError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let text = "{\"url\":\(JSONString.quoted(url)),\"token\":\(JSONString.quoted(token))}\n"
        let written = text.utf8CString.withUnsafeBufferPointer { Glibc.write(descriptor, $0.baseAddress, $0.count - 1) }
        guard written == text.utf8.count else { throw WorkbenchError("cannot write \(path): \(String(cString: strerror(errno)))") }
    }

    static func read(from stateDirectory: String) throws -> ControlFile {
        let path = Self.path(in: stateDirectory)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WorkbenchError(
                "no running serve uses \(stateDirectory): \(path) is missing (start one with 'workbench serve', or name its --state-dir)")
        }
        do { return try JSONDecoder().decode(ControlFile.self, from: data) } catch {
            throw WorkbenchError("\(path) is not serve's control file: \(error)")
        }
    }
}
