import Scenario

/// What SAP Mobile Services and the session manager promise in every run.
extension Invariant {
    static let scpmsInvariants: [Invariant] = [deletedRegistrationRefused, deletedIDNeverReissued, clientRegistrationExists]

    /// An administrator's (or the device's own) DELETE ends a registration for good: its APPCID opens nothing after.
    static let deletedRegistrationRefused = Invariant.trace(
        "scpms.deleted-registration-refused",
        promise: "once a registration is deleted, its X-SMP-APPCID never passes SCPms's check again",
        initial: Set<String>()
    ) { deleted, event in
        switch event.event {
        case "registration-deleted" where event["found"] == "true":
            if let id = event["id"] { deleted.insert(id) }
        case "appcid-accepted":
            if let id = event["id"], deleted.contains(id) { return "\(event.actor) accepted X-SMP-APPCID \(id) after that registration was deleted" }
        default: break
        }
        return nil
    }

    /// An id names one registration for good: a deleted one is never handed to another (or the same) device, whose
    /// calls would then pass as the deleted registration's.
    static let deletedIDNeverReissued = Invariant.trace(
        "scpms.deleted-id-never-reissued",
        promise: "SCPms never issues the X-SMP-APPCID of a deleted registration to a new one",
        initial: Set<String>()
    ) { deleted, event in
        switch event.event {
        case "registration-deleted" where event["found"] == "true":
            if let id = event["id"] { deleted.insert(id) }
        case "registered":
            if let id = event["id"], deleted.contains(id) { return "\(event.actor) issued \(id) again after that registration was deleted" }
        default: break
        }
        return nil
    }

    /// The id the session manager stores is one SCPms issued.
    static let clientRegistrationExists = Invariant.trace(
        "scpms.client-registration-issued",
        promise: "a session manager reports itself registered only under an id SCPms issued",
        initial: Set<String>()
    ) { issued, event in
        switch event.event {
        case "registered": if let id = event["id"] { issued.insert(id) }
        case "scpms-registered":
            if let id = event["id"], !issued.contains(id) { return "\(event.actor) reports registration \(id), which SCPms never issued" }
        default: break
        }
        return nil
    }
}
