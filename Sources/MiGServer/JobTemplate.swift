import Foundation
import IPP

/// The job-template attributes a job accepted beyond the four the print engine reads as columns (copies, sides,
/// media, page-ranges): print-color-mode, print-quality, job-hold-until, media-col…
///
/// Kept as the IPP encoding of one job group, in the order the client sent them, so Get-Job-Attributes reports
/// each value exactly as it was accepted (a printer that says yes to a value and then forgets it is not honest).
struct JobTemplate {
    private(set) var attributes: [(name: String, values: [IPPValue])] = []

    init() {}

    /// The template stored with a job; empty for none (jobs made before templates were kept).
    init(stored: Data?) {
        guard let stored, !stored.isEmpty, let message = try? IPPDecoder().decode(Array(stored)), let group = message.group(.job) else { return }
        attributes = group.map { (name: $0.name, values: $0.values) }
    }

    /// The form kept in the spool database; nil when there is nothing to keep.
    var stored: Data? {
        guard !attributes.isEmpty else { return nil }
        var message = IPPMessage(code: 0, requestID: 1)
        message.addGroup(.job) { group in
            for attribute in attributes { group.add(attribute.name, values: attribute.values) }
        }
        return (try? IPPEncoder().encode(message)).map { Data($0) }
    }

    subscript(name: String) -> [IPPValue]? {
        get { attributes.first { $0.name == name }?.values }
        set {
            let index = attributes.firstIndex { $0.name == name }
            switch (index, newValue) {
            case (let index?, let values?): attributes[index].values = values
            case (let index?, nil): attributes.remove(at: index)
            case (nil, let values?): attributes.append((name, values))
            case (nil, nil): break
            }
        }
    }

    /// `job-hold-until` as accepted: `no-hold` when none was asked for.
    var holdUntil: String { self["job-hold-until"]?.first?.stringValue ?? "no-hold" }
}
