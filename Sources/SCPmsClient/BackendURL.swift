/// `http[s]://host[:port][/prefix]`, split once.
struct BackendURL: Sendable {
    let usesTLS: Bool
    let host: String
    let port: Int
    let prefix: String

    init?(_ text: String) {
        let scheme: String
        if text.hasPrefix("https://") { scheme = "https://" } else if text.hasPrefix("http://") { scheme = "http://" } else { return nil }
        usesTLS = scheme == "https://"
        let rest = text.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        while path.hasSuffix("/") { path.removeLast() }
        let hostPort = authority.split(separator: "@").last.map(String.init) ?? ""
        let parts = hostPort.split(separator: ":", omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty, parts.count <= 2 else { return nil }
        self.host = String(host)
        if parts.count == 2 {
            guard let port = Int(parts[1]), (1...65_535).contains(port) else { return nil }
            self.port = port
        } else {
            port = usesTLS ? 443 : 80
        }
        prefix = path
    }

    func path(_ suffix: String) -> String { prefix + suffix }

    /// `https://host:port/prefix` (the port always spelled out).
    var text: String { "\(usesTLS ? "https" : "http")://\(host):\(port)\(prefix)" }
}
