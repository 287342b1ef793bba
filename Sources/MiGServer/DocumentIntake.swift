import IPP
import NIOCore

/// A document arriving for a job: the HTTP layer feeds it chunk by chunk.
final class DocumentIntake {
    unowned let printer: MiGPrinter
    let job: Job
    let request: IPPMessage
    let caller: Caller
    let writer: any DocumentWriter
    let last: Bool
    let unsupported: [IPPAttribute]

    init(printer: MiGPrinter, job: Job, request: IPPMessage, caller: Caller, writer: any DocumentWriter, last: Bool, unsupported: [IPPAttribute]) {
        self.printer = printer
        self.job = job
        self.request = request
        self.caller = caller
        self.writer = writer
        self.last = last
        self.unsupported = unsupported
    }

    func write(_ bytes: ByteBuffer) throws(SpoolError) { try writer.write(bytes) }

    /// The whole document has arrived: store it and answer.
    func finish() -> IPPMessage {
        do {
            return printer.documentReceived(self, try writer.finish())
        } catch {
            writer.discard()
            return printer.documentFailed(self, error)
        }
    }

    /// The document cannot be taken: answer why.
    func fail(_ error: SpoolError) -> IPPMessage {
        writer.discard()
        return printer.documentFailed(self, error)
    }

    /// The connection went away mid-upload.
    func abandon() {
        writer.discard()
        printer.documentAbandoned(self)
    }
}

extension SpoolError {
    var isCompression: Bool { if case .compression = self { true } else { false } }
}
