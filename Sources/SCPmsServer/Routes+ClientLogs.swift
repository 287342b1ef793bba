import NIOCore
import SCPms
import WireHTTP

/// Client log upload: `#…#` lines from a registered device, stored all or none.
extension Routes {
    nonisolated(nonsending) func uploadLogs(
        _ request: HTTPServerRequest, application: RegistrationStore.Application, user: String
    ) async throws -> HTTPResponse {
        let connectionId: String
        switch try await checkConnectionId(request, applicationId: application.id, user: user) {
        case .failure(let refusal): return refusal.response
        case .success(let id): connectionId = id
        }
        guard application.logUploadEnabled else {
            return .text(.forbidden, "client log upload is disabled for application '\(application.id)'")
        }
        guard let deviceId = request.queryValue("deviceId"), SCPmsRoute.isValidId(deviceId) else {
            return .text(.badRequest, "missing or malformed deviceId query parameter; expected ?deviceId=<id> (letters, digits, '.', '-', '_')")
        }
        guard let body = String(validating: Array(buffer: request.body), as: UTF8.self) else {
            return .text(.badRequest, "the log upload is not valid UTF-8")
        }
        switch ClientLogLine.parseUpload(body, maxLines: SCPmsServer.maxLogLines) {
        case .failure(let why): return .text(.badRequest, why.description)
        case .success(let lines):
            try await store.appendLogs(lines, applicationId: application.id, connectionId: connectionId, deviceId: deviceId)
            node.trace("logs-stored", [("id", connectionId), ("lines", "\(lines.count)")])
            return HTTPResponse(status: .noContent)
        }
    }
}
