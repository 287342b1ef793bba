import Kernel
import Scenario
import Wire

/// A mutant of `--explore`: another run's faults, edited (a fault dropped, shifted to another statement, one of its
/// fields drawn again, copied from a third run, or one more drawn as the run goes), run under the parent's seed. What
/// the mutant ran is recorded like any run's faults, so it replays exactly as an explicit schedule.
public struct SwarmMutation: Codable, Sendable, Equatable {
    /// The mutant's number in the exploration (1, 2, …): with the seed, it names the run and its stream.
    public let number: Int
    /// The run it was made from: `seed 12` or `seed 12 mutant 7`.
    public let parent: String
    /// The reach point or behaviour the parent was chosen for (nil when no run had shown one yet).
    public let target: String?
    /// What was changed, as a person reads it.
    public let edits: [String]
    /// The parent's faults with drops, shifts, tweaks and copies applied, by statement. A fault whose site is not there
    /// when its statement comes (a link no connection has used yet nor its step will, a point no actor declared yet)
    /// is left out.
    public let faults: [ScheduledFault]
    /// Statements (0-based) before which one more fault is drawn from the sites there at that moment.
    public let additions: [Int]
    /// Faults of the parent drawn again from their site before the same statement (another skew, another latency,
    /// another count), if the site is there.
    public let redraws: [Redraw]

    /// One fault to draw again: its statement and its site (`clock phone`, `link a<->b`, `point mig.busy`).
    public struct Redraw: Codable, Sendable, Equatable {
        public let before: Int
        public let site: String
    }
}

/// How a run of a swarm came to be: a fresh seed, or a mutant of an earlier run.
public struct SwarmPlanEntry: Codable, Sendable, Equatable {
    public let file: String
    public let seed: UInt64
    public let mutation: SwarmMutation?

    public init(file: String, seed: UInt64, mutation: SwarmMutation? = nil) {
        self.file = file
        self.seed = seed
        self.mutation = mutation
    }
}

/// The fault schedule of a mutant: its faults at their statements, each only if its site is there, and the added
/// ones drawn from the mutant's own stream (named by the seed and the mutant's number) among the sites there.
struct MutantSchedule: FaultScheduler {
    let mutation: SwarmMutation
    let lines: SeededFaultSchedule
    private let random: RandomStream

    init(mutation: SwarmMutation, options: SwarmOptions, seed: UInt64, forecast: LinkForecast) {
        self.mutation = mutation
        lines = SeededFaultSchedule(options: options, seed: seed, forecast: forecast)
        random = RandomStream(seed: seed, name: "swarm-explore mutant \(mutation.number)")
    }

    func faults(before index: Int, in context: ScenarioContext) -> [ScheduledFault] {
        let planned = mutation.faults.filter { $0.before == index }
        let added = mutation.additions.filter { $0 == index }.count
        let redrawn = mutation.redraws.filter { $0.before == index }
        guard !planned.isEmpty || added > 0 || !redrawn.isEmpty else { return [] }
        let world = FaultSites(context, before: index, options: lines.options, forecast: lines.forecast)
        var faults = planned.filter { world.canRun($0.line) }
        for redraw in redrawn {
            if let line = world.draw(redraw.site, lines, random) { faults.append(ScheduledFault(before: index, line: line, site: redraw.site)) }
        }
        for _ in 0..<added {
            faults += world.draw(lines, random, swizzle: "swizzle added before \(index)").map {
                ScheduledFault(before: index, line: $0.line, site: $0.site)
            }
        }
        return faults
    }
}

/// The fault sites a world holds before a statement, within the fault classes a swarm allows.
struct FaultSites {
    let links: [(String, String)]
    let hosts: [String]
    let points: [String]
    let crashable: [String]
    let options: SwarmOptions
    private let linkNames: Set<String>

