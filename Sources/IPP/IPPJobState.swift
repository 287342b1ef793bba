/// The `job-state` enum (RFC 8011 §5.3.7), shared by servers and clients.
public enum IPPJobState: Int32, Sendable, CaseIterable, CustomStringConvertible {
    case pending = 3
    case pendingHeld = 4
    case processing = 5
    case processingStopped = 6
    case canceled = 7
    case aborted = 8
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

    public var description: String { keyword }
}
