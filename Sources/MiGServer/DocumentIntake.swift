import IPP
import NIOCore
import Wire

/// A document arriving for a job: the HTTP layer feeds it chunk by chunk.
///
/// Its spool writer (file, page counter, gzip inflater) runs on the node's blocking threads, never on an event loop;
/// the printer's bookkeeping runs on the actor's loop.
final class DocumentIntake: @unchecked Sendable {
    // @unchecked Sendable: the intake travels between a connection's loop, the blocking threads and the actor's loop,
    // but is used by one of them at a time: the upload state machine keeps at most one spool operation in flight and
    // starts the next only when the last has returned; `printer` is touched only on the actor's loop.
    unowned let printer: MiGPrinter
    let node: Node
    let job: Job
    let request: IPPMessage
    let caller: Caller
    let writer: any DocumentWriter
    let last: Bool
    let unsupported: [IPPAttribute]

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
    func write(_ chunks: [ByteBuffer], on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        node.blockingWork.run(on: eventLoop) { try self.writer.write(chunks) }
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
    func finish(last: [ByteBuffer], answerOn eventLoop: any EventLoop) -> EventLoopFuture<Finished> {
        let promise = eventLoop.makePromise(of: Finished.self)
        node.blocking { () -> Ending in
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
        }.whenComplete { result in
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
