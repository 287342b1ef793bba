import IPP

/// What the printer behind MiG is and supports: the static part of its Get-Printer-Attributes answer.
public struct PrinterDescription: Sendable {
    public var name = "MiG"
    public var info = "Dispatcher Paragon Mobile Integration Gateway"
    public var makeAndModel = "Dispatcher Paragon MiG (Workbench simulation)"
    public var location = "Workbench lab"
    public var documentFormats = ["application/octet-stream", "application/pdf", "application/postscript", "image/jpeg", "image/pwg-raster"]
    public var media = ["iso_a4_210x297mm", "iso_a3_297x420mm", "na_letter_8.5x11in", "na_legal_8.5x14in"]
    public var mediaDefault = "iso_a4_210x297mm"
    public var sides = ["one-sided", "two-sided-long-edge", "two-sided-short-edge"]
    public var compressions = ["none", "gzip"]
    public var maxCopies: Int32 = 999
    /// Printing speed; a page takes 60 / pagesPerMinute seconds on the printer's clock.
    public var pagesPerMinute: Int32 = 60
    /// Document bytes that make one page (the simulation does not render documents).
    public var bytesPerPage: Int64 = 100_000
    /// Largest document accepted.
    public var maxDocumentBytes: Int64 = 4 << 30

    public init() {}

    static let printQualities: [Int32] = [3, 4, 5]
    static let orientations: [Int32] = [3, 4, 5, 6]
    static let whichJobs = ["completed", "not-completed", "aborted", "all", "canceled", "pending", "processing"]
    static let operations: [IPPOperation] = [
        .printJob, .validateJob, .createJob, .sendDocument, .cancelJob, .getJobAttributes, .getJobs,
        .getPrinterAttributes, .cancelMyJobs, .closeJob, .identifyPrinter,
    ]
}

/// The dynamic part of the printer's answer.
struct PrinterStatus {
    var state: Int32
    var reasons: [String]
    var message: String
    var queuedJobs: Int
    var upTime: Int64
    var now: IPPDateTime
    var stateChangeTime: Int64
}

/// How the client reached the printer: printer-uri-supported and job URIs echo it, as CUPS does.
public struct PrinterAddress: Sendable {
    /// `ipp` or `ipps`.
    public var scheme: String
    /// `host:port` as the client named it (its Host header).
    public var authority: String
    public var path = "/ipp/print"

    public init(scheme: String, authority: String) {
        self.scheme = scheme
        self.authority = authority
    }

    public var printerURI: String { "\(scheme)://\(authority)\(path)" }
    public func jobURI(_ id: Int64) -> String { "\(printerURI)/\(id)" }
    var moreInfo: String { "\(scheme == "ipps" ? "https" : "http")://\(authority)/" }
}

