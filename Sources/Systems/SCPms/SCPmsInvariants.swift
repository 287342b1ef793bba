import Kernel
import Scenario
import SystemKit

/// What SAP Mobile Services and the session manager promise in every run.
extension Invariant {
    static let scpmsInvariants: [Invariant] = [
        deletedRegistrationRefused, deletedIDNeverReissued, clientRegistrationExists, acknowledgedRegistrationSurvivesCrash,
    ]

    /// SCPms answered 201 with its registrations in a database: a crash of its node does not take one back (the crash
    /// campaign's "every registration answered 201 reads back", inside the simulation).
    static let acknowledgedRegistrationSurvivesCrash = Invariant(
        name: "scpms.acknowledged-registration-survives-crash",
        promise: "a crash of its node loses no registration an SCPms with a database answered: after the restart each one not "
            + "deleted is in its store"
    ) { CrashedRegistrationsChecker() }

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

/// Keeps, for each SCPms node that crashed, the registrations it answered before, when it keeps them in a database, and
/// looks for them in the store of the SCPms restarted there.
final class CrashedRegistrationsChecker: InvariantChecker {
    /// Registration ids answered (and not deleted), by SCPms node.
    private var promises = CrashPromises()

    func check(_ newEvents: ArraySlice<Trace.Event>, in context: ScenarioContext) -> InvariantBreach? {
        for event in newEvents {
            switch event.event {
            case "registered":
                if let id = event["id"] { promises.acknowledge(id, id, on: event.actor) }
            case "registration-deleted" where event["found"] == "true":
                if let id = event["id"] { promises.withdraw(id, on: event.actor) }
            case "started":
                if let scpms = Self.scpms(on: event.actor, in: context) {
                    promises.started(on: event.actor, durable: scpms.server.configuration.databasePath != nil)
                }
            default: promises.observe(event)
            }
        }
        for node in promises.owing {
            guard let scpms = Self.scpms(on: node, in: context) else { continue }  // not restarted yet
            let ids = promises.take(node).keys
            let held: Set<String>
            do { held = Set(try scpms.server.store.connectionIDs()) } catch {
                return InvariantBreach("\(node)'s registrations cannot be read after its restart: \(error)")
            }
            if let lost = ids.sorted().first(where: { !held.contains($0) }) {
                return InvariantBreach(
                    "\(node) answered registration \(lost) before it crashed, and the restarted store does not hold it: the answer went "
                        + "out before the commit was durable")
            }
        }
        return nil
    }

    private static func scpms(on node: String, in context: ScenarioContext) -> RunningSCPms? {
        context.startedActors.lazy.compactMap { $0.actor as? RunningSCPms }.first { $0.server.node.name == node }
    }
}
