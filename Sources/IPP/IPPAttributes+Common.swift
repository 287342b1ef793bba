/// Names of the attributes that print clients and servers use most, so that
/// code spells them once (RFC 8011, PWG 5100.x).
public enum IPPAttributeName {
    /// `attributes-charset` (charset): the charset of the message's text and name values, the first operation attribute
    /// of every request and response (RFC 8011 §4.1.4).
    public static let attributesCharset = "attributes-charset"
    /// `attributes-natural-language` (naturalLanguage): the language of text and name values that carry none of their
    /// own, the second operation attribute of every request and response (RFC 8011 §4.1.4).
    public static let attributesNaturalLanguage = "attributes-natural-language"
    /// `printer-uri` (uri): the operation attribute naming the Printer a request is addressed to.
    public static let printerURI = "printer-uri"
    /// `job-uri` (uri): the URI of a Job, as a request's target or among the Job's own attributes.
    public static let jobURI = "job-uri"
    /// `job-id` (integer): the number a Printer gives a Job; with `printer-uri` it names the Job a request targets, and
    /// a Job-creating response returns it.
    public static let jobID = "job-id"
    /// `requesting-user-name` (name): the end user a client submits a request for, as the client knows them.
    public static let requestingUserName = "requesting-user-name"
    /// `job-name` (name): the name a user gives a Job, for display (a Print-Job or Create-Job operation attribute).
    public static let jobName = "job-name"
    /// `requested-attributes` (1setOf keyword): the attributes, or groups such as `all` and `job-template`, that a
    /// Get-Printer-Attributes, Get-Job-Attributes or Get-Jobs request wants returned.
    public static let requestedAttributes = "requested-attributes"
    /// `document-format` (mimeMediaType): the MIME media type of the document data, e.g. `application/pdf`.
    public static let documentFormat = "document-format"
    /// `document-name` (name): the name of the document a Print-Job or Send-Document request carries.
    public static let documentName = "document-name"
    /// `copies` (integer): the Job Template attribute saying how many copies of the Job to print.
    public static let copies = "copies"
    /// `sides` (keyword): the Job Template attribute saying how pages go on the sheets: `one-sided`,
    /// `two-sided-long-edge` or `two-sided-short-edge`.
    public static let sides = "sides"
    /// `media` (keyword or name): the Job Template attribute naming the media to print on, e.g. `iso_a4_210x297mm`.
    public static let media = "media"
    /// `media-col` (collection): the media to print on described by its properties (`media-size`, `media-type`,
    /// `media-source`…), the alternative to `media` (PWG 5100.7).
    public static let mediaCol = "media-col"
    /// `page-ranges` (1setOf rangeOfInteger): the Job Template attribute selecting the pages to print, numbered from 1.
    public static let pageRanges = "page-ranges"
    /// `ipp-attribute-fidelity` (boolean): true asks the Printer to reject a Job whose attributes it cannot all honour;
    /// false (the default) lets it ignore or substitute them.
    public static let ippAttributeFidelity = "ipp-attribute-fidelity"
    /// `compression` (keyword): how the document data is compressed, e.g. `none`, `gzip` or `deflate`.
    public static let compression = "compression"
    /// `last-document` (boolean): true in the Send-Document or Send-URI request that carries a Job's last document.
    public static let lastDocument = "last-document"
    /// `which-jobs` (keyword): which Jobs a Get-Jobs request lists, e.g. `not-completed` (the default) or `completed`.
    public static let whichJobs = "which-jobs"
    /// `my-jobs` (boolean): true asks Get-Jobs to list only the Jobs of the requesting user.
    public static let myJobs = "my-jobs"
    /// `limit` (integer): the most Jobs a Get-Jobs response may return.
    public static let limit = "limit"
    /// `status-message` (text): human-readable text in a response's operation group explaining its status-code.
    public static let statusMessage = "status-message"
    /// `job-state` (enum): the state of a Job, from `pending` (3) to `completed` (9); see ``IPPJobState``.
    public static let jobState = "job-state"
    /// `job-state-reasons` (1setOf keyword): details of a Job's state, e.g. `job-incoming` or
    /// `job-completed-successfully`.
    public static let jobStateReasons = "job-state-reasons"
    /// `printer-state` (enum): the state of a Printer: `idle` (3), `processing` (4) or `stopped` (5).
    public static let printerState = "printer-state"
    /// `printer-state-reasons` (1setOf keyword): details of a Printer's state, e.g. `media-empty`, or `none`.
    public static let printerStateReasons = "printer-state-reasons"
}

