import Scenario

/// What Sunfire's print host promises in every run.
extension Invariant {
    static let sunfireInvariants: [Invariant] = [lprJobQueuedOnce, quotaNeverNegative, writesStayHome]

    /// The spooler numbers jobs per printer; one number is one job.
    static let lprJobQueuedOnce = Invariant.trace(
        "sunfire.job-queued-once",
        promise: "every print job Sunfire queues (lpr, or Samba) is queued once: no printer's job number is queued twice",
        initial: Set<String>()
    ) { queued, event in
        guard event.event == "job-queued", let printer = event["printer"], let job = event["job"] else { return nil }
        let key = "\(event.actor) \(printer) \(job)"
        if queued.contains(key) { return "\(event.actor) queued job \(job) on \(printer) twice" }
        queued.insert(key)
        return nil
    }

    /// Printing charges sheets up to what is left, never past it.
    static let quotaNeverNegative = Invariant.trace(
        "sunfire.quota-never-negative",
        promise: "a user's print quota never goes below zero",
        initial: ()
    ) { _, event in
        guard event.event == "quota-charged", let left = event["left"] else { return nil }
        guard let value = Int(left) else { return "\(event.actor) charged \(event["user"] ?? "?") and left a quota of '\(left)', not a number" }
        return value < 0 ? "\(event.actor) left \(event["user"] ?? "?") a quota of \(value) sheets" : nil
    }

    /// Uploads land in the uploader's home: a relative path without `..`, or an absolute one under /home/.
    static let writesStayHome = Invariant.trace(
        "sunfire.writes-stay-home",
        promise: "every file Sunfire writes for an upload (SCP or SFTP) lies inside the uploading user's home directory",
        initial: ()
    ) { _, event in
        guard event.actor != "scenario", event.event == "upload", event["via"] != nil, event["user"] != nil, let path = event["path"] else {
            return nil
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        var depth = 0
        for part in parts {
            if part == ".." { depth -= 1 } else if part != "." { depth += 1 }
            if depth < 0 { return "\(event.actor) wrote \(path) for \(event["user"] ?? "?"), which climbs out of the home directory" }
        }
        if path.hasPrefix("/"), !path.hasPrefix("/home/") { return "\(event.actor) wrote \(path) for \(event["user"] ?? "?"), outside /home" }
        return nil
    }
}
