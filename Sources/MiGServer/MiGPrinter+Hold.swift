import IPP
import NIOCore

/// Jobs that wait: held until released (Hold-Job, Release-Job, job-hold-until), and jobs made by Create-Job whose
/// next document does not come within multiple-operation-time-out.
extension MiGPrinter {
    /// The job-state-reasons keyword of a held job (RFC 8011 §5.3.8).
    static let heldReason = "job-hold-until-specified"

    /// Hold-Job: a job not yet printing waits until Release-Job. Only `indefinite` is offered as job-hold-until
    /// (the time-of-day values need a local calendar the simulated printer does not keep).
    func holdJob(_ request: IPPMessage, _ caller: Caller) throws -> IPPMessage {
        var job = try ownedJob(request, caller)
        if let until = request.operationAttributes?["job-hold-until"], until.stringValue != "indefinite" {
            throw Refusal(
                response: unsupportedResponse(
                    request, .attributesOrValuesNotSupported,
                    "job-hold-until '\(until.stringValue ?? "?")' is not supported by Hold-Job; expected indefinite.",
                    unsupported: [until]))
        }
        guard job.state == .pending || job.state == .pendingHeld else {
            throw Refusal(request, .notPossible, "Job \(job.id) is \(job.state.keyword) and can no longer be held.")
        }
        job.state = .pendingHeld
        job.reasons = job.reasons.filter { $0 != Self.heldReason } + [Self.heldReason]
        var template = JobTemplate(stored: job.template)
        template["job-hold-until"] = [.keyword("indefinite")]
        job.template = template.stored
        store.update(job)
        node.trace("job-held", [("by", caller.user), ("job", "\(job.id)")])
        return IPPMessage.response(to: request, status: .successfulOK)
    }

    /// Release-Job: a held job goes back to pending and prints in its turn (once its document is complete).
    func releaseJob(_ request: IPPMessage, _ caller: Caller) throws -> IPPMessage {
        var job = try ownedJob(request, caller)
        guard job.state == .pendingHeld else {
            throw Refusal(request, .notPossible, "Job \(job.id) is \(job.state.keyword), not held: there is nothing to release.")
        }
        job.state = .pending
        job.reasons = job.reasons.filter { $0 != Self.heldReason }
        var template = JobTemplate(stored: job.template)
        template["job-hold-until"] = [.keyword("no-hold")]
        job.template = template.stored
        store.update(job)
        node.trace("job-released", [("by", caller.user), ("job", "\(job.id)")])
        engine.kick()
        return IPPMessage.response(to: request, status: .successfulOK)
    }

    // MARK: multiple-operation-time-out

    /// Starts (or restarts) the wait for a Create-Job job's next document, on the printer's clock: the kernel's
    /// virtual time under simulation, like the print engine's page timer.
    func armDocumentTimer(_ id: Int64) {
        disarmDocumentTimer(id)
        let printer = NIOLoopBound(self, eventLoop: node.eventLoop)
        documentTimers[id] = node.schedule(in: .seconds(Int64(description.multipleOperationTimeOut))) {
            printer.value.documentTimedOut(id)
        }
    }

    func disarmDocumentTimer(_ id: Int64) {
        documentTimers.removeValue(forKey: id)?.cancel()
    }

    /// No Send-Document or Close-Job came in time: the job is aborted, as multiple-operation-time-out-action
    /// `abort-job` says.
    private func documentTimedOut(_ id: Int64) {
        documentTimers[id] = nil
        guard var job = store.job(id: id), job.awaitingDocuments, !job.state.isFinal else { return }
        job.state = .aborted
        job.reasons = ["aborted-by-system"]
        job.completedAt = node.clock.unixSeconds
        save(job)
        node.trace("job-timed-out", [("after", "\(description.multipleOperationTimeOut)s"), ("job", "\(id)")])
    }
}
