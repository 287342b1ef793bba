import Scenario
import Wire

/// Guided exploration (`workbench swarm --explore`): the same number of runs as the seed range, a share of them
/// spent on mutants of runs that showed a rare or new reach point or behaviour instead of on fresh seeds.
///
/// It goes in rounds. A round runs fresh seeds (the range's first ones, in order; the first round 10 seeds, each
/// round twice the last, so the first choices come early and later ones rest on more runs); the mutants owed for a
/// round (its share of the budget) are made from the runs so far and run in the next batch, after that batch's fresh
/// seeds: the first mutant runs after the first 30 fresh seeds, so a bug one of those finds costs no more runs than
/// without `--explore`.
///
/// Each mutant targets a reach point or a ``Behaviour`` (an actor's event with its outcome: coverage, as a fuzzer's
/// edges), from two budgets of equal size: odd mutants target reach points, even ones behaviours (either takes the
/// other's turn while it has nothing seen). Within its budget the target is chosen among those seen so far with
/// weight 1/runs² (the rarest first, one just found has weight 1); one shared pool gave the reach points few mutants,
/// as the behaviours outnumber them ten to one. A mutant takes as parent the run that showed its target with the
/// fewest mutants made from it so far, and edits its faults 1 to 3 times.
/// For a behaviour, whose parent first showed it during a statement, the first two edits are aimed (a reach point's
/// mutants are not: aimed, they reached the rare points less often). The first changes one of the faults run before
/// that statement, the latest with odds 1/2, the one before it 1/4, and so on (the likeliest causes; a cut armed
/// before a print may fall in a later read): dropped, shifted, drawn again from its site, or with one of its fields
/// drawn again (``FaultTweak``: a cut of the upload turned round cuts the answer). The second adds a fault within
/// ``aimWindow`` statements before it, for a path that needs two faults together (the first one's effect and another
/// at the same moment): half the time a **cut**, else one drawn as the seed's schedule would draw it. A cut is a reset
/// aimed at one of the messages sent in those statements, each as likely whatever its size, armed just before the
/// statement that sent it, on its last byte (it arrives whole, nothing after it does) or inside it: the messages
/// are the parent's own (each planned run keeps what its links sent, ``LinkTraffic``), which the mutant sends again
/// byte for byte until its first changed fault, so a cut aims at the answer of a retry the run without faults never
/// made; a byte count drawn as a seed draws it seldom falls on a short answer. (The workload's run without faults,
/// ``LinkForecast``, stood in for them before: the ordered bug `mig.lost-answer-repeated-after-busy`, whose cut must
/// fall in the answer to the attempt after a busy one, was then found by no mode in 2,000 runs; with the parent's own
/// messages `--explore` finds it in 789.) The other edits drop one fault, shift one up to 3 statements earlier or later, draw one
/// field of one again, copy one from another run of the file, cut one of the messages the workload sends, or add one
/// drawn as the seed's schedule would draw it. Every choice comes from named streams of the seeds, and a batch
/// depends only on the runs before it, so the runs are the same whoever runs a batch (`--jobs`).
public struct SwarmExploration: Sendable {
    /// The share of the runs spent on mutants when none is given.
    public static let defaultShare = 0.5
    /// Fresh seeds in the first round.
    static let firstRound = 10
    /// How many statements before a target's first sign an aimed edit adds a fault.
    static let aimWindow = 3

    public let scripts: [Script]
    public let seeds: [UInt64]
    public let options: SwarmOptions
    public let share: Double
    /// How many of `seeds` run as fresh seeds (each over every script), and how many mutant runs the rest pay for.
    public let freshSeeds: Int
    public let mutantRuns: Int

    /// Every run so far, in the order the batches ran them.
    public private(set) var runs: [SwarmRun] = []
    /// How many runs reached each reach point, and showed each behaviour: the two budgets' targets.
    private var pointRuns: [String: Int] = [:]
    private var behaviourRuns: [String: Int] = [:]
    private var runsByTarget: [String: [Int]] = [:]
    private var children: [Int] = []
    private var freshDone = 0
    private var mutantsMade = 0
    private var round = 0
    private var pending: [SwarmPlanEntry] = []

