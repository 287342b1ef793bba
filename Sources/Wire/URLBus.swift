import NIOCore
import Synchronization

/// The URL-scheme message bus between apps on one simulated phone, with iOS semantics.
///
/// - An app declares its Info.plist entries (``declare(app:_:)``): the URL schemes it handles
///   (`CFBundleURLTypes`) and the schemes it may ask about (`LSApplicationQueriesSchemes`). A declared app
///   can register handlers only for its own URL types, and ``canOpen(_:from:)`` — `canOpenURL` — answers it
///   only for schemes it declared it queries. Actors that are not phone apps (the echo demo's scheme) register
///   without a declaration.
/// - `open(_:from:)` returns `false` when no app handles the scheme — like `UIApplication.open` completing
///   with `false` — and otherwise delivers the URL later, on the receiving app's event loop, switching the
///   phone's foreground app to it (control does not come back by itself): the app in front is told it
///   resigns active, the receiver that it became active.
public final class URLBus: Sendable {
    /// Receives an opened URL and the name of the app that opened it.
    public typealias Handler = @Sendable (_ url: String, _ sender: String) -> Void

    /// Receives an opened URL and says what it did with it (``Receipt``).
    public typealias AnsweringHandler = @Sendable (_ url: String, _ sender: String) -> Receipt

    /// What a receiving app did with a URL, as it says it. iOS tells the opener only that an app will get the URL;
    /// this is for tools outside the phone (`workbench open`), to show whether the app acted on it.
    public enum Receipt: Sendable, Equatable {
        /// The app acted on the URL; what it did.
        case accepted(String)
        /// The app refused the URL; why.
        case refused(String)
    }

    /// An app's Info.plist entries the bus enforces.
    public struct AppDeclaration: Sendable, Equatable {
        /// `CFBundleURLTypes` / `CFBundleURLSchemes`: the schemes the app handles (lowercased).
        public let urlSchemes: [String]
        /// `LSApplicationQueriesSchemes`: the schemes `canOpenURL` answers for (lowercased).
        public let queriesSchemes: [String]

        /// An app's URL types and queried schemes, lowercased (schemes compare without case).
        public init(urlSchemes: [String], queriesSchemes: [String]) {
            self.urlSchemes = urlSchemes.map { $0.lowercased() }
            self.queriesSchemes = queriesSchemes.map { $0.lowercased() }
        }
    }

    /// What the system tells an app about its place on screen (`UIApplicationDelegate`).
    public enum LifecycleEvent: String, Sendable, CaseIterable {
        /// `applicationDidBecomeActive(_:)`: the app is in front.
        case didBecomeActive = "did-become-active"
        /// `applicationWillResignActive(_:)`: another app is coming to the front.
        case willResignActive = "will-resign-active"
    }

    /// Receives an app's lifecycle events, on the loop given to ``URLBus/observeLifecycle(of:on:handler:)``.
    public typealias LifecycleHandler = @Sendable (LifecycleEvent) -> Void

    private struct Registration: Sendable {
        let owner: String
        let eventLoop: any EventLoop
        /// Nil when the app does not say what it did (registered with a plain ``Handler``).
        let handler: @Sendable (_ url: String, _ sender: String) -> Receipt?
    }

    private struct Observer: Sendable {
        let eventLoop: any EventLoop
        let handler: LifecycleHandler
    }

    private struct State: Sendable {
        var registrations: [String: Registration] = [:]
        var declarations: [String: AppDeclaration] = [:]
        var observers: [String: Observer] = [:]
        /// The app in front; nil on the home screen.
        var foreground: String?
    }

    /// The events the bus records (as `bus`, and `console` as the app whose query iOS refuses).
    public static let traceEvents: [TraceEventDeclaration] = [
        .event("app-declared", fields: "app", "queries", "url-schemes"),
        .event("scheme-registered", fields: "owner", "scheme"),
        .event("scheme-taken", fields: "owner", "scheme"),
        .event("scheme-undeclared", fields: "owner", "scheme"),
        .event("scheme-unregistered", fields: "owner", "scheme"),
        .event("console", fields: "message", values: ["level": ["error"]]),
        .event("open-rejected", fields: "from", "url", values: ["reason": ["no valid scheme"]]),
        .event("open-unhandled", fields: "from", "url"),
        .event("open", fields: "from", "to", "url"),
        .event("foreground", fields: "app", "previous"),
    ]

    private let state = Mutex(State())
    private let tracer: any TraceSink

