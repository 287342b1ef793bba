import Foundation

/// Where MiG is: host, port, path and whether TLS is used, read from a printer URL.
///
/// Accepted forms: `ipp://host[:port]/path`, `ipps://…`, `http://…`, `https://…`. MiG's own URL is
/// `https://host:8050/ipp/print`; ipptool and CUPS write the same printer as `ipps://host:8050/ipp/print`.
/// Default ports: 631 for ipp and ipps (RFC 7472), 80 for http, 443 for https. An empty path means
/// `/ipp/print`, MiG's only print path. User and password in the URL (`ipp://user:pass@host/…`, as ipptool
/// takes them) become the Basic credentials unless the configuration gives others.
public struct MiGEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The host name or IP address to connect to (an IPv6 literal without its brackets).
    public let host: String
    /// The TCP port: the URL's, else 631 for ipp and ipps, 80 for http, 443 for https.
    public let port: Int
    /// The HTTP request target, e.g. `/ipp/print`.
    public let path: String
    /// Whether the connection uses TLS: true for `ipps://` and `https://`.
    public let usesTLS: Bool
    /// Credentials taken from the URL's userinfo (percent-decoded).
    public let credentials: (user: String, password: String)?

    /// Reads a printer URL in one of the forms ``MiGEndpoint`` accepts; throws `.invalidConfiguration` for another
    /// scheme, a missing host or a port outside 1...65535.
    public init(url: String) throws(MiGError) {
        guard let schemeEnd = url.range(of: "://") else {
            throw .invalidConfiguration("'\(url)' is not a printer URL: expected ipp://, ipps://, http:// or https://host[:port]/ipp/print")
        }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        let defaultPort: Int
        switch scheme {
        case "ipp": (usesTLS, defaultPort) = (false, 631)
        case "ipps": (usesTLS, defaultPort) = (true, 631)
        case "http": (usesTLS, defaultPort) = (false, 80)
        case "https": (usesTLS, defaultPort) = (true, 443)
        default:
            throw .invalidConfiguration("unsupported scheme '\(scheme)' in '\(url)': expected ipp, ipps, http or https")
        }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        let pathPart = rest[authorityEnd...].prefix { $0 != "#" }
        path = pathPart.isEmpty || pathPart == "/" ? "/ipp/print" : String(pathPart)

        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            let parts = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).removingPercentEncoding ?? String($0)
            }
            credentials = (parts[0], parts.count > 1 ? parts[1] : "")
        } else {
            credentials = nil
        }

        var hostPart = Substring(authority)
        var portText: Substring?
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else {
                throw .invalidConfiguration("'\(url)': unterminated IPv6 address, expected [addr]:port")
            }
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
        } else if let colon = hostPart.lastIndex(of: ":") {
            portText = hostPart[hostPart.index(after: colon)...]
            hostPart = hostPart[..<colon]
        }
        guard !hostPart.isEmpty else { throw .invalidConfiguration("'\(url)' has no host name") }
        host = String(hostPart)
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw .invalidConfiguration("'\(url)': port '\(portText)' is not a number between 1 and 65535")
            }
            port = number
        } else {
            port = defaultPort
        }
    }

    /// The `printer-uri` operation attribute: the same printer in IPP form (`ipps://` for TLS).
    public var printerURI: String { "\(usesTLS ? "ipps" : "ipp")://\(hostForURI):\(port)\(path)" }

    /// `Host` header value.
    var hostHeader: String { "\(hostForURI):\(port)" }

    /// The URL without credentials, for messages.
    public var description: String { "\(usesTLS ? "https" : "http")://\(hostForURI):\(port)\(path)" }

    private var hostForURI: String { host.contains(":") ? "[\(host)]" : host }

    /// Whether the host is an IP literal (TLS then sends no SNI and checks the certificate's IP SAN).
    var hostIsIPAddress: Bool {
        host.contains(":") || host.split(separator: ".").count == 4 && host.allSatisfy { $0.isNumber || $0 == "." }
    }

    /// Whether two endpoints have the same host, port, path, scheme and userinfo credentials.
    public static func == (lhs: MiGEndpoint, rhs: MiGEndpoint) -> Bool {
        lhs.host == rhs.host && lhs.port == rhs.port && lhs.path == rhs.path && lhs.usesTLS == rhs.usesTLS
            && lhs.credentials?.user == rhs.credentials?.user && lhs.credentials?.password == rhs.credentials?.password
    }
}