    /// Explores `scripts` over `seeds` with `swarm`'s options.
    ///
    /// - throws: ``SwarmError`` (`.argument`) if `share` is not between 0 and 1 (both excluded) or there are no scripts.
    public init(scripts: [Script], seeds: [UInt64], swarm: SwarmRunner, share: Double = defaultShare) throws {
        let share = try Self.share(share)
        guard !scripts.isEmpty else { throw SwarmError(.argument, "expected at least one scenario file to explore") }
        self.scripts = scripts
        self.seeds = seeds
        options = swarm.options
        self.share = share
        let mutantSeeds = Int((Double(seeds.count) * share).rounded(.down))
        freshSeeds = seeds.count - mutantSeeds
        mutantRuns = mutantSeeds * scripts.count
    }

    /// `share` if it is one (more than 0, less than 1), ``defaultShare`` if nil.
    ///
    /// - throws: ``SwarmError`` (`.argument`) naming `--explore-share`.
    public static func share(_ share: Double?) throws -> Double {
        guard let share else { return defaultShare }
        guard share > 0, share < 1 else {
            throw SwarmError(.argument, "--explore-share \(share): expected a share of the runs between 0 and 1 (e.g. 0.5), both excluded")
        }
        return share
    }

    /// The next batch of runs to make (the next round's fresh seeds, then the mutants owed for the rounds before it),
    /// nil when the budget is spent. Each batch's runs must be given to ``record(_:)`` before the next is asked for.
    public mutating func nextBatch() -> [SwarmPlanEntry]? {
        precondition(pending.isEmpty, "record a batch's runs before asking for the next")
        let owed = freshSeeds == 0 ? 0 : mutantRuns * freshDone / freshSeeds - mutantsMade
        let size = min(Self.firstRound << min(round, 20), freshSeeds - freshDone)
        var batch = seeds[freshDone..<(freshDone + size)].flatMap { seed in scripts.map { SwarmPlanEntry(file: $0.file, seed: seed) } }
        if !runs.isEmpty { batch += (0..<owed).map { _ in mutant() } }
        freshDone += size
        round += 1
        guard !batch.isEmpty else { return nil }
        pending = batch
        return batch
    }

    /// The runs of the last batch, in its order.
    public mutating func record(_ batch: [SwarmRun]) {
        precondition(batch.count == pending.count, "a batch's runs, one per entry")
        pending = []
        for run in batch {
            let index = runs.count
            runs.append(run)
            children.append(0)
            for point in run.reached {
                pointRuns[point, default: 0] += 1
                runsByTarget[point, default: []].append(index)
            }
            for behaviour in run.behaviours?.keys.sorted() ?? [] {
                behaviourRuns[behaviour, default: 0] += 1
                runsByTarget[behaviour, default: []].append(index)
            }
        }
    }

    /// Runs the whole exploration, batch by batch, with `run` (which may stop early by returning fewer runs than
    /// asked for: the exploration then ends there).
    public mutating func explore(_ run: ([SwarmPlanEntry]) throws -> [SwarmRun]) rethrows -> [SwarmRun] {
        while let batch = nextBatch() {
            let done = try run(batch)
            guard done.count == batch.count else {
                pending = []
                runs += done
                break
            }
            record(done)
        }
        return runs
    }

    // MARK: Mutants