    /// An empty bus (no app declared, no scheme registered, the home screen in front) that records its events to
    /// `tracer` as `bus`.
    public init(tracer: any TraceSink) {
        self.tracer = tracer
    }

    /// Forgets every handler and observer, when the world the bus belongs to ends: they hold the apps, which hold
    /// their nodes and through them this bus, a cycle that would keep the whole world in memory.
    public func tearDown() {
        state.withLock { state in
            state.registrations = [:]
            state.observers = [:]
        }
    }

    // MARK: - Info.plist

    /// Installs `app`'s Info.plist entries, replacing earlier ones; `nil` removes them (the app was deleted).
    public func declare(app: String, _ declaration: AppDeclaration?) {
        state.withLock { $0.declarations[app] = declaration }
        if let declaration {
            tracer.record(
                actor: "bus", event: "app-declared",
                fields: [
                    ("app", app), ("queries", declaration.queriesSchemes.joined(separator: ",")),
                    ("url-schemes", declaration.urlSchemes.joined(separator: ",")),
                ])
        }
    }

    /// `app`'s declared Info.plist entries, if it declared them.
    public func declaration(of app: String) -> AppDeclaration? {
        state.withLock { $0.declarations[app] }
    }

    // MARK: - Schemes

    /// Registers `owner` as the handler of `scheme`.
    ///
    /// - returns: `false` if another app already handles the scheme (the first registration keeps it, so the
    ///   outcome never depends on start-up order races), or if `owner` declared its URL types and `scheme`
    ///   is not one of them.
    @discardableResult
    public func register(scheme: String, owner: String, on eventLoop: any EventLoop, handler: @escaping Handler) -> Bool {
        add(scheme: scheme, owner: owner, on: eventLoop) { url, sender -> Receipt? in
            handler(url, sender)
            return nil
        }
    }

    /// Registers `owner` as the handler of `scheme`, saying for each URL what it did with it (see
    /// ``open(_:from:activating:receipt:)``); otherwise as ``register(scheme:owner:on:handler:)``.
    @discardableResult
    public func register(scheme: String, owner: String, on eventLoop: any EventLoop, answering handler: @escaping AnsweringHandler) -> Bool {
        add(scheme: scheme, owner: owner, on: eventLoop) { url, sender -> Receipt? in handler(url, sender) }
    }

    private func add(scheme: String, owner: String, on eventLoop: any EventLoop, handler: @escaping @Sendable (String, String) -> Receipt?) -> Bool {
        let key = scheme.lowercased()
        let outcome = state.withLock { all -> String in
            if let declared = all.declarations[owner], !declared.urlSchemes.contains(key) { return "scheme-undeclared" }
            if let existing = all.registrations[key], existing.owner != owner { return "scheme-taken" }
            all.registrations[key] = Registration(owner: owner, eventLoop: eventLoop, handler: handler)
            return "scheme-registered"
        }
        tracer.record(actor: "bus", event: outcome, fields: [("owner", owner), ("scheme", key)])
        return outcome == "scheme-registered"
    }

    /// Removes a registration (the app was uninstalled or stopped).
    public func unregister(scheme: String, owner: String) {
        let key = scheme.lowercased()
        state.withLock { all in
            if all.registrations[key]?.owner == owner { all.registrations[key] = nil }
        }
        tracer.record(actor: "bus", event: "scheme-unregistered", fields: [("owner", owner), ("scheme", key)])
    }

    /// Whether some app handles the URL's scheme — the system's view, for tools and tests (apps ask with
    /// ``canOpen(_:from:)``).
    public func canOpen(_ url: String) -> Bool {
        guard let scheme = Self.scheme(of: url) else { return false }
        return state.withLock { $0.registrations[scheme] != nil }
    }

    /// `canOpenURL` asked by `app`: whether some app handles the URL's scheme, answered only when `app` declared
    /// the scheme in `LSApplicationQueriesSchemes`; otherwise `false`, with iOS's console error.
    public func canOpen(_ url: String, from app: String) -> Bool {
        guard let scheme = Self.scheme(of: url) else { return false }
        let (declared, handled) = state.withLock { ($0.declarations[app]?.queriesSchemes.contains(scheme) ?? false, $0.registrations[scheme] != nil) }
        guard declared else {
            tracer.record(
                actor: app, event: "console",
                fields: [
                    ("level", "error"),
                    ("message", "-canOpenURL: failed for URL: \"\(url)\" - error: \"This app is not allowed to query for scheme \(scheme)\""),
                ])
            return false
        }
        return handled
    }

