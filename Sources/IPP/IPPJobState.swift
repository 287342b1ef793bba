/// The `job-state` enum (RFC 8011 §5.3.7), shared by servers and clients.
public enum IPPJobState: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// `pending` (3): the Job is a candidate to start processing but is not processing yet.
    case pending = 3
    /// `pending-held` (4): the Job is not a candidate for processing until it is released, e.g. held by
    /// `job-hold-until` or a Hold-Job; `job-state-reasons` says why.
    case pendingHeld = 4
    /// `processing` (5): the Printer is processing the Job: interpreting, printing or finishing it.
    case processing = 5
    /// `processing-stopped` (6): the Job was processing and has stopped, e.g. because the Printer stopped (a paper
    /// jam); the state reasons say why.
    case processingStopped = 6
    /// `canceled` (7): the Job was canceled by its user or an operator (Cancel-Job); a final state.
    case canceled = 7
    /// `aborted` (8): the system aborted the Job, typically because of an error; a final state.
    case aborted = 8
    /// `completed` (9): the Job has finished processing, successfully or with warnings or errors; a final state.
    case completed = 9

    /// Whether the job has ended: canceled, aborted or completed.
    public var isFinal: Bool { rawValue >= IPPJobState.canceled.rawValue }

    /// The keyword form (`processing-stopped`), as `which-jobs` and traces use it.
    public var keyword: String {
        switch self {
        case .pending: "pending"
        case .pendingHeld: "pending-held"
        case .processing: "processing"
        case .processingStopped: "processing-stopped"
        case .canceled: "canceled"
        case .aborted: "aborted"
        case .completed: "completed"
        }
    }

    /// The state's RFC 8011 keyword (``keyword``), e.g. `pending-held`.
    public var description: String { keyword }
}
