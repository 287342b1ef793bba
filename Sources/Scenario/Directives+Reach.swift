import Kernel
import Wire

/// Directives about what a run explored and whether the world recovers: `sometimes` counts an outcome without
/// requiring it; `after heal` ends every fault and starts the part of a workload that must succeed.
extension Directive {
    static let reach: [Directive] = [
        Directive(
            "sometimes",
            usage: "sometimes CONDITION [as LABEL]",
            summary: "count an outcome worth reaching (any 'expect' condition) without requiring it; the swarm reports the seeds that reached it",
            defaults: "as FILE:LINE (the file's name and the line's number)",
            keywords: ["as", "in", "trace", "reached", "==", "!=", "contains", "!contains", "matches", "<", "<=", ">", ">="]
        ) { args throws(ScenarioError) in
            // `as LABEL` ends the line: the condition is what comes before it.
            var tokens = args.remaining
            var label = "\(args.file.split(separator: "/").last.map(String.init) ?? args.file):\(args.line)"
            var labelColumn = args.directiveColumn
            if tokens.count >= 2, tokens[tokens.count - 2].text == "as", !tokens[tokens.count - 2].quoted {
                var named = Arguments(file: args.file, line: args.line, directiveColumn: args.directiveColumn, tokens: [tokens[tokens.count - 1]])
                labelColumn = tokens[tokens.count - 1].column
                label = try named.name("a label for the reach point")
                tokens.removeLast(2)
            }
            guard !tokens.isEmpty else { throw args.error("expected a condition after 'sometimes', like ${p.status} == ok") }
            var inner = Arguments(file: args.file, line: args.line, directiveColumn: args.directiveColumn, tokens: tokens)
            let condition = try Expectations.condition(&inner)
            try inner.end()
            while !args.isEmpty { _ = try args.take("") }
            args.names = inner.names + [NameUse(kind: .reachLabel, name: label, column: labelColumn)]
            let point = label
            return Run { context in
                // Never a failure: a condition that cannot be checked (a result that failed gives no field) is not reached.
                do {
                    if try condition.failure(context) == nil { context.reached.insert(point) }
                } catch {}
                return nil
            }
        },
        Directive(
            "after",
            usage: "after heal [within DURATION]",
            summary: "end every fault (paths healed, clocks on time, fault points off, pending 'later' faults dropped); "
                + "a swarm draws no fault from here on, and the rest must run within DURATION (default 10m) of virtual time",
            defaults: "within 10m",
            keywords: ["heal", "within"]
        ) { args throws(ScenarioError) in
            try args.expect("heal", "after 'after' (the only form is 'after heal [within DURATION]')")
            var bound = Template(literal: "10m")
            if args.accept("within") { bound = try args.duration() }
            try args.end()
            let limit = bound
            return Run { context in
                let within = try limit.duration(context)
                guard within > .zero else { throw StepError("after heal within \(within.workbenchText): expected a positive duration") }
                let healed = context.world.healAll()
                // As `clock NODE skew 0s` would say it: whoever follows the nodes' clocks in the trace sees them set right.
                for node in healed.clocks {
                    context.world.record(
                        actor: "scenario", event: "clock-skew", fields: [("node", node), ("skew", Duration.zero.workbenchText)])
                }
                context.healEpoch += 1
                context.recovery = (deadline: context.world.now + within, line: context.line, within: within)
                context.world.record(
                    actor: "scenario", event: "after-heal",
                    fields: [
                        ("links", String(healed.links)), ("clocks", String(healed.clocks.count)), ("points", String(healed.points)),
                        ("within", within.workbenchText),
                    ])
                return nil
            }
        },
    ]
}
