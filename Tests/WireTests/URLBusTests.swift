import NIOEmbedded
import Synchronization
import Testing
import Wire

/// Records trace events for the tests to read.
final class RecordingSink: TraceSink {
    struct Event: Equatable {
        let actor: String, event: String, fields: [String]
    }

    private let events = Mutex<[Event]>([])

    func record(actor: String, event: String, fields: [(String, String)]) {
        events.withLock { $0.append(Event(actor: actor, event: event, fields: fields.map { "\($0.0)=\($0.1)" })) }
    }

    var all: [Event] { events.withLock { $0 } }
}

/// What an app received on the bus.
final class Inbox: Sendable {
    private let received = Mutex<[String]>([])
    func append(_ url: String, from sender: String) { received.withLock { $0.append("\(sender) -> \(url)") } }
    var all: [String] { received.withLock { $0 } }
}

/// The URL-scheme bus with iOS `open(url)` semantics: who handles a scheme, what `open` answers, and when and where
/// the receiving app gets the URL.
@Suite struct URLBusTests {
    @Test(arguments: [
        ("echo://ping", "echo"),
        ("Mail-AC://x", "mail-ac"),
        ("a+b.c-d9:rest", "a+b.c-d9"),
        ("x:", "x"),
    ])
    func schemesFollowRFC3986(url: String, scheme: String) {
        #expect(URLBus.scheme(of: url) == scheme)
    }

    @Test(arguments: ["no colon", ":empty", "1abc://x", "ab cd://x", "ab_cd://x", "é://x", "", "-x://y"])
    func textWithoutASchemeHasNone(url: String) {
        #expect(URLBus.scheme(of: url) == nil)
    }

    @Test func aHandledURLArrivesLaterOnTheReceiversLoopWithItsSender() throws {
        let sink = RecordingSink()
        let bus = URLBus(tracer: sink)
        let loop = EmbeddedEventLoop()
        let inbox = Inbox()
        #expect(bus.register(scheme: "Echo", owner: "echo", on: loop) { inbox.append($0, from: $1) })
        #expect(bus.canOpen("ECHO://ping"))
        #expect(bus.owner(of: "echo") == "echo")
        #expect(bus.open("echo://ping?x=1", from: "phone"))
        #expect(inbox.all.isEmpty, "open returns before the receiving app runs, as the system switching apps does")
        loop.run()
        #expect(inbox.all == ["phone -> echo://ping?x=1"])
        #expect(sink.all.map(\.event) == ["scheme-registered", "open", "foreground"])
        #expect(sink.all[1] == RecordingSink.Event(actor: "bus", event: "open", fields: ["from=phone", "to=echo", "url=echo://ping?x=1"]))
        #expect(bus.foregroundApp == "echo", "the receiver is in front")
        try loop.syncShutdownGracefully()
    }

