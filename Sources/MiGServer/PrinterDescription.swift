import CivilDate
import IPP

/// What the printer behind MiG is and supports: the static part of its Get-Printer-Attributes answer.
public struct PrinterDescription: Sendable {
    public var name = "MiG"
    public var info = "Dispatcher Paragon Mobile Integration Gateway"
    public var makeAndModel = "Dispatcher Paragon MiG (Workbench simulation)"
    public var location = "Workbench lab"
    public var organization = "Workbench"
    public var organizationalUnit = "Print services"
    /// `printer-uuid`; nil: MiG derives a stable one from its host and name.
    public var uuid: String?
    public var documentFormats = [
        "application/octet-stream", "application/pdf", "application/postscript", "image/jpeg", "image/pwg-raster", "image/urf",
    ]
    public var media = ["iso_a4_210x297mm", "iso_a3_297x420mm", "na_letter_8.5x11in", "na_legal_8.5x14in"]
    public var mediaDefault = "iso_a4_210x297mm"
    /// The size of each `media`, in hundredths of a millimetre (PWG 5101.1): what media-col names.
    public var mediaSizes: [String: (width: Int32, length: Int32)] = [
        "iso_a4_210x297mm": (21_000, 29_700), "iso_a3_297x420mm": (29_700, 42_000),
        "na_letter_8.5x11in": (21_590, 27_940), "na_legal_8.5x14in": (21_590, 35_560),
    ]
    /// The one tray and the one paper the simulated printer has; its unprintable edge on every side (1/6 inch,
    /// in hundredths of a millimetre).
    public var mediaSource = "main"
    public var mediaType = "stationery"
    /// `auto` lets the printer choose, which with one tray and one paper is always the above.
    var mediaSources: [String] { ["auto", mediaSource] }
    var mediaTypes: [String] { ["auto", mediaType] }
    public var mediaMargin: Int32 = 423
    public var sides = ["one-sided", "two-sided-long-edge", "two-sided-short-edge"]
    public var compressions = ["none", "gzip"]
    public var maxCopies: Int32 = 999
    /// Printing speed; a page takes 60 / pagesPerMinute seconds on the printer's clock.
    public var pagesPerMinute: Int32 = 60
    /// Document bytes that make one page of a document whose pages cannot be counted from its content.
    public var bytesPerPage: Int64 = 100_000
    /// Largest document accepted.
    public var maxDocumentBytes: Int64 = 4 << 30

    public init() {}

    /// How long a job made by Create-Job waits for its next Send-Document (or Close-Job) before it is aborted
    /// (`multiple-operation-time-out`, action `abort-job`), in seconds of the printer's clock.
    public var multipleOperationTimeOut: Int32 = 60

    /// A print-release gateway: every job waits (pending-held) until Release-Job, as secure-print gateways keep a job
    /// until its owner releases it at the printer. job-hold-until-default is then `indefinite` and `no-hold` is not
    /// offered: a job that asks for it is held all the same, and told so in the unsupported-attributes group.
    public var holdByDefault = false

    /// `job-hold-until` values: a job is printed at once or held until Release-Job. (The time-of-day values need a
    /// local calendar the simulated printer does not keep, so they are not offered.)
    var holdValues: [String] { holdByDefault ? ["indefinite"] : ["no-hold", "indefinite"] }
    static let whichJobs = ["completed", "not-completed", "aborted", "all", "canceled", "pending", "pending-held", "processing"]
    static let operations: [IPPOperation] = [
        .printJob, .validateJob, .createJob, .sendDocument, .cancelJob, .getJobAttributes, .getJobs,
        .getPrinterAttributes, .holdJob, .releaseJob, .cancelMyJobs, .closeJob, .identifyPrinter,
    ]
    /// Every attribute a creation request may carry that the printer honours or reports back: the operation
    /// attributes it reads and each job-template attribute of `template`, plus media-col.
    static let jobCreationAttributes =
        (["document-format", "document-name", "ipp-attribute-fidelity", "job-name", "media-col", "overrides"]
        + PrinterDescription().template.map(\.name)).sorted()
}