    /// The next mutant: a target, its parent, and the parent's faults edited.
    private mutating func mutant() -> SwarmPlanEntry {
        mutantsMade += 1
        let number = mutantsMade
        let choose = RandomStream(seed: seeds.first ?? 0, name: "swarm-explore choose \(number)")
        let (target, parentIndex) = chooseParent(choose, number: number)
        children[parentIndex] += 1
        let parent = runs[parentIndex]
        guard let script = scripts.first(where: { $0.file == parent.file }) else {
            preconditionFailure("every run is of one of the scripts")
        }
        let random = RandomStream(seed: parent.seed, name: "swarm-explore edits \(number)")
        let schedule = SeededFaultSchedule(options: options, seed: parent.seed)
        let healed = script.statements.firstIndex { $0.directive == "after" } ?? script.statements.count
        let line = { (index: Int) in script.statements[index].line }
        var faults = parent.faults
        var additions: [Int] = []
        var redraws: [SwarmMutation.Redraw] = []
        var edits: [String] = []
        // Aimed at a behaviour target: the parent first showed it during a statement, so the first edit changes one of
        // the faults that ran before it, the latest most likely (the likeliest causes); the second adds one more fault
        // within `aimWindow` statements before it. A reach point's mutants are not aimed: aimed, they reached the rare
        // points less often.
        let appeared = target.flatMap { parent.behaviours?[$0] }
        var aimed = appeared.map { at in Self.likeliestCauses(of: target ?? "", among: faults, before: at) } ?? []
        // The statements before which a fault lands within the window (none when the target showed after `after heal`).
        var near = appeared.flatMap { at in healed > 0 && at - Self.aimWindow < healed ? max(0, at - Self.aimWindow)...min(at, healed - 1) : nil }
        // The parent's own messages: the mutant says the same until its first changed fault (the run without faults
        // never sent a retry's answer, nor anything after a fault changed the path). None to cut without link faults.
        let forecast = options.faults.network ? parent.traffic.map(LinkForecast.init) ?? .none : .none
        // A reset cutting one of the messages a direction sent during `window` (nil when none did), armed just before
        // the statement that sent it: the fault line, with what it cuts.
        let cut = { (window: ClosedRange<Int>) -> (fault: ScheduledFault, edit: String)? in
            let directions = forecast.directions(sendingIn: window)
            guard !directions.isEmpty else { return nil }
            let (from, to) = directions[random.int(in: 0...(directions.count - 1))]
            guard let aim = forecast.cut(from: from, to: to, within: window, random: random) else { return nil }
            let fault = ScheduledFault(
                before: aim.armed, line: "reset \(from) -> \(to) after \(aim.bytes) bytes", site: "link \(LinkForecast.name(from, to))")
            return (fault, "cut '\(fault.line)' before line \(line(aim.armed)): message \(aim.message) that \(from) sent \(to) there")
        }
        // A fault drawn as the seed's schedule would draw it, before one of the statements of `range`.
        let add = { (range: ClosedRange<Int>, note: String) in
            let before = random.int(in: range)
            additions.append(before)
            edits.append("add a fault drawn before line \(line(before))" + note)
        }
        for edit in 0..<random.int(in: 1...3) where healed > 0 {
            if let window = near, edit == 1 || (edit == 0 && aimed.isEmpty) {
                near = nil
                // Half the time a cut of one of the messages sent in the window.
                if random.int(in: 0...1) == 0, let (fault, edit) = cut(window) {
                    faults = inserted(fault, into: faults)
                    edits.append(edit + ", near the target")
                    continue
                }
                add(window, ", near the target")
                continue
            }
            if !aimed.isEmpty {
                // The latest with odds 1/2, the one before it 1/4, and so on.
                var pick = 0
                while pick < aimed.count - 1, random.int(in: 0...1) == 0 { pick += 1 }
                let index = aimed[pick]
                aimed = []
                let fault = faults[index]
                // A step of the clock of the actor that showed the target: half the time, one more step of that clock
                // the same way, just before the statement that showed it (the parent's step stays; none after the heal).
                if let at = appeared, at < healed, Self.touches(fault, actor: Self.actor(of: target ?? "")),
                    SeededFaultSchedule.words(of: fault.line).words.first == "clock", random.int(in: 0...1) == 0,
                    let again = FaultTweak.stepAgain(fault.line, options: options, random: random)
                {
                    faults = inserted(ScheduledFault(before: at, line: again.line, site: fault.site), into: faults)
                    edits.append(
                        "step the clock of '\(fault.line)' (before line \(line(fault.before))) again the same way before line \(line(at)), "
                            + "where the target showed: '\(again.line)'")
                    continue
                }
                let site = Self.ownSite(of: fault)
                let tweak = site == nil ? nil : FaultTweak.tweak(fault.line, schedule: schedule, random: random)
                let choices = ["drop", "shift"] + (site == nil ? [] : ["redraw"]) + (tweak == nil ? [] : ["tweak"])
                switch choices[random.int(in: 0...(choices.count - 1))] {
                case "drop":
                    faults.remove(at: index)
                    edits.append("drop '\(fault.line)' before line \(line(fault.before)), which ran before the target")
                case "shift":
                    faults.remove(at: index)
                    let before = shifted(fault.before, random, healed: healed)
                    faults = inserted(ScheduledFault(before: before, line: fault.line, site: fault.site), into: faults)
                    edits.append("shift '\(fault.line)', which ran before the target, to before line \(line(before))")
                case "redraw":
                    faults.remove(at: index)
                    redraws.append(SwarmMutation.Redraw(before: fault.before, site: site ?? ""))
                    edits.append("draw '\(fault.line)' before line \(line(fault.before)) again from \(site ?? ""), as it ran before the target")
                default:
                    guard let tweak else { continue }
                    faults[index] = ScheduledFault(before: fault.before, line: tweak.line, site: fault.site)
                    edits.append(
                        "draw the \(tweak.field) of '\(fault.line)' before line \(line(fault.before)) again, as it ran before the target: "
                            + "'\(tweak.line)'")
                }
                continue
            }
            let donors = runsByFile(parent.file, excluding: parentIndex)
            let tweakable = faults.indices.filter { Self.ownSite(of: faults[$0]) != nil }
            let operations =
                (faults.isEmpty ? [] : ["drop", "shift"]) + (tweakable.isEmpty ? [] : ["tweak"]) + ["add", "cut"]
                + (donors.isEmpty ? [] : ["copy"])
            switch operations[random.int(in: 0...(operations.count - 1))] {
            case "cut":
                if let (fault, edit) = cut(0...(healed - 1)) {
                    faults = inserted(fault, into: faults)
                    edits.append(edit)
                } else {
                    add(0...(healed - 1), "")
                }
            case "tweak":
                let index = tweakable[random.int(in: 0...(tweakable.count - 1))]
                let fault = faults[index]
                guard let tweak = FaultTweak.tweak(fault.line, schedule: schedule, random: random) else { continue }
                faults[index] = ScheduledFault(before: fault.before, line: tweak.line, site: fault.site)
                edits.append("draw the \(tweak.field) of '\(fault.line)' before line \(line(fault.before)) again: '\(tweak.line)'")
            case "drop":
                let fault = faults.remove(at: random.int(in: 0...(faults.count - 1)))
                edits.append("drop '\(fault.line)' before line \(line(fault.before))")
            case "shift":
                let index = random.int(in: 0...(faults.count - 1))
                let fault = faults.remove(at: index)
                let before = shifted(fault.before, random, healed: healed)
                faults = inserted(ScheduledFault(before: before, line: fault.line, site: fault.site), into: faults)
                edits.append("shift '\(fault.line)' from before line \(line(fault.before)) to before line \(line(before))")
            case "copy":
                let donor = runs[donors[random.int(in: 0...(donors.count - 1))]]
                let fault = donor.faults[random.int(in: 0...(donor.faults.count - 1))]
                faults = inserted(fault, into: faults)
                edits.append("copy '\(fault.line)' before line \(line(fault.before)) from \(donor.name)")
            default:
                add(0...(healed - 1), "")
            }
        }
        let mutation = SwarmMutation(
            number: number, parent: parent.name, target: target, edits: edits, faults: faults, additions: additions.sorted(),
            redraws: redraws)
        return SwarmPlanEntry(file: parent.file, seed: parent.seed, mutation: mutation)
    }

