import IPP
import Kernel
import MiGClient
import NIOCore
import Testing
import Wire
import WireHTTP

/// Retries with backoff in virtual time, and the `Expect: 100-continue` dance with servers that do and do not
/// send 100 or answer before the body.
@Suite struct RetryAndContinueTests {
    static let policy = MiGClient.RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(500), maxDelay: .seconds(8))

    @Test func busyTwiceThenAcceptedTakesThreeAttemptsAndTheBackoff() throws {
        let world = SimulatedWorld()
        let counter = Counter()
        let recorder = try world.startIPPServer { request in
            counter.next() <= 2 ? IPPAnswer.status(request, .busy, message: "printer busy") : IPPAnswer.jobCreated(request, id: 9)
        }
        let client = try world.client(retry: Self.policy)
        let start = world.kernel.now
        let job = try world.run { try await client.print(try .generated(byteCount: 10_000)) }
        let elapsed = world.kernel.now - start
        #expect(job.attempts == 3)
        #expect(job.id == 9)
        // Waits of 500 ms then 1 s; the exchanges themselves take no virtual time on an ideal link.
        #expect(elapsed >= .milliseconds(1500) && elapsed < .milliseconds(1600))
        let retries = world.kernel.trace.all.filter { $0.event == "mig-client-retry" }
        #expect(retries.map { $0["wait"] } == ["500ms", "1s"])
        #expect(retries.allSatisfy { $0["reason"] == "server-error-busy" })
        // Every attempt re-sent the whole document with a new request-id.
        #expect(recorder.requests.map(\.document.count) == [10_000, 10_000, 10_000])
        #expect(recorder.requests.compactMap(\.ipp?.requestID) == [1, 2, 3])
    }

    @Test func alwaysBusyExhaustsThePolicy() throws {
        let world = SimulatedWorld()
        try world.startIPPServer { IPPAnswer.status($0, .busy) }
        let client = try world.client(retry: MiGClient.RetryPolicy(maxAttempts: 5, baseDelay: .seconds(1), maxDelay: .seconds(3)))
        let start = world.kernel.now
        let error = try world.run { await expectMiGError { try await client.print(.bytes([1, 2])) } }
        #expect(error == .retriesExhausted(attempts: 5, last: .ipp(status: .busy, message: nil)))
        // 1 + 2 + 3 (capped) + 3 seconds.
        let elapsed = world.kernel.now - start
        #expect(elapsed >= .seconds(9) && elapsed < .milliseconds(9100))
    }

    @Test func aResetMidUploadIsRetriedAndTheSecondAttemptSucceeds() throws {
        let world = SimulatedWorld()
        let recorder = try world.startIPPServer { IPPAnswer.jobCreated($0, id: 5) }
        let client = try world.client(retry: Self.policy)
        // The first connection breaks after 200 KB of the 1 MB upload have gone out.
        world.kernel.network.resetAfter(bytes: 200_000, from: "phone", to: "mig")
        let progress = ProgressLog()
        let job = try world.run { try await client.print(try .generated(byteCount: 1_000_000), progress: progress.handler) }
        #expect(job.attempts == 2)
        #expect(job.bytesSent == 1_000_000)
        #expect(recorder.requests.count == 1)
        #expect(recorder.requests.first?.document.count == 1_000_000)
        let retry = try #require(world.kernel.trace.all.first { $0.event == "mig-client-retry" })
        #expect(retry["reason"] == "connection-dropped")
        #expect(retry["wait"] == "500ms")
        // Progress restarted from zero with the second attempt.
        let sent = progress.entries.map(\.sent)
        #expect(sent.last == 1_000_000)
        #expect(zip(sent, sent.dropFirst()).contains { $0 > $1 })
    }

    @Test func aServerThatNeverSends100GetsTheBodyAfterTheContinueTimeout() throws {
        let world = SimulatedWorld()
        let recorder = Recorder()
        _ = try world.run { try await RawHTTPServer.start(on: world.server, behaviour: .ignoreExpectContinue, recorder: recorder).get() }
        let client = try world.client(timeouts: MiGClient.Timeouts(expectContinue: .seconds(2)))
        let start = world.kernel.now
        let job = try world.run { try await client.print(try .generated(byteCount: 100_000)) }
        #expect(job.id == 1)
        #expect(world.kernel.now - start >= .seconds(2))
        #expect(recorder.requests.first?.document.count == 100_000)
    }

    @Test func aServerThatSends100GetsTheBodyAtOnce() throws {
        let world = SimulatedWorld()
        try world.startIPPServer { IPPAnswer.jobCreated($0, id: 1) }
        let client = try world.client(timeouts: MiGClient.Timeouts(expectContinue: .seconds(2)))
        let start = world.kernel.now
        _ = try world.run { try await client.print(try .generated(byteCount: 100_000)) }
        #expect(world.kernel.now - start < .seconds(2))
    }

    @Test(arguments: [true, false])
    func a401BeforeTheBodyIsUnauthorizedNotAReset(expectContinue: Bool) throws {
        let world = SimulatedWorld()
        let recorder = Recorder()
        _ = try world.run { try await RawHTTPServer.start(on: world.server, behaviour: .unauthorizedOnHead, recorder: recorder).get() }
        let client = try world.client(retry: Self.policy)
        let progress = ProgressLog()
        let error = try world.run {
            await expectMiGError {
                try await client.print(
                    try .generated(byteCount: 5_000_000), options: PrintOptions(expectContinue: expectContinue),
                    progress: progress.handler)
            }
        }
        #expect(error == .unauthorized(realm: "MiG"))
        #expect(recorder.requests.count == 1)
        if expectContinue {
            // The client waited for the server's verdict: no document byte went out.
            #expect(progress.entries.isEmpty)
        } else {
            // The upload stopped long before its end.
            #expect((progress.entries.last?.sent ?? 0) < 5_000_000)
        }
    }

    @Test func aServerThatStopsReadingStallsTheUploadUntilTheIdleTimeout() throws {
        let world = SimulatedWorld()
        // Accepts connections and never reads: the receive window fills and the client must wait, not buffer.
        _ = try world.run {
            try await world.server.listen(port: 8050) { channel in channel.setOption(ChannelOptions.autoRead, value: false) }.get()
        }
        let client = try world.client(retry: .none, timeouts: MiGClient.Timeouts(idle: .seconds(5)))
        let progress = ProgressLog()
        let start = world.kernel.now
        let error = try world.run {
            await expectMiGError {
                try await client.print(
                    try .generated(byteCount: 100_000_000), options: PrintOptions(expectContinue: false),
                    progress: progress.handler)
            }
        }
        guard case .timedOut = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(world.kernel.now - start == .seconds(5))
        // Only what fits in the receive window and the channel's write buffer ever left the document reader.
        let sent = progress.entries.last?.sent ?? 0
        #expect(sent > 0 && sent < 1_000_000)
    }

    @Test func sameSeedSameTrace() throws {
        func digest(seed: UInt64 = 11) throws -> String {
            let world = SimulatedWorld(seed: seed)
            let counter = Counter()
            try world.startIPPServer { request in
                counter.next() == 1 ? IPPAnswer.status(request, .busy) : IPPAnswer.jobCreated(request, id: 2)
            }
            let client = try world.client(retry: MiGClient.RetryPolicy(maxAttempts: 3, jitter: 0.5))
            let link = LinkConditions(latency: .uniform(1_000_000, 30_000_000), bandwidth: 2_000_000)
            world.kernel.network.setConditions(from: "phone", to: "mig", link)
            world.kernel.network.setConditions(from: "mig", to: "phone", link)
            _ = try world.run { try await client.print(try .generated(byteCount: 300_000)) }
            #expect(world.kernel.loop.violations.isEmpty)
            return world.kernel.trace.digest
        }
        #expect(try digest() == digest())
        #expect(try digest() != digest(seed: 12), "latency and retry jitter come from the seed, and the trace shows them")
    }
}
