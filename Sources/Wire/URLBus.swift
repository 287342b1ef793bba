import NIOCore
import Synchronization

/// The URL-scheme message bus between apps on one simulated phone, with iOS semantics.
///
/// An app registers the schemes it handles (as in its Info.plist). `open(_:from:)` returns `false` when no
/// app handles the scheme — like `UIApplication.open` completing with `false` — and otherwise delivers the
/// URL later, on the receiving app's event loop, like the system switching to that app.
public final class URLBus: Sendable {
    /// Receives an opened URL and the name of the app that opened it.
    public typealias Handler = @Sendable (_ url: String, _ sender: String) -> Void

    private struct Registration: Sendable {
        let owner: String
        let eventLoop: any EventLoop
        let handler: Handler
    }

    private let registrations = Mutex<[String: Registration]>([:])
    private let tracer: any TraceSink

    public init(tracer: any TraceSink) {
        self.tracer = tracer
    }

    /// Registers `owner` as the handler of `scheme`.
    ///
    /// - returns: `false` if another app already handles the scheme (the first registration keeps it, so the
    ///   outcome never depends on start-up order races).
    @discardableResult
    public func register(scheme: String, owner: String, on eventLoop: any EventLoop, handler: @escaping Handler) -> Bool {
        let key = scheme.lowercased()
        let added = registrations.withLock { all -> Bool in
            if let existing = all[key], existing.owner != owner { return false }
            all[key] = Registration(owner: owner, eventLoop: eventLoop, handler: handler)
            return true
        }
        tracer.record(actor: "bus", event: added ? "scheme-registered" : "scheme-taken",
                      fields: [("owner", owner), ("scheme", key)])
        return added
    }

    /// Removes a registration (the app was uninstalled or stopped).
    public func unregister(scheme: String, owner: String) {
        let key = scheme.lowercased()
        registrations.withLock { all in
            if all[key]?.owner == owner { all[key] = nil }
        }
        tracer.record(actor: "bus", event: "scheme-unregistered", fields: [("owner", owner), ("scheme", key)])
    }

    /// Whether some app handles the URL's scheme (`canOpenURL`).
    public func canOpen(_ url: String) -> Bool {
        guard let scheme = Self.scheme(of: url) else { return false }
        return registrations.withLock { $0[scheme] != nil }
    }

    /// The app that handles `scheme`, if any.
    public func owner(of scheme: String) -> String? {
        registrations.withLock { $0[scheme.lowercased()]?.owner }
    }

    /// Opens `url` on behalf of `sender`.
    ///
    /// - returns: whether an app will receive it; delivery itself happens asynchronously.
    @discardableResult
    public func open(_ url: String, from sender: String) -> Bool {
        guard let scheme = Self.scheme(of: url) else {
            tracer.record(actor: "bus", event: "open-rejected", fields: [("from", sender), ("reason", "no valid scheme"), ("url", url)])
            return false
        }
        guard let target = registrations.withLock({ $0[scheme] }) else {
            tracer.record(actor: "bus", event: "open-unhandled", fields: [("from", sender), ("url", url)])
            return false
        }
        tracer.record(actor: "bus", event: "open", fields: [("from", sender), ("to", target.owner), ("url", url)])
        target.eventLoop.execute {
            target.handler(url, sender)
        }
        return true
    }

    /// The scheme of a URL per RFC 3986 (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) before ":"), lowercased.
    public static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scalars = url[..<colon].unicodeScalars
        guard let first = scalars.first, first.isASCIILetter,
              scalars.allSatisfy({ $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == "." })
        else { return nil }
        return String(url[..<colon]).lowercased()
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
