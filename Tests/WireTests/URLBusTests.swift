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
        #expect(sink.all.map(\.event) == ["scheme-registered", "open"])
        #expect(sink.all.last == RecordingSink.Event(actor: "bus", event: "open", fields: ["from=phone", "to=echo", "url=echo://ping?x=1"]))
        try loop.syncShutdownGracefully()
    }

    @Test func unhandledAndInvalidURLsAreRefusedAndTraced() throws {
        let sink = RecordingSink()
        let bus = URLBus(tracer: sink)
        #expect(!bus.canOpen("nobody://x"))
        #expect(!bus.open("nobody://x", from: "phone"))
        #expect(!bus.canOpen("not a url"))
        #expect(!bus.open("not a url", from: "phone"))
        #expect(sink.all == [
            RecordingSink.Event(actor: "bus", event: "open-unhandled", fields: ["from=phone", "url=nobody://x"]),
            RecordingSink.Event(actor: "bus", event: "open-rejected", fields: ["from=phone", "reason=no valid scheme", "url=not a url"]),
        ])
    }

    @Test func theFirstRegistrationKeepsTheScheme() throws {
        let sink = RecordingSink()
        let bus = URLBus(tracer: sink)
        let first = EmbeddedEventLoop(), second = EmbeddedEventLoop()
        let firstInbox = Inbox(), secondInbox = Inbox()
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