// MARK: Reading

extension IPPAttributeGroup {
    /// `attributes-charset` (charset), the first operation attribute.
    public var attributesCharset: String? { self[IPPAttributeName.attributesCharset]?.stringValue }
    /// `attributes-natural-language` (naturalLanguage), the second operation attribute.
    public var attributesNaturalLanguage: String? { self[IPPAttributeName.attributesNaturalLanguage]?.stringValue }
    /// `printer-uri` (uri): the printer a request targets.
    public var printerURI: String? { self[IPPAttributeName.printerURI]?.stringValue }
    /// `job-uri` (uri).
    public var jobURI: String? { self[IPPAttributeName.jobURI]?.stringValue }
    /// `job-id` (integer).
    public var jobID: Int32? { self[IPPAttributeName.jobID]?.integerValue }
    /// `requesting-user-name` (name).
    public var requestingUserName: String? { self[IPPAttributeName.requestingUserName]?.stringValue }
    /// `job-name` (name).
    public var jobName: String? { self[IPPAttributeName.jobName]?.stringValue }
    /// `requested-attributes` (1setOf keyword); nil when absent (meaning "all" for most operations).
    public var requestedAttributes: [String]? { self[IPPAttributeName.requestedAttributes]?.stringValues }
    /// `document-format` (mimeMediaType).
    public var documentFormat: String? { self[IPPAttributeName.documentFormat]?.stringValue }
    /// `document-name` (name).
    public var documentName: String? { self[IPPAttributeName.documentName]?.stringValue }
    /// `copies` (integer).
    public var copies: Int32? { self[IPPAttributeName.copies]?.integerValue }
    /// `sides` (keyword).
    public var sides: String? { self[IPPAttributeName.sides]?.stringValue }
    /// `media` (keyword or name).
    public var media: String? { self[IPPAttributeName.media]?.stringValue }
    /// `page-ranges` (1setOf rangeOfInteger).
    public var pageRanges: [IPPRange]? {
        self[IPPAttributeName.pageRanges]?.valueViews.compactMap { value in
            if case .rangeOfInteger(let range) = value { return range }
            return nil
        }
    }
    /// `ipp-attribute-fidelity` (boolean).
    public var ippAttributeFidelity: Bool? { self[IPPAttributeName.ippAttributeFidelity]?.booleanValue }
    /// `compression` (keyword).
    public var compression: String? { self[IPPAttributeName.compression]?.stringValue }
    /// `last-document` (boolean).
    public var lastDocument: Bool? { self[IPPAttributeName.lastDocument]?.booleanValue }
    /// `which-jobs` (keyword).
    public var whichJobs: String? { self[IPPAttributeName.whichJobs]?.stringValue }
    /// `my-jobs` (boolean).
    public var myJobs: Bool? { self[IPPAttributeName.myJobs]?.booleanValue }
    /// `limit` (integer).
    public var limit: Int32? { self[IPPAttributeName.limit]?.integerValue }
    /// `status-message` (text).
    public var statusMessage: String? { self[IPPAttributeName.statusMessage]?.stringValue }
}

