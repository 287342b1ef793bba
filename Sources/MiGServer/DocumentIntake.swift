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

    /// Writes `bytes` into the spool off the loops; the outcome arrives on `eventLoop` (fails with a `SpoolError`).
    func write(_ bytes: ByteBuffer, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        node.blockingWork.run(on: eventLoop) { try self.writer.write(bytes) }
    }

    /// The whole document has arrived: made durable off the loops, then stored by the printer, which answers.
    func finish() -> EventLoopFuture<IPPMessage> {
        node.blocking { () -> Result<SpooledDocument, SpoolError> in
            do throws(SpoolError) {
                return .success(try self.writer.finish())
            } catch {
                self.writer.discard()
                return .failure(error)
            }
        }.flatMap { outcome in
            switch outcome {
            case .success(let document): self.printer.documentReceived(self, document)
            case .failure(let error): self.node.eventLoop.makeSucceededFuture(self.printer.documentFailed(self, error))
            }
        }
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
