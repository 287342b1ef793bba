import IPP

/// Job creation requests: the job template they ask for, checked against what the printer supports.
extension MiGPrinter {
    /// The job template a creation request asks for, checked against what the printer supports.
    struct Ticket {
        var name = "Untitled"
        var format = "application/octet-stream"
        var compression = "none"
        var copies: Int32 = 1
        var sides = "one-sided"
        var media: String
        var pageRanges: [IPPRange] = []
        /// Every other job-template value accepted, reported back by Get-Job-Attributes.
        var template = JobTemplate()
        /// Attributes or values the printer does not support, echoed in the unsupported-attributes group.
        var unsupported: [IPPAttribute] = []
        var unsupportedNames: [String] = []
        var fidelity = false
    }

    /// Job-template attribute names: an unsupported value of one of these is echoed whole in the
    /// unsupported-attributes group; an unknown attribute is echoed as `unsupported` (RFC 8011 §4.1.7).
    static let knownTemplateAttributes: Set<String> = Set(PrinterDescription().template.map(\.name) + ["media-col", "overrides"])

    func ticket(for request: IPPMessage) throws(Refusal) -> Ticket {
        var ticket = Ticket(media: description.mediaDefault)
        let operation = request.operationAttributes
        ticket.fidelity = request.ippAttributeFidelity ?? false
        if let name = request.jobName ?? operation?.documentName { ticket.name = name }
        if let format = request.documentFormat {
            guard description.documentFormats.contains(format) else {
                throw Refusal(
                    response: unsupportedResponse(
                        request, .documentFormatNotSupported,
                        "Document format \(format) is not supported; expected one of \(description.documentFormats.joined(separator: ", ")).",
                        operation?[IPPAttributeName.documentFormat]))
            }
            ticket.format = format
        }
        if let compression = request.compression {
            guard description.compressions.contains(compression) else {
                throw Refusal(
                    response: unsupportedResponse(
                        request, .compressionNotSupported,
                        "Compression \(compression) is not supported; expected none or gzip.",
                        operation?[IPPAttributeName.compression]))
            }
            ticket.compression = compression
        }
        // An operation attribute MiG neither reads nor has a use for is not dropped in silence: it is answered in the
        // unsupported-attributes group with successful-ok-ignored-or-substituted-attributes (RFC 8011 §4.1.7).
        // Only job-template values count for ipp-attribute-fidelity, which is about them.
        let ignored = operation.map { group in group.filter { !Self.creationOperationAttributes.contains($0.name) } } ?? []
        var template = request.group(.job).map(Array.init) ?? []
        // cupsd takes job-hold-until from the operation group as well (it looks in every group), and clients such as
        // ipptool's print-job-hold.test put it there: so does MiG, unless the job group gives it too.
        if let hold = operation?["job-hold-until"], !template.contains(where: { $0.name == "job-hold-until" }) { template.append(hold) }
        let supported = Dictionary(description.template.map { ($0.name, $0.supported) }, uniquingKeysWith: { first, _ in first })
        for attribute in template {
            let name = attribute.name
            var accepted = true
            switch name {
            case "copies":
                if let copies = attribute.integerValue, attribute.tag == .integer, (1...description.maxCopies).contains(copies) {
                    ticket.copies = copies
                } else {
                    accepted = false
                }
            case "sides":
                if let sides = attribute.stringValue, attribute.tag == .keyword, description.sides.contains(sides) {
                    ticket.sides = sides
                } else {
                    accepted = false
                }
            case "media":
                if let media = attribute.stringValue, description.media.contains(media) { ticket.media = media } else { accepted = false }
            case "media-col":
                if attribute.count == 1, let collection = attribute.value.collectionValue, let media = description.media(for: collection) {
                    ticket.media = media
                    ticket.template[name] = attribute.values
                } else {
                    accepted = false
                }
            case "page-ranges":
                let ranges = attribute.values.compactMap { value -> IPPRange? in
                    if case .rangeOfInteger(let range) = value { return range } else { return nil }
                }
                let ascending = zip(ranges, ranges.dropFirst()).allSatisfy { $0.upper < $1.lower }
                if ranges.count == attribute.count, ascending, ranges.allSatisfy({ $0.lower >= 1 && $0.lower <= $0.upper }) {
                    ticket.pageRanges = ranges
                } else {
                    accepted = false
                }
            case "overrides":
                // Per-page settings (PWG 5100.6): each names its pages or documents and job-template values the
                // printer offers; kept and reported like any other accepted value.
                accepted = attribute.values.allSatisfy { value in
                    guard let override = value.collectionValue else { return false }
                    return override.contains { PrinterDescription.overrideMembers.contains($0.name) }
                        && override.allSatisfy { member in
                            if PrinterDescription.overrideMembers.contains(member.name) {
                                return member.values.allSatisfy { if case .rangeOfInteger(let range) = $0 { range.lower >= 1 } else { false } }
                            }
                            guard let offered = supported[member.name], member.values.count == 1 else { return false }
                            return offered.contains { Self.sameValue(member.values[0], $0) }
                        }
                }
                if accepted { ticket.template[name] = attribute.values }
            case "job-priority":
                // One priority level (job-priority-supported 1): every priority 1…100 is accepted, none reorders.
                accepted = attribute.count == 1 && attribute.tag == .integer && (1...100).contains(attribute.integerValue ?? 0)
                if accepted { ticket.template[name] = attribute.values }
            default:
                let values = attribute.values
                let multiple = name == "finishings"
                if let offered = supported[name], values.count == 1 || (multiple && !values.isEmpty),
                    values.allSatisfy({ value in offered.contains { Self.sameValue(value, $0) } })
                {
                    ticket.template[name] = values
                } else {
                    accepted = false
                }
            }
            if !accepted {
                ticket.unsupported.append(attribute)
                ticket.unsupportedNames.append(name)
            }
        }
        if !ticket.unsupported.isEmpty && ticket.fidelity {
            throw Refusal(
                response: unsupportedResponse(
                    request, .attributesOrValuesNotSupported,
                    "Unsupported job attributes with ipp-attribute-fidelity=true: \(ticket.unsupportedNames.joined(separator: ", ")).",
                    unsupported: ticket.unsupported))
        }
        // A print-release gateway holds every job that did not ask for a hold itself (job-hold-until-default).
        if description.holdByDefault, ticket.template["job-hold-until"] == nil { ticket.template["job-hold-until"] = [.keyword("indefinite")] }
        ticket.unsupported = ignored + ticket.unsupported
        ticket.unsupportedNames = ignored.map(\.name) + ticket.unsupportedNames
        return ticket
    }