    /// A target from mutant `number`'s budget (reach points for odd numbers, behaviours for even ones, or the other
    /// while that one has none), drawn with weight 1/runs² among those seen so far, and the run that showed it with
    /// the fewest mutants so far (the earliest of those); with nothing seen, the run with the fewest mutants.
    /// A failing run is no parent while a passing one is left: its mutants would mostly fail the same way.
    private func chooseParent(_ random: RandomStream, number: Int) -> (target: String?, parent: Int) {
        let budget = Self.budget(of: number)
        let counts =
            switch budget {
            case .reach: pointRuns.isEmpty ? behaviourRuns : pointRuns
            case .behaviour: behaviourRuns.isEmpty ? pointRuns : behaviourRuns
            }
        let points = counts.keys.sorted()
        let fewest = { (candidates: [Int]) in
            (candidates.contains { runs[$0].passed } ? candidates.filter { runs[$0].passed } : candidates)
                .min { (children[$0], $0) < (children[$1], $1) } ?? 0
        }
        guard !points.isEmpty else { return (nil, fewest(Array(runs.indices))) }
        let weights = points.map { 1 / (Double(counts[$0] ?? 1) * Double(counts[$0] ?? 1)) }
        var pick = random.unit() * weights.reduce(0, +)
        var target = points[points.count - 1]
        for (point, weight) in zip(points, weights) {
            if pick < weight {
                target = point
                break
            }
            pick -= weight
        }
        return (target, fewest(runsByTarget[target] ?? []))
    }

