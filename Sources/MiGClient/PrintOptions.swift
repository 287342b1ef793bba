import IPP

/// Job settings of one print, and how its body goes on the wire.
public struct PrintOptions: Sendable {
    /// `job-name`; defaults to the document's name.
    public var jobName: String?
    /// `copies` (job template).
    public var copies: Int32
    /// `sides`: `one-sided`, `two-sided-long-edge`, `two-sided-short-edge`.
    public var sides: String
    /// `media`, e.g. `iso_a4_210x297mm`; nil leaves the printer's default.
    public var media: String?
    /// `page-ranges`; empty prints every page.
    public var pageRanges: [ClosedRange<Int32>]
    /// `number-up`: pages on each side of a sheet; 1 (the printer's default) is not sent.
    public var numberUp: Int32
    /// `job-hold-until`, e.g. `indefinite`: the printer keeps the job until Release-Job; nil prints at once.
    public var holdUntil: String?
    /// `document-format`; defaults to the document's format, else `application/octet-stream`.
    public var documentFormat: String?
    /// `ipp-attribute-fidelity`: true makes the printer reject the job rather than ignore an unsupported option.
    public var fidelity: Bool
    /// `requesting-user-name`; defaults to the configuration's, then the Basic user.
    public var requestingUserName: String?
    /// How the request body is framed.
    public var framing: BodyFraming
    /// Send `Expect: 100-continue` and hold the document until the server agrees (or
    /// `Timeouts.expectContinue` passes): a wrong password is then answered before a large upload.
    public var expectContinue: Bool
    /// `compression`: gzip the document while sending it (needs `.chunked` framing). Progress then counts
    /// compressed bytes, with no total.
    public var compression: DocumentCompression
    /// Which attributes the Print-Job carries: `.complete` by default; `.original` to reproduce the original app.
    public var attributeSet: AttributeSet

    /// Options for one print; by default one one-sided copy of every page, with fidelity and the complete attribute set,
    /// sent chunked, uncompressed and with `Expect: 100-continue`.
    public init(
        jobName: String? = nil, copies: Int32 = 1, sides: String = "one-sided", media: String? = nil,
        pageRanges: [ClosedRange<Int32>] = [], documentFormat: String? = nil, fidelity: Bool = true,
        requestingUserName: String? = nil, framing: BodyFraming = .chunked, expectContinue: Bool = true,
        compression: DocumentCompression = .none, attributeSet: AttributeSet = .complete, holdUntil: String? = nil,
        numberUp: Int32 = 1
    ) {
        self.jobName = jobName
        self.copies = copies
        self.sides = sides
        self.media = media
        self.pageRanges = pageRanges
        self.documentFormat = documentFormat
        self.fidelity = fidelity
        self.requestingUserName = requestingUserName
        self.framing = framing
        self.expectContinue = expectContinue
        self.compression = compression
        self.attributeSet = attributeSet
        self.holdUntil = holdUntil
        self.numberUp = numberUp
    }

    /// Adds the job template attributes (`copies`, `sides`, `media`, `page-ranges`, `number-up`, `job-hold-until`) to
    /// a job group.
    func addJobTemplate(to group: inout IPPGroupBuilder) {
        group.addCopies(copies)
        group.addSides(sides)
        if let media { group.addMedia(media) }
        if !pageRanges.isEmpty { group.addPageRanges(pageRanges.map(IPPRange.init)) }
        if numberUp != 1 { group.add("number-up", .integer(numberUp)) }
        if let holdUntil { group.add("job-hold-until", .keyword(holdUntil)) }
    }
}

/// The attributes a Print-Job carries.
public enum AttributeSet: Sendable, Equatable {
    /// What RFC 8011 requires of every request and IPP Everywhere printers expect: IPP/2.0, utf-8,
    /// `printer-uri`, `requesting-user-name`, `job-name`, `ipp-attribute-fidelity`, `document-format`, then the
    /// job template (`copies`, `sides`, `media`, `page-ranges`).
    case complete
    /// Exactly what the original app's serialiser writes (Fixtures/ipp/original-000-print-job-request.ipp): IPP/1.1,
    /// request-id 1, `us-ascii`, `en-us`, `job-name`, `ipp-attribute-fidelity`; then `copies` and `sides`.
    /// There is no `printer-uri`, so MiG — like any IPP server — answers HTTP 200 with IPP
    /// `client-error-bad-request` and creates no job. The client reports that error: HTTP 200 alone, the
    /// original app's "job was accepted", is not success.
    case original
}

