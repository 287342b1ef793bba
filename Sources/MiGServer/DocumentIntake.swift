import IPP
import NIOConcurrencyHelpers
import NIOCore
import Wire

/// A document arriving for a job: the HTTP layer feeds it chunk by chunk.
///
/// Its spool writer (file, page counter, gzip inflater) runs on the node's blocking threads, never on an event loop;
/// the printer's bookkeeping runs on the actor's loop.
final class DocumentIntake: @unchecked Sendable {
    // @unchecked Sendable: the intake travels between a connection's loop, the blocking threads and the actor's loop,
    // but its writer is used by one thread at a time: the upload state machine keeps at most one write in flight and
    // starts the next only when the last has returned; a finish started while a write is in flight is handed to that
    // write's thread (`handoff`), which runs it after the write. `printer` is touched only on the actor's loop.
    unowned let printer: MiGPrinter
    let node: Node
    let job: Job
    let request: IPPMessage
    let caller: Caller
    let writer: any DocumentWriter
    let last: Bool
    let unsupported: [IPPAttribute]
    /// The write in flight, and the finish to run once it is done: started as soon as the body has ended, the finish
    /// does not wait for the write's answer to reach the connection's loop and come back (two thread wake-ups on
    /// every upload whose last bytes arrive while a write is under way).
    private let handoff = NIOLockedValueBox(Handoff())

    private struct Handoff {
        var writing = false
        /// The finish started while `writing`: its work, and the promise of its outcome on the node's loop.
        var next: (end: @Sendable () -> Ending, ended: EventLoopPromise<Ending>)?
        /// Why the last write failed, if it did: a finish handed over then only drops the document.
        var failure: SpoolError?
    }

    init(printer: MiGPrinter, job: Job, request: IPPMessage, caller: Caller, writer: any DocumentWriter, last: Bool, unsupported: [IPPAttribute]) {
        self.printer = printer
        node = printer.node
        self.job = job
        self.request = request
        self.caller = caller
        self.writer = writer
        self.last = last
        self.unsupported = unsupported
    }

    /// Writes `chunks` into the spool off the loops; the outcome arrives on `eventLoop` (fails with a `SpoolError`).
    /// A finish started meanwhile runs on the same thread once the write is done.
    func write(_ chunks: [ByteBuffer], on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        handoff.withLockedValue { $0.writing = true }
        let written = node.blockingWork.run(on: eventLoop) {
            var failure: SpoolError?
            do throws(SpoolError) { try self.writer.write(chunks) } catch { failure = error }
            if let next = self.takeNext(failure: failure) { next.ended.succeed(next.end()) }
            if let failure { throw failure }
        }
        written.whenFailure { error in
            // A write the threads refused (they are shutting down) never ran, nor will a finish handed to it: fail
            // that finish. After a write that ran and failed, the finish was already taken and this finds none.
            self.takeNext(failure: nil)?.ended.fail(error)
        }
        return written
    }

    /// The write in flight is over (or never ran): the finish handed to it, if any.
    private func takeNext(failure: SpoolError?) -> (end: @Sendable () -> Ending, ended: EventLoopPromise<Ending>)? {
        handoff.withLockedValue { state in
            defer { state.next = nil }
            state.writing = false
            if let failure { state.failure = failure }
            return state.next
        }
    }

    /// How a finished upload was answered.
    enum Finished: Sendable {
        /// The printer's answer to the document (stored, or refused by the spool as a whole).
        case answer(IPPMessage)
        /// The spool refused the last bytes: the job is aborted and the answer says why.
        case lastWriteFailed(IPPMessage)
    }

    /// What the spool's thread did with the end of the document.
    private enum Ending: Sendable {
        case stored(SpooledDocument)
        case writeFailed(SpoolError)
        case finishFailed(SpoolError)
    }

    /// The whole document has arrived: its `last` bytes written, the document made durable and its pages counted in
    /// one trip off the loops; then stored by the printer on the actor's loop, which answers once the job's record is
    /// durable. The answer completes on `eventLoop` (the connection's), straight from the commit: no hop through the
    /// actor's loop on the way back.
    ///
    /// Started while a write is in flight, the finish runs right after that write, on its thread.
    func finish(last: [ByteBuffer], answerOn eventLoop: any EventLoop) -> EventLoopFuture<Finished> {
        let promise = eventLoop.makePromise(of: Finished.self)
        let end = { @Sendable () -> Ending in
            if let failure = self.handoff.withLockedValue({ $0.failure }) {
                // The write before failed (its answer finds the upload finishing, and is dropped): the job is aborted.
                self.writer.discard()
                return .writeFailed(failure)
            }
            do throws(SpoolError) {
                if !last.isEmpty { try self.writer.write(last) }
            } catch {
                self.writer.discard()
                return .writeFailed(error)
            }
            do throws(SpoolError) {
                return .stored(try self.writer.finish())
            } catch {
                self.writer.discard()
                return .finishFailed(error)
            }
        }
        let handedOver = handoff.withLockedValue { state -> EventLoopFuture<Ending>? in
            guard state.writing else { return nil }
            let ended = node.eventLoop.makePromise(of: Ending.self)
            state.next = (end, ended)
            return ended.futureResult
        }
        (handedOver ?? node.blocking(end)).whenComplete { result in
            switch result {
            case .success(.stored(let document)):
                self.printer.documentReceived(self, document, answerOn: eventLoop).map { Finished.answer($0) }.cascade(to: promise)
            case .success(.finishFailed(let error)): promise.succeed(.answer(self.printer.documentFailed(self, error)))
            case .success(.writeFailed(let error)): promise.succeed(.lastWriteFailed(self.printer.documentFailed(self, error)))
            case .failure(let error): promise.fail(error)
            }
        }
        return promise.futureResult
    }

    /// The document cannot be taken: its bytes are dropped, the job aborted, and the answer says why.
    func fail(_ error: SpoolError) -> EventLoopFuture<IPPMessage> {
        node.blocking { self.writer.discard() }.map { self.printer.documentFailed(self, error) }
    }

    /// The connection went away mid-upload.
    func abandon() {
        node.blocking { self.writer.discard() }.whenComplete { _ in self.printer.documentAbandoned(self) }
    }
}

extension SpoolError {
    var isCompression: Bool { if case .compression = self { true } else { false } }
}