    @Test func openSwitchesTheForegroundAppAndTellsBothApps() throws {
        let sink = RecordingSink()
        let bus = URLBus(tracer: sink)
        let loop = EmbeddedEventLoop()
        let told = Inbox()
        for app in ["phone", "ivanti"] {
            bus.declare(app: app, URLBus.AppDeclaration(urlSchemes: [app + "-scheme"], queriesSchemes: []))
            #expect(bus.register(scheme: app + "-scheme", owner: app, on: loop) { url, _ in told.append(url, from: app) })
            bus.observeLifecycle(of: app, on: loop) { told.append($0.rawValue, from: app) }
        }
        #expect(bus.foregroundApp == nil)
        #expect(bus.activate("phone"))
        loop.run()
        #expect(bus.open("ivanti-scheme://x", from: "phone"))
        #expect(bus.foregroundApp == "phone", "the switch happens when the URL is delivered")
        loop.run()
        #expect(bus.foregroundApp == "ivanti")
        // A background message (AppConnect's state) switches nothing.
        #expect(bus.open("phone-scheme://state", from: "ivanti", activating: false))
        loop.run()
        #expect(bus.foregroundApp == "ivanti")
        #expect(bus.activate("phone"))
        loop.run()
        #expect(
            told.all == [
                "phone -> did-become-active", "phone -> will-resign-active", "ivanti -> ivanti-scheme://x", "ivanti -> did-become-active",
                "phone -> phone-scheme://state", "ivanti -> will-resign-active", "phone -> did-become-active",
            ])
        #expect(
            sink.all.filter { $0.event == "foreground" }.map(\.fields) == [
                ["app=phone", "previous=home-screen"], ["app=ivanti", "previous=phone"],
                ["app=phone", "previous=ivanti"],
            ])
        #expect(!bus.activate("nobody"))
        try loop.syncShutdownGracefully()
    }

    @Test func aDeclaredAppHandlesOnlyItsURLTypesAndQueriesOnlyItsQuerySchemes() throws {
        let sink = RecordingSink()
        let bus = URLBus(tracer: sink)
        let loop = EmbeddedEventLoop()
        bus.declare(app: "ivanti", URLBus.AppDeclaration(urlSchemes: ["AppConnectDC"], queriesSchemes: []))
        #expect(bus.register(scheme: "appconnectdc", owner: "ivanti", on: loop) { _, _ in })
        #expect(!bus.register(scheme: "mail", owner: "ivanti", on: loop) { _, _ in })
        #expect(sink.all.last?.event == "scheme-undeclared")
        bus.declare(app: "phone", URLBus.AppDeclaration(urlSchemes: [], queriesSchemes: ["appconnectdc", "nobody"]))
        #expect(bus.canOpen("appconnectdc://", from: "phone"))
        #expect(!bus.canOpen("nobody://", from: "phone"), "declared, but no app handles it")
        #expect(!bus.canOpen("appconnectdc://", from: "mail"), "mail declared no query schemes")
        #expect(
            sink.all.last
                == RecordingSink.Event(
                    actor: "mail", event: "console",
                    fields: [
                        "level=error",
                        #"message=-canOpenURL: failed for URL: "appconnectdc://" - error: "This app is not allowed to query for scheme appconnectdc""#,
                    ]))
        // The system's view is unaffected; undeclared owners (actors that are not phone apps) register freely.
        #expect(bus.canOpen("appconnectdc://"))
        #expect(bus.register(scheme: "echo", owner: "echo", on: loop) { _, _ in })
        try loop.syncShutdownGracefully()
    }

    /// Tools outside the phone (the bus gateway) learn what the receiving app did with a URL; the trace is the same
    /// whether anyone asks or not.
    @Test func aReceiptSaysWhatTheReceivingAppDidWithTheURL() throws {
        let traces = try [false, true].map { asking -> [RecordingSink.Event] in
            let sink = RecordingSink()
            let bus = URLBus(tracer: sink)
            let loop = EmbeddedEventLoop()
            let judging = bus.register(
                scheme: "judge", owner: "judge", on: loop,
                answering: { url, sender in url.hasSuffix("ok") ? .accepted("took it from \(sender)") : .refused("\(url) is not ok") })
            #expect(judging)
            #expect(bus.register(scheme: "quiet", owner: "quiet", on: loop) { _, _ in })
            let receipts = Mutex<[String]>([])
            for url in ["judge://ok", "judge://bad", "quiet://x"] {
                if asking {
                    #expect(bus.open(url, from: "phone") { said in receipts.withLock { $0.append("\(url): \(said.map { "\($0)" } ?? "nil")") } })
                } else {
                    #expect(bus.open(url, from: "phone"))
                }
            }
            #expect(!bus.open("nobody://x", from: "phone") { _ in Issue.record("no app handles it: no receipt") })
            #expect(receipts.withLock { $0 }.isEmpty, "the app has not run yet")
            loop.run()
            if asking {
                #expect(
                    receipts.withLock { $0 } == [
                        #"judge://ok: accepted("took it from phone")"#, #"judge://bad: refused("judge://bad is not ok")"#, "quiet://x: nil",
                    ])
            }
            try loop.syncShutdownGracefully()
            return sink.all
        }
        #expect(traces[0] == traces[1])
        #expect(traces[1].filter { $0.event == "open" }.count == 3)
    }

    @Test func unhandledAndInvalidURLsAreRefusedAndTraced() throws {
        let sink = RecordingSink()
        let bus = URLBus(tracer: sink)
        #expect(!bus.canOpen("nobody://x"))
        #expect(!bus.open("nobody://x", from: "phone"))
        #expect(!bus.canOpen("not a url"))
        #expect(!bus.open("not a url", from: "phone"))
        #expect(
            sink.all == [
                RecordingSink.Event(actor: "bus", event: "open-unhandled", fields: ["from=phone", "url=nobody://x"]),
                RecordingSink.Event(actor: "bus", event: "open-rejected", fields: ["from=phone", "reason=no valid scheme", "url=not a url"]),
            ])
    }

    @Test func theFirstRegistrationKeepsTheScheme() throws {
        let sink = RecordingSink()
        let bus = URLBus(tracer: sink)
        let first = EmbeddedEventLoop()
        let second = EmbeddedEventLoop()
        let firstInbox = Inbox()
        let secondInbox = Inbox()
        #expect(bus.register(scheme: "dc", owner: "ivanti", on: first) { firstInbox.append($0, from: $1) })
        #expect(!bus.register(scheme: "DC", owner: "impostor", on: second) { secondInbox.append($0, from: $1) })
        #expect(bus.owner(of: "dc") == "ivanti")
        #expect(sink.all.map(\.event) == ["scheme-registered", "scheme-taken"])
        // The owner may register again (an app restarting), replacing its handler.
        let replaced = Inbox()
        #expect(bus.register(scheme: "dc", owner: "ivanti", on: first) { replaced.append($0, from: $1) })
        #expect(bus.open("dc://x", from: "mail"))
        first.run()
        second.run()
        #expect(replaced.all == ["mail -> dc://x"])
        #expect(firstInbox.all.isEmpty && secondInbox.all.isEmpty)
        try first.syncShutdownGracefully()
        try second.syncShutdownGracefully()
    }

    @Test func onlyTheOwnerUnregistersAScheme() throws {
        let bus = URLBus(tracer: RecordingSink())
        let loop = EmbeddedEventLoop()
        bus.register(scheme: "echo", owner: "echo", on: loop) { _, _ in }
        bus.unregister(scheme: "echo", owner: "someone-else")
        #expect(bus.owner(of: "echo") == "echo")
        bus.unregister(scheme: "ECHO", owner: "echo")
        #expect(bus.owner(of: "echo") == nil)
        #expect(!bus.open("echo://x", from: "phone"))
        // Free again: another app may take it.
        #expect(bus.register(scheme: "echo", owner: "other", on: loop) { _, _ in })
        try loop.syncShutdownGracefully()
    }
}