extension IPPMessage {
    /// Operation attributes: `attributes-charset`.
    public var attributesCharset: String? { operationAttributes?.attributesCharset }
    /// Operation attributes: `attributes-natural-language`.
    public var attributesNaturalLanguage: String? { operationAttributes?.attributesNaturalLanguage }
    /// Operation attributes: `printer-uri`.
    public var printerURI: String? { operationAttributes?.printerURI }
    /// Operation attributes: `job-uri`.
    public var jobURI: String? { operationAttributes?.jobURI }
    /// Operation attributes, else the first job group (where responses put it): `job-id`.
    public var jobID: Int32? { operationAttributes?.jobID ?? group(.job)?.jobID }
    /// Operation attributes: `requesting-user-name`.
    public var requestingUserName: String? { operationAttributes?.requestingUserName }
    /// Operation attributes (Print-Job, Create-Job): `job-name`.
    public var jobName: String? { operationAttributes?.jobName }
    /// Operation attributes: `requested-attributes`.
    public var requestedAttributes: [String]? { operationAttributes?.requestedAttributes }
    /// Operation attributes: `document-format`.
    public var documentFormat: String? { operationAttributes?.documentFormat }
    /// Operation attributes: `ipp-attribute-fidelity`.
    public var ippAttributeFidelity: Bool? { operationAttributes?.ippAttributeFidelity }
    /// Operation attributes: `compression`.
    public var compression: String? { operationAttributes?.compression }
    /// Operation attributes: `status-message`.
    public var statusMessage: String? { operationAttributes?.statusMessage }
    /// Job template attributes (first job group): `copies`.
    public var copies: Int32? { group(.job)?.copies }
    /// Job template attributes (first job group): `sides`.
    public var sides: String? { group(.job)?.sides }
    /// Job template attributes (first job group): `media`.
    public var media: String? { group(.job)?.media }
    /// Job template attributes (first job group): `page-ranges`.
    public var pageRanges: [IPPRange]? { group(.job)?.pageRanges }
}

// MARK: Building

extension IPPGroupBuilder {
    /// Adds `printer-uri` (uri).
    public mutating func addPrinterURI(_ uri: String) { add(IPPAttributeName.printerURI, .uri(uri)) }
    /// Adds `job-uri` (uri).
    public mutating func addJobURI(_ uri: String) { add(IPPAttributeName.jobURI, .uri(uri)) }
    /// Adds `job-id` (integer).
    public mutating func addJobID(_ id: Int32) { add(IPPAttributeName.jobID, .integer(id)) }
    /// Adds `requesting-user-name` (name).
    public mutating func addRequestingUserName(_ name: String) {
        add(IPPAttributeName.requestingUserName, .name(name))
    }
    /// Adds `job-name` (name).
    public mutating func addJobName(_ name: String) { add(IPPAttributeName.jobName, .name(name)) }
    /// Adds `requested-attributes` (1setOf keyword).
    public mutating func addRequestedAttributes(_ names: [String]) {
        add(IPPAttributeName.requestedAttributes, values: names.map(IPPValue.keyword))
    }
    /// Adds `document-format` (mimeMediaType).
    public mutating func addDocumentFormat(_ format: String) {
        add(IPPAttributeName.documentFormat, .mimeMediaType(format))
    }
    /// Adds `copies` (integer).
    public mutating func addCopies(_ copies: Int32) { add(IPPAttributeName.copies, .integer(copies)) }
    /// Adds `sides` (keyword).
    public mutating func addSides(_ sides: String) { add(IPPAttributeName.sides, .keyword(sides)) }
    /// Adds `media` (keyword).
    public mutating func addMedia(_ media: String) { add(IPPAttributeName.media, .keyword(media)) }
    /// Adds `page-ranges` (1setOf rangeOfInteger).
    public mutating func addPageRanges(_ ranges: [IPPRange]) {
        add(IPPAttributeName.pageRanges, values: ranges.map(IPPValue.rangeOfInteger))
    }
    /// Adds `ipp-attribute-fidelity` (boolean).
    public mutating func addIPPAttributeFidelity(_ fidelity: Bool) {
        add(IPPAttributeName.ippAttributeFidelity, .boolean(fidelity))
    }
    /// Adds `compression` (keyword).
    public mutating func addCompression(_ compression: String) {
        add(IPPAttributeName.compression, .keyword(compression))
    }
    /// Adds `last-document` (boolean).
    public mutating func addLastDocument(_ last: Bool) { add(IPPAttributeName.lastDocument, .boolean(last)) }
}
