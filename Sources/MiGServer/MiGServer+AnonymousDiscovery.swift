import NIOHTTP1

/// `anonymous-discovery`: a request without credentials may still ask what the printer is, as CUPS does while it
/// builds a driverless queue (its Get-Printer-Attributes carries no credentials); every job operation still needs
/// an account. Which operations count as discovery is the printer's call (`MiGPrinter.anonymousOperations`), made
/// once the request's operation is known.
extension MiGServer {
    /// The caller's account; nil for a request without credentials that anonymous discovery lets through.
    func identify(_ headers: HTTPHeaders, presented: [UInt8]?) -> Result<String?, MiGHTTPHandler.Reply> {
        // Only a request with no Authorization at all is anonymous: wrong or malformed credentials stay refused.
        if configuration.anonymousDiscovery, !headers.contains(name: "Authorization"), !headers.contains(name: "SSL_CLIENT_CERT") {
            return .success(nil)
        }
        return authenticate(headers, presented: presented).map { $0 }
    }

    /// The 401 for an anonymous caller whose operation needs an account: the client resends with credentials.
    var credentialsChallenge: MiGHTTPHandler.Reply {
        .init(
            status: .unauthorized, headers: ["WWW-Authenticate": "Basic realm=\"\(configuration.realm)\""],
            body: "authentication required: send the Basic credentials of a MiG account (without them MiG answers only "
                + "Get-Printer-Attributes and Validate-Job)")
    }
}