extension PrinterDescription {
    /// The job-template attributes a job may ask for: the default the printer applies and every value it accepts.
    /// The ticket accepts a value only when it is listed here, and Get-Job-Attributes reports each accepted one.
    /// (`page-ranges` and `media-col` are checked by the ticket itself: a boolean and a collection.)
    var template: [(name: String, default: IPPValue?, supported: [IPPValue])] {
        let keywords = { (list: [String]) in list.map(IPPValue.keyword) }
        let resolution = IPPValue.resolution(IPPResolution(crossFeed: 600, feed: 600))
        return [
            ("copies", .integer(1), [.rangeOfInteger(IPPRange(1, maxCopies))]),
            ("finishings", .enumValue(3), [.enumValue(3)]),
            ("job-hold-until", .keyword(holdByDefault ? "indefinite" : "no-hold"), keywords(holdValues)),
            // One priority level: every job-priority 1…100 is accepted and all print in arrival order.
            ("job-priority", .integer(50), [.integer(1)]),
            ("job-sheets", .name("none"), [.name("none")]),
            ("media", .keyword(mediaDefault), keywords(media)),
            (
                "multiple-document-handling", .keyword("separate-documents-collated-copies"),
                keywords(["separate-documents-uncollated-copies", "separate-documents-collated-copies"])
            ),
            ("number-up", .integer(1), [1, 2, 4].map(IPPValue.integer)),
            ("orientation-requested", .enumValue(3), [3, 4, 5, 6].map(IPPValue.enumValue)),
            ("output-bin", .keyword("face-down"), [.keyword("face-down")]),
            ("page-ranges", nil, [.boolean(true)]),
            ("print-color-mode", .keyword("monochrome"), keywords(["auto", "monochrome"])),
            ("print-content-optimize", .keyword("auto"), keywords(["auto", "graphic", "photo", "text", "text-and-graphic"])),
            ("print-quality", .enumValue(4), [3, 4, 5].map(IPPValue.enumValue)),
            ("print-rendering-intent", .keyword("auto"), keywords(["auto"])),
            ("printer-resolution", resolution, [resolution]),
            ("sides", .keyword("one-sided"), keywords(sides)),
        ]
    }
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
    /// When the printer's configuration last changed: when it started (nothing changes it while it runs).
    var configChangeTime: Int64
    /// Pages printed since the toner was new (the spool's whole history): what printer-supply's level falls with.
    var pagesPrinted: Int64
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
            ("document-format-default", .description, [.mimeMediaType("application/octet-stream")]),
            ("document-format-supported", .description, documentFormats.map(IPPValue.mimeMediaType)),
            ("generated-natural-language-supported", .description, [.naturalLanguage("en")]),
            ("identify-actions-default", .description, [.keyword("display")]),
            ("identify-actions-supported", .description, keywords(["display", "sound"])),
            ("ipp-features-supported", .description, keywords(["ipp-everywhere"])),
            ("ipp-versions-supported", .description, keywords(["1.0", "1.1", "2.0"])),
            ("job-creation-attributes-supported", .description, keywords(Self.jobCreationAttributes)),
            ("job-ids-supported", .description, [.boolean(true)]),
            ("mopria-certified", .description, [.text("2.1")]),
            ("multiple-document-jobs-supported", .description, [.boolean(false)]),
            ("multiple-operation-time-out", .description, [.integer(multipleOperationTimeOut)]),
            ("multiple-operation-time-out-action", .description, [.keyword("abort-job")]),
            ("natural-language-configured", .description, [.naturalLanguage("en")]),
            ("operations-supported", .description, Self.operations.map { .enumValue(Int32($0.rawValue)) }),
            ("pages-per-minute", .description, [.integer(pagesPerMinute)]),
            ("pdl-override-supported", .description, [.keyword("attempted")]),
            ("printer-current-time", .description, [.dateTime(status.now)]),
            ("printer-info", .description, [.text(info)]),
            ("printer-is-accepting-jobs", .description, [.boolean(true)]),
            ("printer-location", .description, [.text(location)]),
            ("printer-make-and-model", .description, [.text(makeAndModel)]),
            ("printer-more-info", .description, [.uri(address.moreInfo)]),
            ("printer-name", .description, [.name(name)]),
            ("printer-state", .description, [.enumValue(status.state)]),
            ("printer-state-change-time", .description, [.integer(Int32(clamping: status.stateChangeTime))]),
            ("printer-state-message", .description, [.text(status.message)]),
            ("printer-state-reasons", .description, keywords(status.reasons)),
            ("printer-up-time", .description, [.integer(Int32(clamping: status.upTime))]),
            ("printer-uri-supported", .description, [.uri(address.printerURI)]),
            ("queued-job-count", .description, [.integer(Int32(clamping: status.queuedJobs))]),
            ("uri-authentication-supported", .description, [.keyword("basic")]),
            ("uri-security-supported", .description, [.keyword(address.scheme == "ipps" ? "tls" : "none")]),
            ("which-jobs-supported", .description, keywords(Self.whichJobs)),
        ]
        for entry in template {
            if let value = entry.default { list.append(("\(entry.name)-default", .template, [value])) }
            list.append(("\(entry.name)-supported", .template, entry.supported))
        }
        list.append(("media-ready", .template, [.keyword(mediaDefault)]))
        list += everywhereAttributes(status: status, address: address)
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
        let (date, secondsOfDay) = CivilDate.split(unixSeconds: unixSeconds)
        self.init(
            year: UInt16(clamping: date.year), month: UInt8(date.month), day: UInt8(date.day),
            hour: UInt8(secondsOfDay / 3600), minutes: UInt8(secondsOfDay / 60 % 60), seconds: UInt8(secondsOfDay % 60))
    }
}
