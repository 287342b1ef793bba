import PercentEncoding

/// What a request path addresses on an SCPms server, or why the path is unusable.
///
/// - `/odata/applications/{latest|v1|vN}/{appId}/Connections` — the registration collection;
/// - `/odata/applications/{version}/{appId}/Connections('<id>')` — one registration;
/// - `/mobileservices/application/{appId}/clientlogs/v1/runtime/log/application/{appId}` — log upload;
/// - `/{appId}` — the application endpoint (the OData service root), guarded by `X-SMP-APPCID`;
/// - `/{appId}/{resource}` — a resource of the app's OData service (`$metadata`, `Products(3)`), guarded the same way.
public enum SCPmsRoute: Equatable, Sendable {
    case connections(applicationId: String)
    case connection(applicationId: String, connectionId: String)
    case clientLogs(applicationId: String)
    case application(applicationId: String)
    /// `resource` is decoded and never empty: `$metadata`, `Products`, `Products(3)`, `Products/$count`.
    case service(applicationId: String, resource: String)

    /// Why a path cannot be served: a 400 (malformed) or a 404 (addresses nothing).
    public enum Problem: Error, Equatable, Sendable {
        case malformed(String)
        case notFound(String)
    }

    /// The longest application id or connection id accepted (SCPms caps X-SMP-APPCID at 128 characters).
    public static let maxIdLength = 128

    /// Routes `path` (the part of the target before `?`, still percent-encoded).
    public static func parse(path: String) -> Result<SCPmsRoute, Problem> {
        guard path.hasPrefix("/") else { return .failure(.malformed("the request target must start with '/'")) }
        guard let decoded = Percent.decode(path) else {
            return .failure(.malformed("the path has a broken percent-encoding"))
        }
        let segments = decoded.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        switch segments.first {
        case "odata": return parseOData(Array(segments.dropFirst()))
        case "mobileservices": return parseClientLogs(Array(segments.dropFirst()))
        case nil, "": return .failure(.notFound("no application id in the path; expected /{appId} or /odata/applications/latest/{appId}/Connections"))
        default:
            let appId = segments[0]
            if let problem = idProblem(appId, "application id") { return .failure(problem) }
            let resource = segments.dropFirst().joined(separator: "/")
            return .success(resource.isEmpty ? .application(applicationId: appId) : .service(applicationId: appId, resource: resource))
        }
    }

    private static func parseOData(_ segments: [String]) -> Result<SCPmsRoute, Problem> {
        guard segments.count == 4, segments[0] == "applications" else {
            return .failure(.notFound("expected /odata/applications/{latest|v1}/{appId}/Connections"))
        }
        let version = segments[1]
        guard version == "latest" || (version.hasPrefix("v") && version.count > 1 && version.dropFirst().allSatisfy(\.isASCIIDigit)) else {
            return .failure(.notFound("unknown API version '\(version)'; expected latest, v1, v2…"))
        }
        let appId = segments[2]
        if let problem = idProblem(appId, "application id") { return .failure(problem) }
        let resource = segments[3]
        if resource == "Connections" { return .success(.connections(applicationId: appId)) }
        guard resource.hasPrefix("Connections(") else {
            return .failure(.notFound("unknown resource '\(resource)'; expected Connections or Connections('<id>')"))
        }
        guard resource.hasPrefix("Connections('"), resource.hasSuffix("')"), resource.count >= "Connections('')".count else {
            return .failure(.malformed("malformed key in '\(resource)'; expected Connections('<id>') with the id in single quotes"))
        }
        let id = String(resource.dropFirst("Connections('".count).dropLast(2))
        if let problem = idProblem(id, "application connection id") { return .failure(problem) }
        return .success(.connection(applicationId: appId, connectionId: id))
    }

    private static func parseClientLogs(_ segments: [String]) -> Result<SCPmsRoute, Problem> {
        let shape = "/mobileservices/application/{appId}/clientlogs/v1/runtime/log/application/{appId}"
        guard segments.count == 8, segments[0] == "application", segments[2] == "clientlogs", segments[3] == "v1",
            segments[4] == "runtime", segments[5] == "log", segments[6] == "application"
        else {
            return .failure(.notFound("expected \(shape)"))
        }
        let appId = segments[1]
        if let problem = idProblem(appId, "application id") { return .failure(problem) }
        guard segments[7] == appId else {
            return .failure(.malformed("the path names two applications ('\(appId)' and '\(segments[7])'); expected \(shape) with the same id twice"))
        }
        return .success(.clientLogs(applicationId: appId))
    }

    /// Whether `id` can be an application or connection id: 1…128 characters of letters, digits, `.`, `-`, `_`.
    public static func isValidId(_ id: String) -> Bool { idProblem(id, "id") == nil }

    private static func idProblem(_ id: String, _ what: String) -> Problem? {
        guard !id.isEmpty else { return .malformed("empty \(what)") }
        guard id.count <= maxIdLength else { return .malformed("the \(what) is \(id.count) characters long; at most \(maxIdLength) are accepted") }
        let ok = id.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" || $0 == "_"
        }
        return ok ? nil : .malformed("the \(what) '\(id)' has characters other than letters, digits, '.', '-' and '_'")
    }
}