    /// The operation attributes of a job creation request MiG reads (RFC 8011 §4.2.1.1), with job-hold-until (see
    /// `ticket(for:)`) and the job's sizing hints job-k-octets, job-impressions and job-media-sheets, which MiG has no
    /// use for since it measures and counts the document itself (RFC 8011 lets a printer take them as hints).
    static let creationOperationAttributes: Set<String> = [
        "attributes-charset", "attributes-natural-language", "printer-uri", "requesting-user-name", "job-name",
        "ipp-attribute-fidelity", "document-name", "document-format", "compression", "job-hold-until", "job-k-octets",
        "job-impressions", "job-media-sheets",
    ]

    /// Whether a requested value is a supported one: `keyword | name` attributes (job-hold-until, job-sheets)
    /// may come with either syntax.
    static func sameValue(_ requested: IPPValue, _ supported: IPPValue) -> Bool {
        func word(_ value: IPPValue) -> String? {
            switch value {
            case .keyword(let text), .name(let text), .nameWithLanguage(let text, _): text
            default: nil
            }
        }
        if let requested = word(requested), let supported = word(supported) { return requested == supported }
        return requested == supported
    }

    func unsupportedResponse(_ request: IPPMessage, _ status: IPPStatus, _ message: String, _ attribute: IPPAttribute?) -> IPPMessage {
        unsupportedResponse(request, status, message, unsupported: attribute.map { [$0] } ?? [])
    }

    func unsupportedResponse(_ request: IPPMessage, _ status: IPPStatus, _ message: String, unsupported: [IPPAttribute]) -> IPPMessage {
        var response = Self.error(to: request, status, message)
        if !unsupported.isEmpty {
            response.addGroup(.unsupported) { group in
                for attribute in unsupported {
                    if Self.knownTemplateAttributes.contains(attribute.name) || attribute.group == .operation {
                        group.add(attribute)
                    } else {
                        group.add(attribute.name, .outOfBand(.unsupported))
                    }
                }
            }
        }
        return response
    }
}

extension PrinterDescription {
    /// The `media` a raster page of `size` is laid out for: one of the printer's whose size it is, either way round,
    /// within 1 mm (a size in whole points is up to 0.18 mm off one in millimetres).
    func media(forPageSize size: PageSize) -> String? {
        let page = size.hundredthsOfMillimetre
        let near = { (a: Int, b: Int32) in abs(a - Int(b)) <= 100 }
        return media.first { name in
            guard let medium = mediaSizes[name] else { return false }
            return (near(page.width, medium.width) && near(page.length, medium.length))
                || (near(page.width, medium.length) && near(page.length, medium.width))
        }
    }

    /// The `media` a media-col asks for, when the printer has it: its media-size (or media-size-name) is one of
    /// the printer's sizes, and its source, type and margins, when given, are ones the printer offers.
    func media(for collection: IPPCollection) -> String? {
        var media: String?
        var margins = true
        for member in collection {
            let value = member.values.first
            switch member.name {
            case "media-size":
                guard let size = value?.collectionValue,
                    let width = size.first(where: { $0.name == "x-dimension" })?.values.first?.integerValue,
                    let length = size.first(where: { $0.name == "y-dimension" })?.values.first?.integerValue
                else { return nil }
                guard let match = self.media.first(where: { mediaSizes[$0].map { $0.width == width && $0.length == length } ?? false }),
                    media == nil || media == match
                else { return nil }
                media = match
            case "media-size-name":
                guard let name = value?.stringValue, self.media.contains(name), media == nil || media == name else { return nil }
                media = name
            case "media-source":
                guard let source = value?.stringValue, mediaSources.contains(source) else { return nil }
            case "media-type":
                guard let type = value?.stringValue, mediaTypes.contains(type) else { return nil }
            case "media-top-margin", "media-bottom-margin", "media-left-margin", "media-right-margin":
                margins = margins && value?.integerValue == mediaMargin
            default:
                return nil
            }
        }
        return margins ? media ?? mediaDefault : nil
    }
}
