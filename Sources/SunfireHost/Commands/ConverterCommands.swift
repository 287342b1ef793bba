import PrintDocuments

/// java (running the three converter jars), gs and pdftops, emulated on ``PrintDocuments`` but real in their output.
extension CommandContext {
    mutating func java(_ arguments: [String]) {
        outcome.duration += timing.javaStartup
        var jarPath: String?
        var mainClass: String?
        var rest = arguments[...]
        switch rest.popFirst() {
        case "-jar":
            guard let path = rest.popFirst() else { return fail("Error: -jar requires jar file specification") }
            jarPath = path
        case "-classpath", "-cp":
            guard let path = rest.popFirst(), let name = rest.popFirst() else {
                return fail("Error: -classpath requires class path specification")
            }
            jarPath = path
            mainClass = name
        default:
            return fail(
                "Usage: java [options] <mainclass> [args...]\n           (to execute a class)\n   or  java [options] -jar <jarfile> [args...]\n           (to execute a jar file)"
            )
        }
        guard let jarPath else { return }
        let jar: [UInt8]
        do {
            let resolved = try home.resolve(jarPath)
            guard try home.attributes(of: resolved).kind == .file else { throw FileSystemError(.isADirectory, jarPath) }
            jar = try home.readAll(resolved, limit: 128 << 20)
        } catch {
            return fail("Error: Unable to access jarfile \(jarPath)")
        }
        let info: JarInfo
        do {
            info = try JarFile.inspect(jar)
        } catch {
            return fail(
                mainClass == nil
                    ? "Error: Invalid or corrupt jarfile \(jarPath)"
                    : "Error: Could not find or load main class \(mainClass ?? "")\nCaused by: java.lang.ClassNotFoundException: \(mainClass ?? "")")
        }
        guard let entry = mainClass ?? info.mainClass else {
            return fail("no main manifest attribute, in \(jarPath)")
        }
        guard info.classNames.contains(entry) else {
            return fail("Error: Could not find or load main class \(entry)\nCaused by: java.lang.ClassNotFoundException: \(entry)")
        }
        let arguments = Array(rest)
        switch entry {
        case StandInJar.docsToPDF.mainClass: docsToPDF(arguments)
        case StandInJar.nupPDF.mainClass: nup(arguments)
        case "tool.pdf.Impose": impose(arguments)
        default:
            // A jar the host does not know runs and prints nothing useful, as a program without arguments would.
            fail("Exception in thread \"main\" java.lang.UnsupportedOperationException: \(entry) does not run on this host")
        }
    }

    private mutating func docsToPDF(_ arguments: [String]) {
        guard let input = value(after: "-i", in: arguments), let output = value(after: "-o", in: arguments) else {
            outcome.out("Usage: java -jar docs-to-pdf-converter-1.7.jar -i <input file> -o <output file>\n")
            outcome.exitStatus = 1
            return
        }
        guard let bytes = readQuietly(input) else {
            outcome.out("Error converting \(input): java.io.FileNotFoundException: \(input) (No such file or directory)\n")
            outcome.exitStatus = 1
            return
        }
        apply(
            DocsToPDFConverter.convert(input: bytes, inputPath: input, outputPath: output), tool: "docs-to-pdf", input: input,
            perPage: timing.docsToPDFPerPage)
    }

    private mutating func nup(_ arguments: [String]) {
        guard arguments.count == 3, let perSheet = Int(arguments[2]) else {
            outcome.out("Usage: java -jar nup_pdf.jar <input.pdf> <output.pdf> <pages per sheet>\n")
            outcome.exitStatus = 1
            return
        }
        guard let bytes = readQuietly(arguments[0]) else {
            outcome.out("java.io.FileNotFoundException: \(arguments[0]) (No such file or directory)\n")
            outcome.exitStatus = 1
            return
        }
        apply(
            NUpPDF.convert(input: bytes, inputPath: arguments[0], outputPath: arguments[1], perSheet: perSheet), tool: "nup_pdf",
            input: arguments[0], perPage: timing.nupPerPage)
    }

    private mutating func impose(_ arguments: [String]) {
        let paper = value(after: "-paper", in: arguments) ?? "letter"
        let perSheet = value(after: "-nup", in: arguments).flatMap { Int($0) } ?? 1
        guard let input = arguments.last, !input.hasPrefix("-") else {
            outcome.out("Usage: java tool.pdf.Impose [-paper a4|letter] [-nup N] <file.pdf>\n")
            outcome.exitStatus = 1
            return
        }
        guard let bytes = readQuietly(input) else {
            outcome.out("java.io.FileNotFoundException: \(input) (No such file or directory)\n")
            outcome.exitStatus = 1
            return
        }
        apply(
            MultivalentImpose.impose(input: bytes, inputPath: input, perSheet: perSheet, paper: paper), tool: "Impose",
            input: input, perPage: timing.imposePerPage)
    }

    mutating func ghostscript(_ arguments: [String]) {
        var first: Int?
        var last: Int?
        var output: String?
        var input: String?
        for argument in arguments {
            if argument.hasPrefix("-dFirstPage=") {
                first = Int(argument.dropFirst("-dFirstPage=".count))
            } else if argument.hasPrefix("-dLastPage=") {
                last = Int(argument.dropFirst("-dLastPage=".count))
            } else if argument.hasPrefix("-sOutputFile=") {
                output = String(argument.dropFirst("-sOutputFile=".count))
            } else if argument == "-sDEVICE=pdfwrite" || ["-dNOPAUSE", "-dBATCH", "-dSAFER", "-q"].contains(argument) {
                continue
            } else if argument.hasPrefix("-") {
                outcome.out(Ghostscript.banner)
                return fail("Unknown switch \(argument) - ignoring", status: 1)
            } else {
                input = argument
            }
        }
        guard let input, let output else {
            return fail("Usage: gs -sDEVICE=pdfwrite -dNOPAUSE -dBATCH -dSAFER [-dFirstPage=N] [-dLastPage=N] -sOutputFile=OUT IN")
        }
        apply(
            Ghostscript.pdfwrite(input: readQuietly(input), inputPath: input, outputPath: output, firstPage: first, lastPage: last),
            tool: "gs", input: input, perPage: timing.ghostscriptPerPage)
    }

    mutating func pdftops(_ arguments: [String]) {
        let files = arguments.filter { !$0.hasPrefix("-") }
        guard files.count == 2 else {
            return fail("pdftops version 22.12.0\nUsage: pdftops [options] <PDF-file> [<PS-file>]", status: 99)
        }
        apply(
            PDFToPS.convert(input: readQuietly(files[0]), inputPath: files[0], outputPath: files[1]), tool: "pdftops",
            input: files[0], perPage: timing.pdftopsPerPage)
    }

    /// Prints what the tool printed, writes its file, spends its time, and records the conversion.
    private mutating func apply(_ result: ConversionResult, tool: String, input: String, perPage: Duration) {
        outcome.out(result.printed.stdout)
        outcome.err(result.printed.stderr)
        outcome.exitStatus = result.printed.exitStatus
        spend(perPage * max(1, result.pages))
        guard let bytes = result.output, let path = result.outputPath else { return }
        guard writeFile(path, bytes, tool: tool) else { return }
        event("conversion", [("tool", tool), ("input", input), ("output", path), ("pages", String(result.pages))])
    }

    private func readQuietly(_ path: String) -> [UInt8]? {
        guard let resolved = try? home.resolve(path), (try? home.attributes(of: resolved))?.kind == .file else { return nil }
        return try? home.readAll(resolved, limit: UnixHost.maximumDocumentBytes)
    }

    private func value(after flag: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
}
