/// The `scp` command an SCP client runs on the host: `scp -t [-r] [-d] [-p] [-v] TARGET` to upload (sink) or
/// `scp -f [-p] [-v] PATH…` to download (source). OpenSSH's `scp -O` and libssh2 (curl, NMSSH) both run these.
enum SCPCommand {
    case sink(SCPSink.Options)
    case source(paths: [String])
    case invalid(String)

    /// nil when `command` is not an scp invocation; `words` splits it as the host's shell would (libssh2 quotes paths).
    init?(_ command: String, words: (String) throws -> [String]) {
        guard command.hasPrefix("scp ") || command == "scp" else { return nil }
        guard let parts = try? words(command) else {
            self = .invalid("cannot parse the command line: \(command)")
            return
        }
        var sink = false
        var source = false
        var options = SCPSink.Options(target: "")
        var operands: [String] = []
        var index = 1
        while index < parts.count {
            let word = parts[index]
            index += 1
            if word == "--" {
                operands += parts[index...]
                break
            }
            guard word.hasPrefix("-"), word.count > 1 else {
                operands.append(word)
                continue
            }
            for flag in word.dropFirst() {
                switch flag {
                case "t": sink = true
                case "f": source = true
                case "r": options.recursive = true
                case "d": options.targetMustBeDirectory = true
                case "p": options.preserveTimes = true
                case "v", "q": break
                default:
                    self = .invalid("unknown option -\(flag); this host runs scp only as a copy's remote end (-t or -f)")
                    return
                }
            }
        }
        switch (sink, source) {
        case (true, false):
            guard operands.count == 1 else {
                self = .invalid("-t needs exactly one target, found \(operands.count)")
                return
            }
            options.target = operands[0]
            self = .sink(options)
        case (false, true):
            guard !operands.isEmpty, !options.recursive else {
                self = .invalid(options.recursive ? "recursive downloads (-r with -f) are not available on this host" : "-f needs at least one path")
                return
            }
            self = .source(paths: operands)
        default:
            self = .invalid("expected exactly one of -t (receive) or -f (send)")
        }
    }
}
