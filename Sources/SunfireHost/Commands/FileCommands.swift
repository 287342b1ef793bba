import COpenSSL

/// mkdir, rm, ls, cat, md5: the file commands the app and a curious user run.
extension CommandContext {
    mutating func mkdir(_ arguments: [String]) {
        let parents = arguments.contains("-p")
        let paths = arguments.filter { $0 != "-p" && $0 != "--" }
        guard !paths.isEmpty else { return fail("mkdir: missing operand") }
        for path in paths {
            do {
                let resolved = try home.resolve(path)
                if parents {
                    var built = ""
                    for component in resolved.split(separator: "/") {
                        built = built.isEmpty ? String(component) : built + "/" + component
                        if !home.exists(built) { try home.createDirectory(built, permissions: 0o755) }
                    }
                } else {
                    try home.createDirectory(resolved, permissions: 0o755)
                }
            } catch {
                fail("mkdir: cannot create directory '\(path)': \(error)")
            }
        }
    }

    mutating func rm(_ arguments: [String]) {
        var force = false
        var recursive = false
        var paths: [String] = []
        var options = true
        for argument in arguments {
            if options, argument == "--" {
                options = false
                continue
            }
            if options, argument.hasPrefix("-"), argument.count > 1 {
                for flag in argument.dropFirst() {
                    switch flag {
                    case "f": force = true
                    case "r", "R": recursive = true
                    default: return fail("rm: invalid option -- '\(flag)'")
                    }
                }
            } else {
                paths.append(argument)
            }
        }
        guard !paths.isEmpty else { return force ? () : fail("rm: missing operand") }
        for path in paths {
            do {
                let resolved = try home.resolve(path)
                guard !resolved.isEmpty else { throw FileSystemError(.permissionDenied, path) }
                if try home.attributes(of: resolved).kind == .directory {
                    guard recursive else {
                        fail("rm: cannot remove '\(path)': Is a directory")
                        continue
                    }
                    try removeTree(resolved)
                } else {
                    try home.removeFile(resolved)
                }
            } catch let error as FileSystemError {
                if force && error.code == .noSuchFile { continue }
                fail("rm: cannot remove '\(path)': \(error)")
            } catch {
                fail("rm: cannot remove '\(path)': \(error)")
            }
        }
    }

    private func removeTree(_ path: String) throws(FileSystemError) {
        for name in try home.contentsOfDirectory(path) {
            let child = path + "/" + name
            if try home.attributes(of: child).kind == .directory { try removeTree(child) } else { try home.removeFile(child) }
        }
        try home.removeDirectory(path)
    }

    mutating func ls(_ arguments: [String]) {
        var long = false
        var all = false
        var paths = arguments.filter { argument in
            guard argument.hasPrefix("-"), argument.count > 1 else { return true }
            long = long || argument.contains("l")
            all = all || argument.contains("a")
            return false
        }
        if paths.isEmpty { paths = ["."] }
        for path in paths {
            do {
                let resolved = try home.resolve(path)
                let attributes = try home.attributes(of: resolved)
                guard attributes.kind == .directory else {
                    outcome.out((long ? longLine(path, attributes) : path) + "\n")
                    continue
                }
                if paths.count > 1 { outcome.out("\(path):\n") }
                let names = (all ? [".", ".."] : []) + (try home.contentsOfDirectory(resolved)).filter { all || !$0.hasPrefix(".") }
                if long { outcome.out("total \(names.count * 4)\n") }
                for name in names {
                    let child = name == "." || name == ".." ? resolved : (resolved.isEmpty ? name : resolved + "/" + name)
                    let childAttributes = (try? home.attributes(of: child)) ?? attributes
                    outcome.out((long ? longLine(name, childAttributes) : name) + "\n")
                }
            } catch {
                fail("ls: cannot access '\(path)': \(error)", status: 2)
            }
        }
    }

    private func longLine(_ name: String, _ attributes: FileAttributes) -> String {
        var bits = attributes.kind == .directory ? "d" : "-"
        for shift in [6, 3, 0] {
            for (index, letter) in ["r", "w", "x"].enumerated() {
                bits += attributes.permissions >> UInt32(shift) & (4 >> UInt32(index)) != 0 ? letter : "-"
            }
        }
        let size = String(attributes.size)
        return "\(bits) 1 \(user) \(user) \(String(repeating: " ", count: max(0, 8 - size.count)))\(size) \(name)"
    }

    mutating func cat(_ arguments: [String]) {
        for path in arguments {
            guard let bytes = readFile(path, tool: "cat") else { continue }
            outcome.stdout += bytes
        }
    }

    /// `md5 FILE`: the UPPERCASE hex digest first on the line (the app checks that stdout starts with it), then the
    /// file name — Sunfire's md5 prints `DIGEST  FILE`. The digest streams over the file, a megabyte at a time.
    mutating func md5(_ arguments: [String]) {
        let paths = arguments.filter { !$0.hasPrefix("-") }
        guard !paths.isEmpty else { return fail("usage: md5 file ...") }
        for path in paths {
            do {
                let resolved = try home.resolve(path)
                let attributes = try home.attributes(of: resolved)
                guard attributes.kind == .file else { throw FileSystemError(.isADirectory, path) }
                guard let context = EVP_MD_CTX_new() else { return fail("md5: out of memory") }
                defer { EVP_MD_CTX_free(context) }
                EVP_DigestInit_ex(context, EVP_md5(), nil)
                var offset: Int64 = 0
                while offset < attributes.size {
                    let chunk = try home.read(resolved, at: offset, count: 1 << 20)
                    if chunk.isEmpty { break }
                    chunk.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
                    offset += Int64(chunk.count)
                }
                var digest = [UInt8](repeating: 0, count: 16)
                var length: UInt32 = 0
                EVP_DigestFinal_ex(context, &digest, &length)
                let hex = digest.map { byte in
                    let text = String(byte, radix: 16, uppercase: true)
                    return text.count == 1 ? "0" + text : text
                }.joined()
                outcome.out("\(hex)  \(path)\n")
                outcome.duration += timing.md5PerMiB * Int(max(1, attributes.size >> 20))
            } catch {
                fail("md5: \(path): \(error)")
            }
        }
    }
}
