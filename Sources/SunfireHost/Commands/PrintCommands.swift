import PrintDocuments

/// What a print command asks of the host's ``PrintSpooler`` once its files are read: done on the host's event loop.
enum SpoolerStep: Sendable {
    case lpr(printer: String, files: [String], bytes: Int, pages: Int)
    case lpq([String])
    case lprm([String])
}

/// lpr, lpq, lprm against the host's ``PrintSpooler``: lpr reads its files in the command's first step, the spooler is
/// asked in the second (``spool(_:)``).
extension CommandContext {
    mutating func spool(_ step: SpoolerStep) {
        switch step {
        case .lpr(let printer, let files, let bytes, let pages): submit(printer: printer, files: files, bytes: bytes, pages: pages)
        case .lpq(let arguments): lpq(arguments)
        case .lprm(let arguments): lprm(arguments)
        }
    }

    mutating func lpr(_ arguments: [String]) {
        var printer: String?
        var files: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "-P" {
                printer = rest.popFirst()
            } else if argument.hasPrefix("-P"), argument.count > 2 {
                printer = String(argument.dropFirst(2))
            } else if argument.hasPrefix("-") {
                return fail("lpr: unknown option \(argument)")
            } else {
                files.append(argument)
            }
        }
        guard let printer else { return fail("lpr: no printer specified (use -P printer)") }
        guard !files.isEmpty else { return fail("lpr: no files to print (standard input is not read on this host)") }
        var bytes = 0
        var pages = 0
        for file in files {
            guard let data = readFile(file, tool: "lpr") else { return }
            bytes += data.count
            // A PostScript printer without an input filter prints anything else as one error sheet
            // ("%%[ Error: undefined; OffendingCommand: … ]%%"): that is what a PDF sent straight to lpr gives.
            pages += PostScriptReader.isPostScript(data) ? max(1, PostScriptReader.pageCount(data) ?? 1) : 1
        }
        let names = files.map { $0.split(separator: "/").last.map(String.init) ?? $0 }
        spoolerStep = .lpr(printer: printer, files: names, bytes: bytes, pages: pages)
    }

    private mutating func submit(printer: String, files names: [String], bytes: Int, pages: Int) {
        do {
            let (_, events) = try host.spooler.submit(
                printer: printer, owner: user, files: names, bytes: bytes, pages: pages, now: now,
                faults: faults)
            outcome.events += events
        } catch {
            fail(error.description)
        }
    }

    private mutating func lpq(_ arguments: [String]) {
        let printer = printerOption(arguments) ?? "psts"
        guard host.spooler.state(of: printer) != nil else { return fail("lpq: \(printer): unknown printer") }
        outcome.out(host.spooler.lpq(printer))
    }

    private mutating func lprm(_ arguments: [String]) {
        guard let printer = printerOption(arguments) else { return fail("lprm: no printer specified (use -P printer)") }
        guard host.spooler.state(of: printer) != nil else { return fail("lprm: \(printer): unknown printer") }
        let operands = arguments.filter { !$0.hasPrefix("-P") && $0 != printer }
        if operands.contains("-") || operands.isEmpty {
            let removed = host.spooler.remove(owner: user, printer: printer, jobID: nil, now: now)
            outcome.out(removed.lines.map { $0 + "\n" }.joined())
            outcome.events += removed.events
        } else {
            for operand in operands {
                guard let id = Int(operand) else { return fail("lprm: \(operand): invalid job number") }
                let removed = host.spooler.remove(owner: user, printer: printer, jobID: id, now: now)
                outcome.out(removed.lines.map { $0 + "\n" }.joined())
                outcome.events += removed.events
            }
        }
    }

    private func printerOption(_ arguments: [String]) -> String? {
        if let index = arguments.firstIndex(of: "-P"), index + 1 < arguments.count { return arguments[index + 1] }
        return arguments.first { $0.hasPrefix("-P") && $0.count > 2 }.map { String($0.dropFirst(2)) }
    }
}
