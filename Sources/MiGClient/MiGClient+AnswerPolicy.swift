import IPP

extension MiGClient {
    /// How the client reads the two answers that decide whether a document was submitted once, and only once.
    ///
    /// An app keeps ``standard``. The value is a seam for the workbench's swarm, which gives a client a realistic
    /// misreading through it to prove that its invariants catch one; the client's own code has no such branch.
    public struct AnswerPolicy: Sendable {
        /// Whether a Print-Job answer whose IPP status is not a success still counts as a submitted job.
        public var acceptsUnsuccessfulPrintJob: @Sendable (_ answer: IPPMessage) -> Bool
        /// Whether a request that changes the spool is sent again after its answer was lost (MiG may have acted on it),
        /// told whether MiG answered an earlier attempt of the same request server-error-busy (which proves only that
        /// *that* attempt queued nothing).
        public var repeatsUnansweredChange: @Sendable (_ answeredBusyBefore: Bool) -> Bool

        /// A policy from its two readings; an app uses ``AnswerPolicy/standard`` rather than making one.
        public init(
            acceptsUnsuccessfulPrintJob: @escaping @Sendable (_ answer: IPPMessage) -> Bool,
            repeatsUnansweredChange: @escaping @Sendable (_ answeredBusyBefore: Bool) -> Bool
        ) {
            self.acceptsUnsuccessfulPrintJob = acceptsUnsuccessfulPrintJob
            self.repeatsUnansweredChange = repeatsUnansweredChange
        }

        /// What an app ships: only a success is a submitted job, and nothing that changes the spool is sent twice.
        public static let standard = AnswerPolicy(acceptsUnsuccessfulPrintJob: { _ in false }, repeatsUnansweredChange: { _ in false })
    }
}
