import NIOCore
import NIOHTTP1
import SCPms
import Wire
import WireHTTP

/// Answers one request: faults, routing, the application, credentials, then the resource. Each answer that
/// changes state does so in one store write, after every check passed. Runs on the node's loop; the store's
/// reads, writes and password hashes leave it live and come back (inline under simulation, so every trace
/// event keeps its place).
struct Routes: Sendable {
    let node: Node
    let store: RegistrationStore
    let maxRegistrationBytes: Int
    /// `https` on the TLS listener, `http` on the plain one: absolute URIs in answers use it.
    let scheme: String

    nonisolated(nonsending) func answer(_ request: HTTPServerRequest) async -> HTTPResponse {
        if node.fault(SCPmsServer.unavailableFault) {
            return .text(.serviceUnavailable, "SAP Mobile Services is temporarily unavailable; try again later")
        }
        if node.fault(SCPmsServer.internalErrorFault) {
            return .text(.internalServerError, "SAP Mobile Services failed to process the request")
        }
        do {
            return try await route(request)
        } catch {
            node.trace("store-error", [("error", "\(error)")])
            return .text(.internalServerError, "the request could not be completed, nothing was changed: \(error)")
        }
    }

    private nonisolated(nonsending) func route(_ request: HTTPServerRequest) async throws -> HTTPResponse {
        let route: SCPmsRoute
        switch SCPmsRoute.parse(path: request.path) {
        case .success(let parsed): route = parsed
        case .failure(.malformed(let why)): return .text(.badRequest, why)
        case .failure(.notFound(let why)): return .text(.notFound, why)
        }
        let applicationId =
            switch route {
            case .connections(let id), .connection(let id, _), .clientLogs(let id), .application(let id), .service(let id, _): id
            }
        guard let application = try await store.application(applicationId) else {
            return .text(.notFound, "unknown application '\(applicationId)'")
        }
        let user: String
        switch try await authenticate(request) {
        case .success(let name): user = name
        case .failure(let refusal): return refusal.response
        }
        switch (route, request.method) {
        case (.connections, .POST): return try await register(request, applicationId: applicationId, user: user)
        case (.connection(_, let id), .GET): return try await read(request, id: id, applicationId: applicationId, user: user)
        case (.connection(_, let id), .PUT): return try await update(request, id: id, applicationId: applicationId, user: user)
        case (.connection(_, let id), .DELETE): return try await delete(id: id, applicationId: applicationId, user: user)
        case (.application, .GET), (.application, .HEAD): return try await applicationEndpoint(request, applicationId: applicationId, user: user)
        case (.clientLogs, .POST): return try await uploadLogs(request, application: application, user: user)
        case (.service(_, let resource), _): return try await service(request, resource: resource, applicationId: applicationId, user: user)
        case (.connections, _): return Self.notAllowed(request.method, allowed: "POST")
        case (.connection, _): return Self.notAllowed(request.method, allowed: "GET, PUT, DELETE")
        case (.application, _): return Self.notAllowed(request.method, allowed: "GET, HEAD")
        case (.clientLogs, _): return Self.notAllowed(request.method, allowed: "POST")
        }
    }

    // MARK: Credentials

    struct Refusal: Error {
        let response: HTTPResponse
    }

    private nonisolated(nonsending) func authenticate(_ request: HTTPServerRequest) async throws -> Result<String, Refusal> {
        switch request.basicCredentials {
        case .missing:
            return .failure(Refusal(response: challenge("authentication required: send Authorization: Basic with your user and password")))
        case .malformed(let why):
            node.trace("auth-malformed", [("reason", why)])
            return .failure(Refusal(response: .text(.badRequest, "unusable Authorization header: \(why)")))
        case .valid(let credentials):
            guard try await store.verify(user: credentials.user, password: credentials.password) else {
                node.trace("auth-refused", [("user", credentials.user)])
                return .failure(Refusal(response: challenge("the user or password is wrong")))
            }
            return .success(credentials.user)
        }
    }

    private func challenge(_ text: String) -> HTTPResponse {
        .text(.unauthorized, text, headers: ["WWW-Authenticate": "Basic realm=\"\(SCPmsServer.realm)\""])
    }

    // MARK: Registrations