/// HTTP framing of a request body.
public enum BodyFraming: Sendable, Equatable {
    /// `Transfer-Encoding: chunked` (what Android's print service and ipptool send by default).
    case chunked
    /// `Content-Length` (the document size must be known; it is for every `Document`).
    case contentLength
}

/// A job MiG accepted.
public struct SubmittedJob: Sendable, Equatable {
    /// The `job-id` MiG gave the job, to ask about it later (`MiGClient.jobAttributes(_:countingSheets:)`).
    public let id: Int32
    /// The job's `job-uri`, when the answer carried one.
    public let uri: String?
    /// The job's `job-state` when it was accepted; nil when the answer had none or an unknown value.
    public let state: IPPJobState?
    /// The job's `job-state-reasons` when it was accepted; empty when the answer had none.
    public let stateReasons: [String]
    /// `successful-ok`, or `successful-ok-ignored-or-substituted-attributes` when an option was not honoured.
    public let status: IPPStatus
    /// How many attempts the upload took (1 unless the printer was busy or the connection dropped).
    public let attempts: Int
    /// Document bytes sent in the successful attempt (compressed bytes when gzip was used).
    public let bytesSent: Int64
}

/// What Get-Job-Attributes says about a job.
public struct JobStatus: Sendable, Equatable {
    /// The job's `job-id`: the answer's, else the one asked about.
    public let id: Int32
    /// The job's `job-state` (pending, processing, completed, …); nil when the answer had none or an unknown value.
    public let state: IPPJobState?
    /// `job-state-reasons`, e.g. `job-printing`, `media-empty`, `job-completed-successfully`.
    public let stateReasons: [String]
    /// The `job-state-message`, a text for people, when the printer gives one.
    public let stateMessage: String?
    /// The `job-name`, when the answer carries it.
    public let name: String?
    /// `job-impressions-completed`: the impressions printed so far (an impression holds `number-up` pages).
    public let impressionsCompleted: Int32?
    /// `job-media-sheets-completed`: the sheets printed so far (two impressions a sheet when two-sided); nil unless
    /// asked for (`countingSheets`).
    public let mediaSheetsCompleted: Int32?

    init(id: Int32, job group: IPPAttributeGroup?) {
        self.id = group?.jobID ?? id
        state = group?[IPPAttributeName.jobState]?.integerValue.flatMap(IPPJobState.init(rawValue:))
        stateReasons = group?[IPPAttributeName.jobStateReasons]?.stringValues ?? []
        stateMessage = group?["job-state-message"]?.stringValue
        name = group?[IPPAttributeName.jobName]?.stringValue
        impressionsCompleted = group?["job-impressions-completed"]?.integerValue
        mediaSheetsCompleted = group?["job-media-sheets-completed"]?.integerValue
    }
}

/// The printer as Get-Printer-Attributes describes it; `attributes` has everything it returned.
public struct PrinterDescription: Sendable {
    /// The answer's printer attributes group, whole: for what the properties below do not read.
    public let attributes: IPPAttributeGroup
    /// The `printer-name`, when the printer gives one.
    public var name: String? { attributes["printer-name"]?.stringValue }
    /// 3 idle, 4 processing, 5 stopped.
    public var state: Int32? { attributes[IPPAttributeName.printerState]?.integerValue }
    /// e.g. `none`, `media-empty-error`.
    public var stateReasons: [String] { attributes[IPPAttributeName.printerStateReasons]?.stringValues ?? [] }
    /// `printer-is-accepting-jobs`: whether the printer takes new jobs now; nil when it does not say.
    public var isAcceptingJobs: Bool? { attributes["printer-is-accepting-jobs"]?.booleanValue }
    /// `document-format-supported`: the MIME types the printer takes; empty when it does not say.
    public var documentFormats: [String] { attributes["document-format-supported"]?.stringValues ?? [] }
}

/// The answer to Validate-Job.
public struct ValidationResult: Sendable, Equatable {
    /// `successful-ok` or `successful-ok-ignored-or-substituted-attributes`.
    public let status: IPPStatus
    /// Names of the attributes the printer returned as unsupported.
    public let unsupportedAttributes: [String]

    /// The answer's `status` and the names of the attributes it returned as unsupported.
    public init(status: IPPStatus, unsupportedAttributes: [String]) {
        self.status = status
        self.unsupportedAttributes = unsupportedAttributes
    }
}
