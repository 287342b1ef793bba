/// `find PATH… EXPRESSION` with the primaries the app's housekeeping uses: `-type f|d`, `-name PATTERN`, `!`,
/// `\(` `\)`, `-a`, `-o`, `-print`, and `-exec CMD {} \;` running the host's own commands.
extension CommandContext {
    indirect enum FindExpression {
        case type(FileAttributes.Kind)
        case name(String)
        case print
        case exec([String])
        case not(FindExpression)
        case and(FindExpression, FindExpression)
        case or(FindExpression, FindExpression)
        case always

        var hasAction: Bool {
            switch self {
            case .print, .exec: true
            case .not(let inner): inner.hasAction
            case .and(let a, let b), .or(let a, let b): a.hasAction || b.hasAction
            default: false
            }
        }
    }

    struct FindSyntaxError: Error { let message: String }

    mutating func find(_ arguments: [String]) {
        let split = arguments.firstIndex { $0.hasPrefix("-") || $0 == "!" || $0 == "(" || $0 == ")" } ?? arguments.count
        let roots = split == 0 ? ["."] : Array(arguments[..<split])
        var tokens = arguments[split...]
        var expression = FindExpression.always
        do {
            if !tokens.isEmpty {
                expression = try Self.parseOr(&tokens)
                if let extra = tokens.first { throw FindSyntaxError(message: "find: paths must precede expression: `\(extra)'") }
            }
        } catch let error as FindSyntaxError {
            return fail(error.message)
        } catch {
            return fail("find: \(error)")
        }
        if !expression.hasAction { expression = .and(expression, .print) }
        for root in roots {
            let resolved: String
            do {
                resolved = try home.resolve(root)
                _ = try home.attributes(of: resolved)
            } catch {
                fail("find: '\(root)': \(error)")
                continue
            }
            // Walk first, then act: -exec rm must not pull files from under the walk.
            var visited: [(display: String, path: String)] = []
            walk(resolved, display: root, into: &visited)
            for entry in visited { _ = evaluate(expression, entry.path, entry.display) }
        }
    }

    private func walk(_ path: String, display: String, into visited: inout [(display: String, path: String)]) {
        visited.append((display, path))
        guard visited.count < 100_000, (try? home.attributes(of: path))?.kind == .directory,
            let names = try? home.contentsOfDirectory(path)
        else { return }
        for name in names {
            let child = path.isEmpty ? name : path + "/" + name
            walk(child, display: display.hasSuffix("/") ? display + name : display + "/" + name, into: &visited)
        }
    }

    private mutating func evaluate(_ expression: FindExpression, _ path: String, _ display: String) -> Bool {
        switch expression {
        case .always: return true
        case .type(let kind): return (try? home.attributes(of: path))?.kind == kind
        case .name(let pattern):
            let base = display.split(separator: "/").last.map(String.init) ?? display
            return Self.matches(Array(pattern.unicodeScalars), Array(base.unicodeScalars))
        case .print:
            outcome.out(display + "\n")
            return true
        case .exec(let command):
            guard let name = command.first else { return false }
            let before = outcome.exitStatus
            outcome.exitStatus = 0
            dispatch(name, command.dropFirst().map { $0.replacingAll("{}", with: display) })
            let succeeded = outcome.exitStatus == 0
            outcome.exitStatus = before
            return succeeded
        case .not(let inner): return !evaluate(inner, path, display)
        case .and(let a, let b): return evaluate(a, path, display) && evaluate(b, path, display)
        case .or(let a, let b): return evaluate(a, path, display) || evaluate(b, path, display)
        }
    }

    private static func parseOr(_ tokens: inout ArraySlice<String>) throws -> FindExpression {
        var left = try parseAnd(&tokens)
        while tokens.first == "-o" || tokens.first == "-or" {
            tokens.removeFirst()
            left = .or(left, try parseAnd(&tokens))
        }
        return left
    }

    private static func parseAnd(_ tokens: inout ArraySlice<String>) throws -> FindExpression {
        var left = try parseUnary(&tokens)
        while let next = tokens.first, next != "-o", next != "-or", next != ")" {
            if next == "-a" || next == "-and" { tokens.removeFirst() }
            left = .and(left, try parseUnary(&tokens))
        }
        return left
    }

    private static func parseUnary(_ tokens: inout ArraySlice<String>) throws -> FindExpression {
        guard let token = tokens.popFirst() else { throw FindSyntaxError(message: "find: expected an expression") }
        switch token {
        case "!", "-not":
            return .not(try parseUnary(&tokens))
        case "(":
            let inner = try parseOr(&tokens)
            guard tokens.popFirst() == ")" else {
                throw FindSyntaxError(message: "find: invalid expression; I was expecting to find a ')' somewhere but did not see one.")
            }
            return inner
        case "-type":
            switch tokens.popFirst() {
            case "f": return .type(.file)
            case "d": return .type(.directory)
            case let other?: throw FindSyntaxError(message: "find: Unknown argument to -type: \(other)")
            case nil: throw FindSyntaxError(message: "find: missing argument to `-type'")
            }
        case "-name":
            guard let pattern = tokens.popFirst() else { throw FindSyntaxError(message: "find: missing argument to `-name'") }
            return .name(pattern)
        case "-print":
            return .print
        case "-exec":
            var command: [String] = []
            while let word = tokens.popFirst() {
                if word == ";" { return .exec(command) }
                command.append(word)
            }
            throw FindSyntaxError(message: "find: missing argument to `-exec'")
        default:
            throw FindSyntaxError(message: "find: unknown predicate `\(token)'")
        }
    }

    /// fnmatch(3) without flags: `*`, `?`, `[…]` (with `!`/`^` and ranges) and `\` escapes.
    static func matches(_ pattern: [Unicode.Scalar], _ name: [Unicode.Scalar]) -> Bool {
        var p = 0
        var n = 0
        var star: (p: Int, n: Int)?
        while n < name.count {
            if p < pattern.count {
                switch pattern[p] {
                case "*":
                    star = (p, n)
                    p += 1
                    continue
                case "?":
                    p += 1
                    n += 1
                    continue
                case "[":
                    if let (matched, next) = bracket(pattern, p, name[n]) {
                        if matched {
                            p = next
                            n += 1
                            continue
                        }
                    } else if name[n] == "[" {
                        p += 1
                        n += 1
                        continue
                    }
                case "\\" where p + 1 < pattern.count:
                    if pattern[p + 1] == name[n] {
                        p += 2
                        n += 1
                        continue
                    }
                default:
                    if pattern[p] == name[n] {
                        p += 1
                        n += 1
                        continue
                    }
                }
            }
            guard let last = star else { return false }
            p = last.p + 1
            n = last.n + 1
            star = (last.p, last.n + 1)
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }

    /// A bracket expression at `start`: whether `character` matches it and where it ends; nil when unterminated.
    private static func bracket(_ pattern: [Unicode.Scalar], _ start: Int, _ character: Unicode.Scalar) -> (Bool, Int)? {
        var index = start + 1
        let negate = index < pattern.count && (pattern[index] == "!" || pattern[index] == "^")
        if negate { index += 1 }
        var matched = false
        var first = true
        while index < pattern.count, pattern[index] != "]" || first {
            first = false
            if index + 2 < pattern.count, pattern[index + 1] == "-", pattern[index + 2] != "]" {
                if pattern[index].value <= character.value && character.value <= pattern[index + 2].value { matched = true }
                index += 3
            } else {
                if pattern[index] == character { matched = true }
                index += 1
            }
        }
        guard index < pattern.count else { return nil }
        return (matched != negate, index + 1)
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