    private nonisolated(nonsending) func register(_ request: HTTPServerRequest, applicationId: String, user: String) async throws -> HTTPResponse {
        if let refusal = checkBody(request) { return refusal }
        let settings: ConnectionSettings
        switch ConnectionSettings.parse(json: Array(buffer: request.body)) {
        case .success(let parsed): settings = parsed
        case .failure(let why): return .text(.badRequest, why.description)
        }
        var id = node.secrets.uuid()
        while try await store.connectionExists(id) { id = node.secrets.uuid() }
        let now = node.clock.unixTime.milliseconds
        let connection = ApplicationConnection(
            id: id, applicationId: applicationId, owner: user, createdAtMilliseconds: now,
            modifiedAtMilliseconds: now, settings: settings)
        try await store.insert(connection)
        // The original app posts no body, and meant to send the device's name as UserName: both are stored as sent, and shown.
        node.trace(
            "registered",
            [
                ("application", applicationId), ("body-bytes", "\(request.body.readableBytes)"),
                ("device-type", settings["DeviceType"] ?? "Unknown"), ("id", id), ("user", user),
                ("user-name", settings["UserName"] ?? ""),
            ])
        let uri = entityURI(request, collectionPath: request.path, id: id)
        var headers = Self.jsonHeaders
        headers.add(name: "Location", value: uri)
        headers.add(name: "Set-Cookie", value: "X-SMP-APPCID=\(id); Path=/; HttpOnly")
        return HTTPResponse(status: .created, headers: headers, body: ByteBuffer(string: connection.odataJSON(uri: uri)))
    }

    private nonisolated(nonsending) func read(
        _ request: HTTPServerRequest, id: String, applicationId: String, user: String
    ) async throws -> HTTPResponse {
        switch try await owned(id, applicationId: applicationId, user: user) {
        case .failure(let refusal): return refusal.response
        case .success(let connection):
            let uri = entityURI(request, collectionPath: Self.collectionPath(of: request.path), id: id)
            var headers = Self.jsonHeaders
            headers.add(name: "ETag", value: connection.etag)
            return HTTPResponse(status: .ok, headers: headers, body: ByteBuffer(string: connection.odataJSON(uri: uri)))
        }
    }

    private nonisolated(nonsending) func update(
        _ request: HTTPServerRequest, id: String, applicationId: String, user: String
    ) async throws -> HTTPResponse {
        if let refusal = checkBody(request) { return refusal }
        switch try await owned(id, applicationId: applicationId, user: user) {
        case .failure(let refusal): return refusal.response
        case .success(var connection):
            switch ConnectionSettings.parse(json: Array(buffer: request.body)) {
            case .failure(let why): return .text(.badRequest, why.description)
            case .success(let settings):
                connection.settings = settings
                connection.modifiedAtMilliseconds = max(node.clock.unixTime.milliseconds, connection.modifiedAtMilliseconds + 1)
                try await store.update(connection)
                node.trace("registration-updated", [("id", id)])
                return HTTPResponse(status: .noContent, headers: ["ETag": connection.etag, "DataServiceVersion": "2.0"])
            }
        }
    }

    private nonisolated(nonsending) func delete(id: String, applicationId: String, user: String) async throws -> HTTPResponse {
        switch try await owned(id, applicationId: applicationId, user: user) {
        case .failure(let refusal): return refusal.response
        case .success:
            try await store.deleteConnection(id, applicationId: applicationId)
            node.trace("registration-deleted", [("by", user), ("found", "true"), ("id", id)])
            return HTTPResponse(status: .ok)
        }
    }

    /// The registration if it exists and belongs to `user`; 404 or 403 otherwise.
    private nonisolated(nonsending) func owned(
        _ id: String, applicationId: String, user: String
    ) async throws -> Result<ApplicationConnection, Refusal> {
        guard let connection = try await store.connection(id, applicationId: applicationId) else {
            return .failure(Refusal(response: .text(.notFound, "no registration '\(id)' for application '\(applicationId)'")))
        }
        guard connection.owner == user else {
            return .failure(Refusal(response: .text(.forbidden, "registration '\(id)' belongs to another user")))
        }
        return .success(connection)
    }

    /// Registration bodies must be JSON and small.
    private func checkBody(_ request: HTTPServerRequest) -> HTTPResponse? {
        if request.body.readableBytes > maxRegistrationBytes {
            return .text(
                .payloadTooLarge, "the registration body of \(request.body.readableBytes) bytes exceeds the limit of \(maxRegistrationBytes) bytes")
        }
        if request.body.readableBytes > 0, let type = request.headers.first(name: "Content-Type"), !type.lowercased().contains("json") {
            return .text(.unsupportedMediaType, "Content-Type '\(type)' is not accepted; expected application/json")
        }
        return nil
    }

    // MARK: Application endpoint

    private nonisolated(nonsending) func applicationEndpoint(
        _ request: HTTPServerRequest, applicationId: String, user: String
    ) async throws -> HTTPResponse {
        switch try await checkConnectionId(request, applicationId: applicationId, user: user) {
        case .failure(let refusal): return refusal.response
        case .success(let id):
            // The application endpoint is the root of the app's OData service: it answers the service document.
            var response = odata(request, resource: "", applicationId: applicationId)
            response.headers.add(name: "X-SMP-APPCID", value: id)
            return response
        }
    }

