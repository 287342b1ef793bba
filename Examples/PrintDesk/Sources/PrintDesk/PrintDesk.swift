import MiGClient
import Wire

/// An app team's print feature, written against the workbench's public client module (`MiGClient`) and the `Node`
/// seam only: it prints a document to MiG, follows the job until it is done, and tries again where that is safe.
///
/// What it adds to the client: a poll that fails (a partition, a reset) is retried until the deadline instead of
/// ending the wait; a job the printer aborted is submitted again, at most ``Policy/submissions`` times; a Print-Job
/// whose answer was lost is never sent again (it may have printed), so the outcome says so.
public struct PrintDesk: Sendable {
    /// How hard the desk tries.
    public struct Policy: Sendable {
        /// Print-Jobs sent in all, the first included.
        public var submissions = 3
        /// Wait between two polls of a job's state.
        public var pollInterval: Duration = .seconds(2)
        /// How long the desk follows one job before it stops waiting.
        public var jobDeadline: Duration = .seconds(600)

        /// The defaults: three submissions, a poll every 2 s, ten minutes a job.
        public init() {}
    }

    /// How a document's printing ended.
    public enum Outcome: Sendable, Equatable {
        /// The printer completed job `job`, after `submissions` Print-Jobs.
        case printed(job: Int32, submissions: Int)
        /// Nothing printed: every submission was refused, or aborted by the printer.
        case failed(reason: String, submissions: Int)
        /// The desk cannot tell: a Print-Job's answer was lost, or the job did not end before the deadline. The app
        /// shows the job list rather than printing again.
        case unknown(job: Int32?, reason: String)
    }

    let client: MiGClient
    let node: Node
    let policy: Policy

    /// A desk that prints to the MiG at `url` (`ipp://user:password@host:631/ipp/print`: the Basic account is the
    /// URL's) from `node`, the phone the app runs on.
    ///
    /// - throws: `MiGError` for a URL that is not a printer URL.
    public init(url: String, node: Node, policy: Policy = Policy()) throws {
        client = try MiGClient(configuration: .init(url: url), node: node)
        self.node = node
        self.policy = policy
    }

    /// Prints `document` and follows it to its end.
    public func print(_ document: Document) async -> Outcome {
        var lastFailure = "no submission"
        for submission in 1...policy.submissions {
            let job: SubmittedJob
            do {
                job = try await client.print(document)
            } catch {
                if case .answerLost = error { return .unknown(job: nil, reason: "\(error)") }
                lastFailure = "\(error)"
                continue
            }
            switch await follow(job.id) {
            case .completed: return .printed(job: job.id, submissions: submission)
            case .ended(let state): lastFailure = "job \(job.id) ended \(state)"
            case .lost(let reason): return .unknown(job: job.id, reason: reason)
            }
        }
        return .failed(reason: lastFailure, submissions: policy.submissions)
    }

    private enum JobEnd {
        case completed
        case ended(String)
        case lost(String)
    }

    /// Polls the job until it ends or the deadline passes; a failed poll is tried again at the next interval.
    private func follow(_ job: Int32) async -> JobEnd {
        let deadline = node.clock.now.advanced(by: policy.jobDeadline)
        var lastProblem = "no answer"
        while node.clock.now < deadline {
            do {
                let status = try await client.jobAttributes(job)
                switch status.state {
                case .completed?: return .completed
                case let state? where state.isFinal: return .ended(state.keyword)
                default: lastProblem = "still \(status.state?.keyword ?? "unknown")"
                }
            } catch {
                lastProblem = "\(error)"
            }
            // The clock is the node's: virtual time in the simulated world, the wall clock in the app.
            try? await node.clock.sleep(for: policy.pollInterval)
        }
        return .lost("job \(job) did not end within \(policy.jobDeadline): \(lastProblem)")
    }
}