extension PrinterDescription {
    /// Every printer attribute, in a stable order, with the groups `requested-attributes` may name.
    func attributes(status: PrinterStatus, address: PrinterAddress) -> [(name: String, group: AttributeGroup, values: [IPPValue])] {
        let keywords = { (list: [String]) in list.map(IPPValue.keyword) }
        var list: [(String, AttributeGroup, [IPPValue])] = [
            ("charset-configured", .description, [.charset("utf-8")]),
            ("charset-supported", .description, [.charset("us-ascii"), .charset("utf-8")]),
            ("color-supported", .description, [.boolean(false)]),
            ("compression-supported", .description, keywords(compressions)),
            ("copies-default", .template, [.integer(1)]),
            ("copies-supported", .template, [.rangeOfInteger(IPPRange(1, maxCopies))]),
            ("document-format-default", .description, [.mimeMediaType("application/octet-stream")]),
            ("document-format-supported", .description, documentFormats.map(IPPValue.mimeMediaType)),
            ("finishings-default", .template, [.enumValue(3)]),
            ("finishings-supported", .template, [.enumValue(3)]),
            ("generated-natural-language-supported", .description, [.naturalLanguage("en")]),
            ("identify-actions-default", .description, [.keyword("display")]),
            ("identify-actions-supported", .description, keywords(["display", "sound"])),
            ("ipp-features-supported", .description, keywords(["ipp-everywhere"])),
            ("ipp-versions-supported", .description, keywords(["1.0", "1.1", "2.0"])),
            ("job-creation-attributes-supported", .description, keywords(["copies", "document-format", "document-name", "ipp-attribute-fidelity", "job-name", "media", "orientation-requested", "page-ranges", "print-quality", "sides"])),
            ("job-ids-supported", .description, [.boolean(true)]),
            ("job-priority-default", .template, [.integer(50)]),
            ("job-priority-supported", .template, [.integer(1)]),
            ("job-sheets-default", .template, [.name("none")]),
            ("job-sheets-supported", .template, [.name("none")]),
            ("media-default", .template, [.keyword(mediaDefault)]),
            ("media-ready", .template, [.keyword(mediaDefault)]),
            ("media-supported", .template, keywords(media)),
            ("mopria-certified", .description, [.text("2.1")]),
            ("multiple-document-handling-supported", .template, keywords(["separate-documents-uncollated-copies", "separate-documents-collated-copies"])),
            ("multiple-document-jobs-supported", .description, [.boolean(false)]),
            ("multiple-operation-time-out", .description, [.integer(60)]),
            ("multiple-operation-time-out-action", .description, [.keyword("abort-job")]),
            ("natural-language-configured", .description, [.naturalLanguage("en")]),
            ("number-up-default", .template, [.integer(1)]),
            ("number-up-supported", .template, [.integer(1)]),
            ("operations-supported", .description, Self.operations.map { .enumValue(Int32($0.rawValue)) }),
            ("orientation-requested-default", .template, [.enumValue(3)]),
            ("orientation-requested-supported", .template, Self.orientations.map(IPPValue.enumValue)),
            ("output-bin-default", .template, [.keyword("face-down")]),
            ("output-bin-supported", .template, [.keyword("face-down")]),
            ("page-ranges-supported", .template, [.boolean(true)]),
            ("pages-per-minute", .description, [.integer(pagesPerMinute)]),
            ("pdl-override-supported", .description, [.keyword("attempted")]),
            ("print-color-mode-default", .template, [.keyword("monochrome")]),
            ("print-color-mode-supported", .template, keywords(["auto", "monochrome"])),
            ("print-quality-default", .template, [.enumValue(4)]),
            ("print-quality-supported", .template, Self.printQualities.map(IPPValue.enumValue)),
            ("printer-current-time", .description, [.dateTime(status.now)]),
            ("printer-info", .description, [.text(info)]),
            ("printer-is-accepting-jobs", .description, [.boolean(true)]),
            ("printer-location", .description, [.text(location)]),
            ("printer-make-and-model", .description, [.text(makeAndModel)]),
            ("printer-more-info", .description, [.uri(address.moreInfo)]),
            ("printer-name", .description, [.name(name)]),
            ("printer-resolution-default", .template, [.resolution(IPPResolution(crossFeed: 600, feed: 600))]),
            ("printer-resolution-supported", .template, [.resolution(IPPResolution(crossFeed: 600, feed: 600))]),
            ("printer-state", .description, [.enumValue(status.state)]),
            ("printer-state-change-time", .description, [.integer(Int32(clamping: status.stateChangeTime))]),
            ("printer-state-message", .description, [.text(status.message)]),
            ("printer-state-reasons", .description, keywords(status.reasons)),
            ("printer-up-time", .description, [.integer(Int32(clamping: status.upTime))]),
            ("printer-uri-supported", .description, [.uri(address.printerURI)]),
            ("queued-job-count", .description, [.integer(Int32(clamping: status.queuedJobs))]),
            ("sides-default", .template, [.keyword("one-sided")]),
            ("sides-supported", .template, keywords(sides)),
            ("uri-authentication-supported", .description, [.keyword("basic")]),
            ("uri-security-supported", .description, [.keyword(address.scheme == "ipps" ? "tls" : "none")]),
            ("which-jobs-supported", .description, keywords(Self.whichJobs)),
        ]
        list.sort { $0.0 < $1.0 }
        return list.map { (name: $0.0, group: $0.1, values: $0.2) }
    }
}

/// The groups of attributes `requested-attributes` can name besides single names.
enum AttributeGroup {
    case description, template
}

extension IPPDateTime {
    /// The calendar date of a Unix time, in UTC.
    init(unixSeconds: Int64) {
        // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondsOfDay = unixSeconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        self.init(year: UInt16(clamping: year), month: UInt8(month), day: UInt8(day),
                  hour: UInt8(secondsOfDay / 3600), minutes: UInt8(secondsOfDay / 60 % 60), seconds: UInt8(secondsOfDay % 60))
    }
}
