/// An OData v2 error: the HTTP status and the JSON body SAP Mobile Services passes on from the back end,
/// `{"error":{"code":"…","message":{"lang":"en","value":"…"}}}`.
public struct ODataError: Error, Equatable, Sendable, CustomStringConvertible {
    public let status: Int
    public let code: String
    public let message: String

    public init(status: Int, code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static func badRequest(_ message: String) -> ODataError { ODataError(status: 400, code: "BadRequest", message) }
    static func notFound(_ message: String) -> ODataError { ODataError(status: 404, code: "ResourceNotFound", message) }

    public var json: String {
        ODataJSON.text(
            .object([
                (
                    "error",
                    .object([
                        ("code", .string(code)), ("message", .object([("lang", .string("en")), ("value", .string(message))])),
                    ])
                )
            ]))
    }

    public var description: String { "HTTP \(status) \(code): \(message)" }
}