    init(_ context: ScenarioContext, before index: Int, options: SwarmOptions, forecast: LinkForecast) {
        let network = context.kernel.network
        links = options.faults.network ? forecast.links(before: index, used: network.usedLinks) : []
        hosts = options.faults.network ? network.hostNames : []
        points = options.faults.actors ? context.kernel.faults.all.map(\.name) : []
        crashable = options.faults.actors ? context.crashableActors : []
        self.options = options
        linkNames = Set(links.map { LinkForecast.name($0.0, $0.1) })
    }

    /// Whether a fault line names only sites that are here: its link (`A -> B`, `A <-> B`), clock, fault point or crashable actor.
    /// Moved or copied faults that are not are left out, as the seed's schedule would never have drawn them.
    func canRun(_ line: String) -> Bool {
        let words = SeededFaultSchedule.words(of: line).words
        if let arrow = words.firstIndex(where: { $0 == "->" || $0 == "<->" }), arrow > 0, arrow + 1 < words.count {
            let (a, b) = (words[arrow - 1], words[arrow + 1])
            return linkNames.contains(LinkForecast.name(a, b))
        }
        switch words.first {
        case "clock": return words.count > 1 && hosts.contains(words[1])
        case "fault": return words.count > 1 && points.contains(words[1])
        case "crash": return words.count > 1 && crashable.contains(words[1])
        default: return true
        }
    }

    /// One fault drawn from the site called `site` (as the seed's schedule names it), if it is here; nil for a swizzle,
    /// which is a set of faults, not one.
    func draw(_ site: String, _ lines: SeededFaultSchedule, _ random: RandomStream) -> String? {
        let words = site.split(separator: " ", maxSplits: 1).map(String.init)
        guard words.count == 2 else { return nil }
        switch words[0] {
        case "link":
            guard linkNames.contains(words[1]), let arrow = words[1].range(of: "<->") else { return nil }
            return lines.linkFault(String(words[1][..<arrow.lowerBound]), String(words[1][arrow.upperBound...]), random)
        case "clock": return hosts.contains(words[1]) ? lines.clockFault(words[1], random) : nil
        case "point": return points.contains(words[1]) ? lines.pointFault(words[1], random) : nil
        case "crash": return crashable.contains(words[1]) ? lines.crashFault(words[1], random) : nil
        default: return nil
        }
    }

    /// One fault as a seed would draw it: a class of sites chosen in proportion to its rate (among the classes
    /// with a site here), then one of its sites; nothing when no site is here.
    func draw(_ lines: SeededFaultSchedule, _ random: RandomStream, swizzle name: String) -> [(site: String, line: String)] {
        var classes: [(rate: Double, kind: Int)] = []
        if !links.isEmpty { classes.append((options.linkRate, 0)) }
        if !hosts.isEmpty { classes.append((options.clockRate, 1)) }
        if links.count >= 2 { classes.append((options.swizzleRate, 2)) }
        if !points.isEmpty { classes.append((options.pointRate, 3)) }
        if !crashable.isEmpty { classes.append((options.crashRate, 4)) }
        let total = classes.reduce(0) { $0 + $1.rate }
        guard total > 0 else { return [] }
        var pick = random.unit() * total
        var kind = classes[classes.count - 1].kind
        for entry in classes {
            if pick < entry.rate {
                kind = entry.kind
                break
            }
            pick -= entry.rate
        }
        switch kind {
        case 0:
            let (a, b) = links[random.int(in: 0...(links.count - 1))]
            return [("link \(a)<->\(b)", lines.linkFault(a, b, random))]
        case 1:
            let host = hosts[random.int(in: 0...(hosts.count - 1))]
            return [("clock \(host)", lines.clockFault(host, random))]
        case 2:
            return lines.swizzle(links, random).map { (name, $0) }
        case 3:
            let point = points[random.int(in: 0...(points.count - 1))]
            return [("point \(point)", lines.pointFault(point, random))]
        default:
            let actor = crashable[random.int(in: 0...(crashable.count - 1))]
            return [("crash \(actor)", lines.crashFault(actor, random))]
        }
    }
}
