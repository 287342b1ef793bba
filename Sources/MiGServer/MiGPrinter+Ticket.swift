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
        /// Attributes or values the printer does not support, echoed in the unsupported-attributes group.
        var unsupported: [IPPAttribute] = []
        var unsupportedNames: [String] = []
        var fidelity = false
    }

    static let knownTemplateAttributes: Set<String> = [
        "copies", "sides", "media", "media-col", "page-ranges", "print-quality", "orientation-requested",
        "print-color-mode", "printer-resolution", "finishings", "number-up", "job-priority", "job-sheets",
        "multiple-document-handling", "output-bin", "print-content-optimize", "print-rendering-intent", "job-hold-until",
    ]

    func ticket(for request: IPPMessage) throws(Refusal) -> Ticket {
        var ticket = Ticket(media: description.mediaDefault)
        let operation = request.operationAttributes
        ticket.fidelity = request.ippAttributeFidelity ?? false
        if let name = request.jobName ?? operation?.documentName { ticket.name = name }
        if let format = request.documentFormat {
            guard description.documentFormats.contains(format) else {
                throw Refusal(response: unsupportedResponse(request, .documentFormatNotSupported,
                                                            "Document format \(format) is not supported; expected one of \(description.documentFormats.joined(separator: ", ")).",
                                                            operation?[IPPAttributeName.documentFormat]))
            }
            ticket.format = format
        }
        if let compression = request.compression {
            guard description.compressions.contains(compression) else {
                throw Refusal(response: unsupportedResponse(request, .compressionNotSupported,
                                                            "Compression \(compression) is not supported; expected none or gzip.",
                                                            operation?[IPPAttributeName.compression]))
            }
            ticket.compression = compression
        }
        guard let job = request.group(.job) else { return ticket }
        for attribute in job {
            let name = attribute.name
            var supported = true
            switch name {
            case "copies":
                if let copies = attribute.integerValue, attribute.tag == .integer, (1...description.maxCopies).contains(copies) { ticket.copies = copies } else { supported = false }
            case "sides":
                if let sides = attribute.stringValue, attribute.tag == .keyword, description.sides.contains(sides) { ticket.sides = sides } else { supported = false }
            case "media":
                if let media = attribute.stringValue, description.media.contains(media) { ticket.media = media } else { supported = false }
            case "page-ranges":
                let ranges = attribute.values.compactMap { value -> IPPRange? in
                    if case .rangeOfInteger(let range) = value { return range } else { return nil }
                }
                let ascending = zip(ranges, ranges.dropFirst()).allSatisfy { $0.upper < $1.lower }
                if ranges.count == attribute.count, ascending, ranges.allSatisfy({ $0.lower >= 1 && $0.lower <= $0.upper }) {
                    ticket.pageRanges = ranges
                } else {
                    supported = false
                }
            case "print-quality":
                supported = attribute.integerValue.map(PrinterDescription.printQualities.contains) ?? false
            case "orientation-requested":
                supported = attribute.integerValue.map(PrinterDescription.orientations.contains) ?? false
            default:
                supported = Self.knownTemplateAttributes.contains(name)
            }
            if !supported {
                ticket.unsupported.append(attribute)
                ticket.unsupportedNames.append(name)
            }
        }
        if !ticket.unsupported.isEmpty && ticket.fidelity {
            throw Refusal(response: unsupportedResponse(
                request, .attributesOrValuesNotSupported,
                "Unsupported job attributes with ipp-attribute-fidelity=true: \(ticket.unsupportedNames.joined(separator: ", ")).",
                unsupported: ticket.unsupported))
        }
        return ticket
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