    /// A resource of the app's OData service, for a registered device only (as the application endpoint).
    private nonisolated(nonsending) func service(
        _ request: HTTPServerRequest, resource: String, applicationId: String, user: String
    ) async throws -> HTTPResponse {
        switch try await checkConnectionId(request, applicationId: applicationId, user: user) {
        case .failure(let refusal): return refusal.response
        case .success: return odata(request, resource: resource, applicationId: applicationId)
        }
    }

    private func odata(_ request: HTTPServerRequest, resource: String, applicationId: String) -> HTTPResponse {
        let host = request.headers.first(name: "Host").flatMap { $0.isEmpty ? nil : $0 }
        let root = (host.map { "\(scheme)://\($0)" } ?? "") + "/\(applicationId)/"
        let answer = ODataService.demo.answer(
            method: request.method.rawValue, resource: resource, query: request.query,
            accept: request.headers.first(name: "Accept"), serviceRoot: root)
        node.trace("odata", [("method", request.method.rawValue), ("resource", resource.isEmpty ? "/" : resource), ("status", "\(answer.status)")])
        var headers: HTTPHeaders = ["Content-Type": answer.contentType, "DataServiceVersion": "2.0"]
        for (name, value) in answer.headers.sorted(by: { $0.key < $1.key }) { headers.add(name: name, value: value) }
        let body = request.method == .HEAD ? ByteBuffer() : ByteBuffer(string: answer.body)
        return HTTPResponse(status: HTTPResponseStatus(statusCode: answer.status), headers: headers, body: body)
    }

    /// The `X-SMP-APPCID` of the request (header first, then cookie) if it names a registration of this
    /// application and user; 403 otherwise.
    nonisolated(nonsending) func checkConnectionId(
        _ request: HTTPServerRequest, applicationId: String, user: String
    ) async throws -> Result<String, Refusal> {
        func refuse(_ reason: String, _ text: String) -> Result<String, Refusal> {
            node.trace("appcid-refused", [("reason", reason)])
            return .failure(Refusal(response: .text(.forbidden, text)))
        }
        guard let id = Self.connectionId(in: request.headers) else {
            return refuse(
                "missing",
                "no X-SMP-APPCID header or cookie; register the device first (POST /odata/applications/latest/\(applicationId)/Connections)")
        }
        guard id.count <= SCPmsRoute.maxIdLength else {
            return refuse("too-long", "the X-SMP-APPCID is \(id.count) characters long; at most \(SCPmsRoute.maxIdLength) are accepted")
        }
        guard SCPmsRoute.isValidId(id), let connection = try await store.connection(id, applicationId: applicationId) else {
            return refuse("unknown", "X-SMP-APPCID '\(id)' is not a registration of application '\(applicationId)'; register again")
        }
        guard connection.owner == user else {
            return refuse("other-user", "X-SMP-APPCID '\(id)' belongs to another user")
        }
        node.trace("appcid-accepted", [("id", id)])
        return .success(id)
    }

    static func connectionId(in headers: HTTPHeaders) -> String? {
        if let header = headers.first(name: "X-SMP-APPCID")?.trimmingSpaces, !header.isEmpty { return header }
        for cookieHeader in headers["Cookie"] {
            for pair in cookieHeader.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces }
                if parts.count == 2, parts[0] == "X-SMP-APPCID", !parts[1].isEmpty { return parts[1] }
            }
        }
        return nil
    }

    // MARK: Helpers

    private static let jsonHeaders: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8", "DataServiceVersion": "2.0"]

    private static func notAllowed(_ method: HTTPMethod, allowed: String) -> HTTPResponse {
        .text(.methodNotAllowed, "\(method) is not supported here; allowed: \(allowed)", headers: ["Allow": allowed])
    }

    /// `https://host/…/Connections('<id>')`, absolute when the request named its host.
    private func entityURI(_ request: HTTPServerRequest, collectionPath: String, id: String) -> String {
        let path = "\(collectionPath)('\(id)')"
        guard let host = request.headers.first(name: "Host"), !host.isEmpty else { return path }
        return "\(scheme)://\(host)\(path)"
    }

    /// `/odata/applications/latest/app/Connections` of `/odata/applications/latest/app/Connections('x')`.
    private static func collectionPath(of entityPath: String) -> String {
        String(entityPath[..<(entityPath.range(of: "(")?.lowerBound ?? entityPath.endIndex)])
    }
}

extension Duration {
    /// Whole milliseconds (what `/Date(ms)/` carries).
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return String(text)
    }
}
