import IPP
import NIOCore
import NIOHTTP1
import Testing

@testable import MiGServer

/// The upload state machine without a channel: events in, actions out (the upload is a plain name here).
@Suite struct UploadStateMachineTests {
    typealias Machine = UploadStateMachine<String>

    static let caller = Caller(user: "demo", address: PrinterAddress(scheme: "ipp", authority: "mig:631"))

    static func head(_ headers: HTTPHeaders = ["Content-Type": "application/ipp"]) -> HTTPRequestHead {
        HTTPRequestHead(version: .http1_1, method: .POST, uri: "/ipp/print", headers: headers)
    }

    static func printJob() throws -> [UInt8] {
        try IPPEncoder().encode(
            IPPMessage.request(.printJob, requestID: 7) { op in
                op.addPrinterURI("ipp://mig/ipp/print")
                op.addDocumentFormat("application/pdf")
            })
    }

    /// A machine whose Print-Job attributes arrived (with `document` right behind them) and went to the printer.
    static func admitting(document: [UInt8] = []) throws -> Machine {
        var machine = Machine(decoder: IPPDecoder())
        machine.accept(head(), caller)
        guard case .admit(let request, _) = machine.receivedBody(ByteBuffer(bytes: try printJob() + document)) else {
            Issue.record("complete attributes must go to the printer")
            return machine
        }
        #expect(request.operation == .printJob)
        #expect(machine.readsPaused, "nothing more is read while the printer decides")
        return machine
    }

    @Test func bytesReadWhileThePrinterDecidesAreFedFirstInOneTrip() throws {
        var machine = try Self.admitting(document: Array("%PDF".utf8))
        #expect(isNone(machine.receivedBody(ByteBuffer(string: "-1.7"))))
        guard case .feed(let upload, let bytes) = machine.admitted(.document("job 1")) else {
            Issue.record("the document's first bytes must be fed")
            return
        }
        #expect(upload == "job 1")
        #expect(bytes.map { String(buffer: $0) } == ["%PDF", "-1.7"], "in one trip, as they were read")
        #expect(!machine.readsPaused, "reading goes on during a write while little is queued")
    }

    @Test func readingPausesOnceTheReadAheadIsQueuedBehindAWrite() throws {
        var machine = try Self.admitting()
        #expect(isNone(machine.admitted(.document("job"))))
        guard case .feed = machine.receivedBody(ByteBuffer(string: "first")) else { return fail("first chunk is written") }
        let chunk = ByteBuffer(repeating: 0x25, count: 64 * 1024)
        for _ in 0..<(Machine.readAheadBytes / chunk.readableBytes - 1) {
            #expect(isNone(machine.receivedBody(chunk)))
            #expect(!machine.readsPaused)
        }
        #expect(isNone(machine.receivedBody(chunk)))
        #expect(machine.readsPaused, "512 KiB queued behind a write: reading stops")
        guard case .feed(_, let queued) = machine.fed(.success(())) else { return fail("the queue is written next, in one trip") }
        #expect(queued.reduce(0) { $0 + $1.readableBytes } == Machine.readAheadBytes)
        #expect(!machine.readsPaused, "the queue went to the spool: reading resumes")
    }

    @Test func chunksQueueBehindAWriteAndTheEndFinishesAtOnce() throws {
        var machine = try Self.admitting()
        #expect(isNone(machine.admitted(.document("job"))))
        #expect(!machine.readsPaused)
        guard case .feed = machine.receivedBody(ByteBuffer(string: "a")) else { return fail("first chunk is written") }
        #expect(isNone(machine.receivedBody(ByteBuffer(string: "b"))), "queued behind the write in flight")
        #expect(isNone(machine.receivedBody(ByteBuffer(string: "c"))))
        guard case .finish(let upload, let last) = machine.receivedEnd() else {
            return fail("the document is finished as soon as the body ends (the upload runs the finish after the write in flight)")
        }
        #expect(upload == "job")
        #expect(last.map { String(buffer: $0) } == ["b", "c"], "the queued chunks are written in the finish's trip")
        #expect(isNone(machine.fed(.success(()))), "the write's own answer, arriving after, changes nothing")
        #expect(!machine.readsPaused)
        guard case .reply(.ipp(_, let operation, _, let keepAlive)) = machine.finished(IPPMessage(version: .v2_0, code: 0, requestID: 7)) else {
            return fail("the printer's answer is sent")
        }
        #expect(operation == .printJob)
        #expect(keepAlive)
        #expect(machine.isIdle)
    }