    /// The app that handles `scheme`, if any.
    public func owner(of scheme: String) -> String? {
        state.withLock { $0.registrations[scheme.lowercased()]?.owner }
    }

    // MARK: - Opening URLs

    /// Opens `url` on behalf of `sender`.
    ///
    /// - parameters:
    ///   - url: the URL to open; its scheme picks the receiving app.
    ///   - sender: the app that opens it.
    ///   - activating: `true` (iOS's `open`) brings the receiver to the front; `false` delivers without
    ///     an app switch — for messages the real system carries without one (AppConnect's background exchange
    ///     with the Ivanti client), which the workbench also sends as URLs.
    /// - returns: whether an app will receive it; delivery itself happens asynchronously.
    @discardableResult
    public func open(_ url: String, from sender: String, activating: Bool = true) -> Bool {
        deliver(url, from: sender, activating: activating, receipt: nil)
    }

    /// Opens `url` as ``open(_:from:activating:)`` does, and calls `receipt`, on the receiving app's event loop once
    /// it has handled the URL, with what it says it did: nil when it does not say. `receipt` is not called when this
    /// returns `false` (no app handles the scheme).
    @discardableResult
    public func open(
        _ url: String, from sender: String, activating: Bool = true, receipt: @escaping @Sendable (Receipt?) -> Void
    ) -> Bool {
        deliver(url, from: sender, activating: activating, receipt: receipt)
    }

    private func deliver(_ url: String, from sender: String, activating: Bool, receipt: (@Sendable (Receipt?) -> Void)?) -> Bool {
        guard let scheme = Self.scheme(of: url) else {
            tracer.record(actor: "bus", event: "open-rejected", fields: [("from", sender), ("reason", "no valid scheme"), ("url", url)])
            return false
        }
        guard let target = state.withLock({ $0.registrations[scheme] }) else {
            tracer.record(actor: "bus", event: "open-unhandled", fields: [("from", sender), ("url", url)])
            return false
        }
        tracer.record(actor: "bus", event: "open", fields: [("from", sender), ("to", target.owner), ("url", url)])
        target.eventLoop.execute { [self] in
            guard activating else {
                let said = target.handler(url, sender)
                receipt?(said)
                return
            }
            let activated = bringToFront(target.owner)
            // One more turn, so the app leaving the front hears it resigns before the receiver runs; UIKit hands
            // the URL to a returning app before telling it it is active.
            target.eventLoop.execute {
                let said = target.handler(url, sender)
                receipt?(said)
                if let activated { activated.eventLoop.execute { activated.handler(.didBecomeActive) } }
            }
        }
        return true
    }

    // MARK: - Foreground

    /// The app in front (nil: the home screen).
    public var foregroundApp: String? { state.withLock { $0.foreground } }

    /// Receives `app`'s lifecycle events (its `UIApplicationDelegate`), replacing an earlier handler.
    public func observeLifecycle(of app: String, on eventLoop: any EventLoop, handler: @escaping LifecycleHandler) {
        state.withLock { $0.observers[app] = Observer(eventLoop: eventLoop, handler: handler) }
    }

    /// The user brings `app` to the front (home screen icon or app switcher).
    ///
    /// - returns: `false` when no such app is on the phone (it neither declared an Info.plist nor handles a
    ///   scheme).
    @discardableResult
    public func activate(_ app: String) -> Bool {
        let known = state.withLock { all in all.declarations[app] != nil || all.registrations.values.contains { $0.owner == app } }
        guard known else { return false }
        if let activated = bringToFront(app) { activated.eventLoop.execute { activated.handler(.didBecomeActive) } }
        return true
    }

    /// Makes `app` the foreground app and tells the one it replaces; returns the new app's observer for the
    /// caller to tell it became active once it has done what comes first. Nil when `app` was already in front.
    private func bringToFront(_ app: String) -> Observer? {
        let (previous, resigning, activated, changed) = state.withLock { all in
            let previous = all.foreground
            guard previous != app else { return (previous, Observer?.none, Observer?.none, false) }
            all.foreground = app
            return (previous, previous.flatMap { all.observers[$0] }, all.observers[app], true)
        }
        guard changed else { return nil }
        tracer.record(actor: "bus", event: "foreground", fields: [("app", app), ("previous", previous ?? "home-screen")])
        if let resigning { resigning.eventLoop.execute { resigning.handler(.willResignActive) } }
        return activated
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