    /// What a mutant's target is drawn from.
    public enum Budget: Sendable {
        case reach, behaviour
    }

    /// The budget mutant `number` (1, 2, …) is spent from: they take turns, so each gets half the mutants.
    public static func budget(of number: Int) -> Budget { number % 2 == 1 ? .reach : .behaviour }

    /// The positions in `faults` of those that ran before statement `at`, likeliest cause of `behaviour` first: the
    /// faults that touch the actor that showed it (its node's clock, its links, its fault points: `ims session-checked
    /// margin=1-5m` is moved by `clock ims skew +306s` many statements back, not by the fault just before it), latest
    /// first; then the others, latest first.
    static func likeliestCauses(of behaviour: String, among faults: [ScheduledFault], before at: Int) -> [Int] {
        let actor = actor(of: behaviour)
        let before = Array(faults.indices.filter { faults[$0].before <= at }.reversed())
        return before.filter { touches(faults[$0], actor: actor) } + before.filter { !touches(faults[$0], actor: actor) }
    }

    /// The actor a behaviour was shown by: its first word (`ims` of `ims session-checked margin=1-5m`).
    static func actor(of behaviour: String) -> String { String(behaviour.prefix { $0 != " " }) }

    /// Whether `fault` touches `actor`: names its node (a clock, a link) or one of its fault points.
    static func touches(_ fault: ScheduledFault, actor: String) -> Bool {
        !actor.isEmpty && fault.line.split(separator: " ").contains { $0 == actor || $0.hasPrefix(actor + ".") }
    }

    /// The site `fault` was drawn from when it is a fault of its own, nil for one of a swizzle's holds (they belong
    /// together: neither drawn again nor tweaked alone) or a fault with no site.
    private static func ownSite(of fault: ScheduledFault) -> String? {
        fault.site.flatMap { $0.hasPrefix("swizzle") ? nil : $0 }
    }

    /// `before` moved up to 3 statements earlier or later, within the statements before `after heal`.
    private func shifted(_ before: Int, _ random: RandomStream, healed: Int) -> Int {
        let delta = [-3, -2, -1, 1, 2, 3][random.int(in: 0...5)]
        return min(max(before + delta, 0), healed - 1)
    }

    /// The runs of `file` that ran faults, but `excluding` (donors of a copied fault).
    private func runsByFile(_ file: String, excluding: Int) -> [Int] {
        runs.indices.filter { $0 != excluding && runs[$0].file == file && !runs[$0].faults.isEmpty }
    }

    /// `fault` among `faults`, after the others before the same statement: the list stays in statement order.
    private func inserted(_ fault: ScheduledFault, into faults: [ScheduledFault]) -> [ScheduledFault] {
        var faults = faults
        faults.insert(fault, at: faults.firstIndex { $0.before > fault.before } ?? faults.count)
        return faults
    }
}