    @Test func aWholeDocumentReadWhileThePrinterDecidesIsWrittenAndFinishedInOneTrip() throws {
        var machine = try Self.admitting(document: Array("%PDF-1.7".utf8))
        #expect(isNone(machine.receivedEnd()))
        guard case .finish("job", let last) = machine.admitted(.document("job")) else {
            return fail("a document that is all in is finished at once, its bytes written on the way")
        }
        #expect(last.map { String(buffer: $0) } == ["%PDF-1.7"])
    }

    /// Attributes whole in the first chunk are read from it in place, also from a chunk that starts inside its
    /// buffer (as HTTP's decoder hands them on); attributes split over two chunks are gathered first. The printer is
    /// asked the same either way, and the document's first bytes follow.
    @Test func attributesAreReadInPlaceOrGatheredAcrossChunks() throws {
        let request = try Self.printJob()
        var inPlace = ByteBuffer(bytes: Array("HTTP/1.1 head".utf8) + request + Array("%PDF".utf8))
        inPlace.moveReaderIndex(forwardBy: 13)
        let split = [ByteBuffer(bytes: request.prefix(10)), ByteBuffer(bytes: request.dropFirst(10) + Array("%PDF".utf8))]
        for chunks in [[inPlace], split] {
            var machine = Machine(decoder: IPPDecoder())
            machine.accept(Self.head(), Self.caller)
            for chunk in chunks.dropLast() { #expect(isNone(machine.receivedBody(chunk)), "the attributes are not complete yet") }
            guard case .admit(let asked, _) = machine.receivedBody(chunks.last!) else { return fail("complete attributes go to the printer") }
            #expect(asked.operation == .printJob && asked.requestID == 7)
            guard case .feed(_, let bytes) = machine.admitted(.document("job")) else { return fail("the document's bytes are fed") }
            #expect(bytes.map { String(buffer: $0) } == ["%PDF"])
        }
    }

    @Test func anEmptyRestIsFinishedWithoutAWrite() throws {
        var machine = try Self.admitting()
        #expect(isNone(machine.admitted(.document("job"))))
        guard case .feed = machine.receivedBody(ByteBuffer(string: "all")) else { return fail("the chunk is written") }
        guard case .finish("job", let last) = machine.receivedEnd() else { return fail("the document is finished") }
        #expect(last.isEmpty, "nothing is left to write at the finish")
        #expect(isNone(machine.fed(.success(()))))
    }

    @Test func aWriteInFlightThatFailsAfterTheEndIsAnsweredByTheFinish() throws {
        var machine = try Self.admitting()
        #expect(isNone(machine.admitted(.document("job"))))
        guard case .feed = machine.receivedBody(ByteBuffer(string: "a")) else { return fail("the chunk is written") }
        guard case .finish("job", _) = machine.receivedEnd() else { return fail("the document is finished at once") }
        #expect(isNone(machine.fed(.failure(.tooLarge(limit: 1)))), "the finish after the write reports its failure, not the write")
        let refusal = IPPMessage(version: .v2_0, code: IPPStatus.requestEntityTooLarge.rawValue, requestID: 7)
        guard case .reply(.earlyIPP(let answer, .printJob, _)) = machine.lastWriteFailed(refusal) else {
            return fail("the refusal is sent with Connection: close, as for a write refused before the end")
        }
        #expect(answer.status == .requestEntityTooLarge)
    }

    @Test func aRefusedLastWriteIsAnsweredWithConnectionClose() throws {
        var machine = try Self.admitting(document: [1, 2, 3])
        #expect(isNone(machine.receivedEnd()))
        guard case .finish = machine.admitted(.document("job")) else { return fail("the document is finished") }
        let refusal = IPPMessage(version: .v2_0, code: IPPStatus.requestEntityTooLarge.rawValue, requestID: 7)
        guard case .reply(.earlyIPP(let answer, .printJob, _)) = machine.lastWriteFailed(refusal) else {
            return fail("the printer's refusal is sent with Connection: close, as for any refused write")
        }
        #expect(answer.status == .requestEntityTooLarge)
        #expect(!machine.isIdle)
    }

    @Test func aSpoolFailureFailsTheUploadAndClosesTheConnection() throws {
        var machine = try Self.admitting(document: [1, 2, 3])
        _ = machine.admitted(.document("job"))
        guard case .fail(let upload, .tooLarge, _, .printJob) = machine.fed(.failure(.tooLarge(limit: 2))) else {
            return fail("a refused write fails the upload")
        }
        #expect(upload == "job")
        #expect(isNone(machine.receivedBody(ByteBuffer(string: "more"))), "later bytes are dropped")
        #expect(isNone(machine.receivedEnd()))
    }

    @Test func everyWayAnUploadEndsWithoutItsAnswerAbandonsIt() throws {
        // A time-out between two chunks: abandoned, answered 408.
        var machine = try Self.admitting()
        _ = machine.admitted(.document("timed out"))
        guard case .abandon("timed out", .timeout, then: .early(let reply)?) = machine.timedOut(.seconds(30)) else {
            return fail("an idle upload is abandoned with a 408")
        }
        #expect(reply.status == .requestTimeout)

        // The document deadline.
        machine = try Self.admitting()
        _ = machine.admitted(.document("too slow"))
        guard case .abandon("too slow", .timeout, then: .early?) = machine.passedDeadline(.seconds(60), "the document") else {
            return fail("an upload past its deadline is abandoned")
        }

        // The connection closes (or fails).
        machine = try Self.admitting()
        _ = machine.admitted(.document("lost"))
        guard case .abandon("lost", .connectionLost, then: nil) = machine.connectionEnded() else {
            return fail("a lost connection abandons its upload")
        }

        // The connection closed while the printer decided: the job it made is abandoned when the decision comes.
        machine = try Self.admitting()
        #expect(isNone(machine.connectionEnded()))
        guard case .abandon("late", .connectionLost, then: nil) = machine.admitted(.document("late")) else {
            return fail("an admission after the connection went is abandoned")
        }
    }

    @Test func aWriteInFlightIsAwaitedBeforeItsUploadIsAbandoned() throws {
        var machine = try Self.admitting()
        _ = machine.admitted(.document("job"))
        guard case .feed = machine.receivedBody(ByteBuffer(string: "x")) else { return fail("the chunk is written") }
        guard case .reply(.early(let reply)) = machine.timedOut(.seconds(30)) else {
            return fail("the 408 goes out at once")
        }
        #expect(reply.status == .requestTimeout)
        #expect(!machine.readsPaused, "a closing connection is read and dropped")
        guard case .abandon("job", .timeout, then: nil) = machine.fed(.success(())) else {
            return fail("the upload is abandoned once its write returned, not under it")
        }
    }

    @Test func aRefusedPrintJobDropsItsDocumentAndAnswersAfterTheBody() throws {
        var machine = try Self.admitting(document: [9, 9])
        let refusal = IPPMessage(version: .v2_0, code: IPPStatus.busy.rawValue, requestID: 7)
        #expect(isNone(machine.admitted(.answer(refusal))))
        #expect(isNone(machine.receivedBody(ByteBuffer(string: "rest of the document"))))
        guard case .reply(.ipp(let answer, .printJob, _, true)) = machine.receivedEnd() else { return fail("answered at the end") }
        #expect(answer.status == .busy)
    }

    @Test func attributesThatAreNotIPPAreAnsweredEarly() {
        var machine = Machine(decoder: IPPDecoder())
        machine.accept(Self.head(), Self.caller)
        guard case .reply(.earlyIPP(let answer, nil, _)) = machine.receivedBody(ByteBuffer(string: "GET / HTTP/1.1 and more text")) else {
            return fail("text is refused before the body ends")
        }
        #expect(answer.status == .badRequest)
        #expect(isNone(machine.receivedEnd()))
    }

    @Test func aLargeRefusedBodyIsAnsweredAtOnceASmallOneAfterwards() {
        var machine = Machine(decoder: IPPDecoder())
        let reply = MiGHTTPHandler.Reply(status: .unauthorized, body: "no")
        #expect(isNone(machine.refuse(Self.head(["Content-Length": "10"]), reply)))
        guard case .reply(.text(_, _, keepAlive: true)) = machine.receivedEnd() else { return fail("a small body is read first") }
        guard case .reply(.early) = machine.refuse(Self.head(["Content-Length": "\(1 << 20)"]), reply) else {
            return fail("a large body is not waited for")
        }
    }

    private func isNone(_ action: Machine.Action) -> Bool { if case .none = action { true } else { false } }

    private func fail(_ expectation: Comment, sourceLocation: SourceLocation = #_sourceLocation) {
        Issue.record(expectation, sourceLocation: sourceLocation)
    }
}
