import IPP

/// How jobs are described in answers (Get-Jobs, Get-Job-Attributes, creation responses).
extension MiGPrinter {
    func addUnsupported(_ attributes: [IPPAttribute], to response: inout IPPMessage) {
        guard !attributes.isEmpty else { return }
        response.addGroup(.unsupported) { group in
            for attribute in attributes {
                if Self.knownTemplateAttributes.contains(attribute.name) {
                    group.add(attribute)
                } else {
                    group.add(attribute.name, .outOfBand(.unsupported))
                }
            }
        }
    }

    func addJobSummary(_ job: Job, _ caller: Caller, to response: inout IPPMessage) {
        response.addGroup(.job) { group in
            addJobAttributes(job, caller, requested: ["job-id", "job-uri", "job-state", "job-state-reasons", "job-state-message"], to: &group)
        }
    }

    /// Sheets that many impressions of the job take: each copy starts on a new sheet, and two-sided printing puts
    /// two of its impressions on a sheet (an impression holds `number-up` pages).
    static func sheets(_ job: Job, impressions: Int32) -> Int32 {
        guard job.copies > 0, job.impressions > 0 else { return 0 }
        let perCopy = max(1, job.impressions / job.copies)
        let sidesPerSheet: Int32 = job.sides == "one-sided" ? 1 : 2
        let sheetsPerCopy = (perCopy + sidesPerSheet - 1) / sidesPerSheet
        let copiesDone = impressions / perCopy
        let rest = impressions % perCopy
        return copiesDone * sheetsPerCopy + (rest + sidesPerSheet - 1) / sidesPerSheet
    }

    func addJobAttributes(_ job: Job, _ caller: Caller, requested: [String], to group: inout IPPGroupBuilder) {
        var job = job
        if engine.current == job.id { job.impressionsCompleted = engine.printed }
        let all = requested.contains("all") || requested.contains("job-description") || requested.contains("job-template")
        let id = job.id
        let time = { (seconds: Int64?) -> IPPValue in seconds.map { .integer(Int32(clamping: $0)) } ?? .outOfBand(.noValue) }
        let date = { (seconds: Int64?) -> IPPValue in seconds.map { .dateTime(IPPDateTime(unixSeconds: $0)) } ?? .outOfBand(.noValue) }
        let stateMessage =
            switch job.state {
            case .pending: job.awaitingDocuments ? "Waiting for the document." : "Waiting to print."
            case .pendingHeld: job.awaitingDocuments ? "Held; waiting for the document." : "Held until released."
            case .processing: "Printing page \(job.impressionsCompleted + 1) of \(job.impressions)."
            case .processingStopped: "Stopped: \(engine.stopped?.message ?? "the printer is stopped.")"
            case .canceled: "Canceled."
            case .aborted: "Aborted."
            case .completed: "Completed."
            }
        var attributes: [(String, [IPPValue])] = [
            ("job-id", [.integer(Int32(clamping: id))]),
            ("job-uri", [.uri(caller.address.jobURI(id))]),
            ("job-printer-uri", [.uri(caller.address.printerURI)]),
            ("job-name", [.name(job.name)]),
            ("job-originating-user-name", [.name(job.user)]),
            ("job-state", [.enumValue(job.state.rawValue)]),
            ("job-state-reasons", job.reasons.map(IPPValue.keyword)),
            ("job-state-message", [.text(stateMessage)]),
            ("number-of-documents", [.integer(job.documentCount)]),
            ("time-at-creation", [time(job.createdAt)]),
            ("time-at-processing", [time(job.processingAt)]),
            ("time-at-completed", [time(job.completedAt)]),
            ("job-printer-up-time", [.integer(Int32(clamping: node.clock.unixSeconds))]),
            ("date-time-at-creation", [date(job.createdAt)]),
            ("date-time-at-processing", [date(job.processingAt)]),
            ("date-time-at-completed", [date(job.completedAt)]),
            ("job-k-octets", [.integer(Int32(clamping: (job.documentBytes + 1023) / 1024))]),
            ("job-impressions", [.integer(job.impressions)]),
            ("job-impressions-completed", [.integer(job.impressionsCompleted)]),
            ("job-media-sheets", [.integer(Self.sheets(job, impressions: job.impressions))]),
            ("job-media-sheets-completed", [.integer(Self.sheets(job, impressions: job.impressionsCompleted))]),
            ("copies", [.integer(job.copies)]),
            ("sides", [.keyword(job.sides)]),
            ("media", [.keyword(job.media)]),
            ("document-format-supplied", [.mimeMediaType(job.format)]),
            ("compression-supplied", [.keyword(job.compression)]),
        ]
        // What auto-sensing found in a document sent as application/octet-stream: the format its pages were
        // counted as (PWG 5100.7).
        if let detected = job.formatDetected { attributes.append(("document-format-detected", [.mimeMediaType(detected)])) }
        // Every other job-template value the job accepted, as it was accepted; job-hold-until always (no-hold
        // unless asked for), since whether a job waits for Release-Job is what a client polls for.
        let template = JobTemplate(stored: job.template)
        for attribute in template.attributes where attribute.name != "job-hold-until" { attributes.append((attribute.name, attribute.values)) }
        attributes.append(("job-hold-until", template["job-hold-until"] ?? [.keyword("no-hold")]))
        if !job.pageRanges.isEmpty {
            let ranges = job.pageRanges.split(separator: ",").compactMap { range -> IPPValue? in
                let bounds = range.split(separator: "-").compactMap { Int32($0) }
                return bounds.count == 2 ? .rangeOfInteger(IPPRange(bounds[0], bounds[1])) : nil
            }
            attributes.append(("page-ranges", ranges))
        }
        for (name, values) in attributes where all || requested.contains(name) {
            group.add(name, values: values)
        }
    }
}
