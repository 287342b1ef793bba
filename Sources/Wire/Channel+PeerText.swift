import NIOCore

extension Channel {
    /// The other end as traces and `serve`'s request log name it: `127.0.0.1:53422` (`[::1]:53422` for IPv6).
    /// Under simulation the address is the kernel's, so the text is the same on every run.
    public var peerText: String {
        guard let address = remoteAddress, let ip = address.ipAddress else { return "unknown" }
        let port = address.port ?? 0
        if case .v6 = address { return "[\(ip)]:\(port)" }
        return "\(ip):\(port)"
    }
}
