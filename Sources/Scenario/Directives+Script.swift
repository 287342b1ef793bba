import Kernel
import Wire

/// Directives about the scenario itself: names, output, variables, waiting, and expectations.
extension Directive {
    static let script: [Directive] = [
        Directive("scenario", usage: "scenario TITLE", summary: "name the scenario (used in reports)", live: .runs) { args throws(ScenarioError) in
            let title = try args.value("a title")
            try args.end()
            return Run { context in
                context.title = try title.resolve(context)
                return nil
            }
        },
        Directive("section", usage: "section TITLE", summary: "print a heading", live: .runs) { args throws(ScenarioError) in
            let title = try args.value("a title")
            try args.end()
            return Run { context in
                let text = try title.resolve(context)
                // In the trace too: the timeline report draws it as a heading at its moment.
                context.world.record(actor: "scenario", event: "section", fields: [("title", text)])
                context.output("\n== \(text) ==")
                return nil
            }
        },
        Directive("print", usage: "print TEXT…", summary: "print text (variables filled in)", live: .runs) { args throws(ScenarioError) in
            let parts = args.remaining.map { Template($0) }
            while !args.isEmpty { _ = try args.take("text") }
            return Run { context in
                context.output(try parts.map { try $0.resolve(context) }.joined(separator: " "))
                return nil
            }
        },
        Directive("let", usage: "let NAME = VALUE", summary: "set a variable", keywords: ["="], live: .runs) { args throws(ScenarioError) in
            let name = try args.name("a variable name")
            try args.expect("=", "after the variable name")
            let value = try args.value("a value")
            try args.end()
            args.binds(name, fields: [""])
            return Run { context in
                context.publish(name, ["": try value.resolve(context)])
                return nil
            }
        },
        Directive(
            "capture", usage: "capture NAME from VALUE matching REGEX",
            summary: "set NAME to the regex's first group (or whole match) in VALUE", keywords: ["from", "matching"], live: .runs
        ) { args throws(ScenarioError) in
            let name = try args.name("a variable name")
            try args.expect("from", "after the variable name")
            let source = try args.value("the text to search")
            try args.expect("matching", "after the text")
            let patternToken = try args.take("a regular expression")
            do { _ = try Regex(patternToken.text) } catch {
                throw ScenarioError(
                    file: args.file, line: args.line, column: patternToken.column,
                    message: "expected a regular expression: \(error)")
            }
            try args.end()
            args.binds(name, fields: [""])
            let pattern = Template(patternToken)
            return Run { context in
                let text = try source.resolve(context)
                let regex = try Regex(try pattern.resolve(context))
                guard let match = try regex.firstMatch(in: text) else {
                    throw StepError("capture \(name): /\(patternToken.text)/ does not match \(quoteForMessage(text))")
                }
                let value = match.output.count > 1 ? match.output[1].substring.map(String.init) ?? "" : String(match.output[0].substring ?? "")
                context.publish(name, ["": value])
                return nil
            }
        },
        Directive("mark", usage: "mark NAME", summary: "remember the current virtual time for 'expect elapsed since NAME'", live: .runs) {
            args throws(ScenarioError) in
            let name = try args.name("a mark name")
            try args.end()
            args.binds(name, fields: [""])
            return Run { context in
                context.marks[name] = context.world.now
                context.publish(name, ["": context.world.now.workbenchText])
                return nil
            }
        },
        Directive(
            "wait", usage: "wait until trace EVENT [by NODE] [FIELD=VALUE]… [within DURATION]",
            summary: "let time pass until an event appears in the trace", defaults: "by any node, any fields, within 60s",
            keywords: ["until", "trace", "by", "within"], live: .runs
        ) { args throws(ScenarioError) in
            try args.expect("until")
            try args.expect("trace", "after 'until'")
            let pattern = try TracePattern.parse(&args, allowWithin: true)
            return Run { context in
                let limit = try pattern.within.duration(context)
                let fields = try pattern.resolvedFields(context)
                let world = context.world
                // Events recorded before this step count too.
                var found = world.events.contains { pattern.matches($0, fields) }
                var seen = world.traceCount
                world.run(
                    for: limit,
                    while: {
                        // Only the events recorded since the last look (a live world's journal may have dropped old
                        // ones, but it counts them all, so the newest are its last `count - seen`).
                        let count = world.traceCount
                        if !found, count > seen {
                            found = world.events.suffix(count - seen).contains { pattern.matches($0, fields) }
                            seen = count
                        }
                        return !found
                    })
                guard found else { throw StepError("no trace event \(pattern.text) within \(limit.workbenchText)") }
                return nil
            }
        },
        Directive(
            "expect",
            usage:
                "expect VALUE OP VALUE | expect VALUE in A B… | expect [no] trace EVENT [by NODE] [FIELD=VALUE]… | expect elapsed since MARK OP DURATION | expect requests NODE [REQUEST] [status S] count OP N",
            summary: "check an outcome; OP is == != contains !contains matches < <= > >=; 'in' names the acceptable outcomes "
                + "(live, two durations are equal within 50 ms or a quarter of the one named, the larger, either way)",
            defaults: "trace: by any node, any fields; requests: any request, any status",
            keywords: [
                "in", "trace", "no", "by", "elapsed", "since", "requests", "==", "!=", "contains", "!contains", "matches", "<",
                "<=", ">", ">=",
            ],
            live: .runs
        ) { args throws(ScenarioError) in
            try Expectations.parse(&args)
        },
    ]
}

func quoteForMessage(_ text: String) -> String {
    let short = text.count > 200 ? String(text.prefix(200)) + "…" : text
    return "\"" + short.replacingOccurrences(of: "\n", with: "\\n") + "\""
}
