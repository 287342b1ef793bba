/// What a host running `scp -t` reads from the sending side (OpenSSH's legacy SCP protocol, which libssh2 — the
/// iOS app's NMSSH — and `scp -O` speak).
enum SCPSinkEvent: Equatable {
    /// `C<mode> <size> <name>`: a file follows once the sink acknowledges it (``SCPSinkParser/acceptFile()``).
    case file(mode: UInt32, size: UInt64, name: String)
    /// `D<mode> 0 <name>`: a directory to enter (recursive copies).
    case directory(mode: UInt32, name: String)
    /// `E`: leave the current directory.
    case endDirectory
    /// `T<mtime> 0 <atime> 0`: times for the next file or directory.
    case times(modified: UInt64, accessed: UInt64)
    /// Bytes of the accepted file, in order.
    case fileData(ArraySlice<UInt8>)
    /// The status byte the sender writes after a file's bytes: 0 when it read the whole file itself.
    case fileEnd(senderOK: Bool)
    /// `\x01…` (a warning about one file) or `\x02…` (fatal) from the sender.
    case senderError(fatal: Bool, message: String)
}

/// A violation of the protocol: the sink answers `\x02scp: protocol error: …` and exits 1.
struct SCPProtocolError: Error, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Splits the sender's byte stream into ``SCPSinkEvent``s: control lines, then raw file bytes of the announced size.
///
/// Sans-I/O: the channel feeds bytes in and acts on events, so the parser runs the same under simulation, live, and in
/// tests. After a `.file` event the parser waits for the sink's decision: an accepted file's bytes follow, a refused
/// one's do not (the sender skips it when it reads the sink's `\x01` answer).
struct SCPSinkParser {
    /// OpenSSH's sink reads control lines into a 2048-byte buffer; a longer line is an error there too.
    static let maximumLineLength = 2048

    private enum State: Equatable {
        case line
        case awaitingDecision(size: UInt64)
        case data(remaining: UInt64)
        case status
    }

    private var state = State.line
    private var buffer: [UInt8] = []
    private var start = 0

    mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 65_536, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Whether bytes are waiting that no event has consumed yet.
    var hasUnreadBytes: Bool { start < buffer.count }

    /// The next event, or nil when more bytes (or the sink's decision on a file) are needed.
    mutating func next() throws(SCPProtocolError) -> SCPSinkEvent? {
        switch state {
        case .awaitingDecision:
            return nil
        case .data(let remaining):
            guard start < buffer.count else { return nil }
            let available = UInt64(buffer.count - start)
            let count = Int(min(available, remaining))
            let slice = buffer[start..<start + count]
            start += count
            let left = remaining - UInt64(count)
            state = left == 0 ? .status : .data(remaining: left)
            return .fileData(slice)
        case .status:
            guard start < buffer.count else { return nil }
            let byte = buffer[start]
            start += 1
            state = .line
            return .fileEnd(senderOK: byte == 0)
        case .line:
            return try nextLine()
        }
    }

    /// The sink took the announced file: its bytes come next.
    mutating func acceptFile() {
        guard case .awaitingDecision(let size) = state else { return }
        state = size == 0 ? .status : .data(remaining: size)
    }

    /// The sink refused the announced file: the sender will not send it.
    mutating func refuseFile() {
        if case .awaitingDecision = state { state = .line }
    }

    private mutating func nextLine() throws(SCPProtocolError) -> SCPSinkEvent? {
        guard let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.count - start > Self.maximumLineLength {
                throw SCPProtocolError("control line longer than \(Self.maximumLineLength) bytes")
            }
            return nil
        }
        guard newline - start <= Self.maximumLineLength else {
            throw SCPProtocolError("control line longer than \(Self.maximumLineLength) bytes")
        }
        let line = buffer[start..<newline]
        start = newline + 1
        guard let kind = line.first else { throw SCPProtocolError("empty control line; expected C, D, E or T") }
        let rest = String(decoding: line.dropFirst(), as: UTF8.self)
        switch kind {
        case 1, 2:
            return .senderError(fatal: kind == 2, message: rest)
        case UInt8(ascii: "E"):
            guard rest.isEmpty else { throw SCPProtocolError("unexpected text after E") }
            return .endDirectory
        case UInt8(ascii: "T"):
            let fields = rest.split(separator: " ")
            guard fields.count == 4, let modified = UInt64(fields[0]), let accessed = UInt64(fields[2]),
                fields[1].allSatisfy(\.isNumber), fields[3].allSatisfy(\.isNumber)
            else {
                throw SCPProtocolError("expected 'T<mtime> 0 <atime> 0', found 'T\(rest)'")
            }
            return .times(modified: modified, accessed: accessed)
        case UInt8(ascii: "C"), UInt8(ascii: "D"):
            let fields = rest.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            let letter = kind == UInt8(ascii: "C") ? "C" : "D"
            // Digits only, as OpenSSH's sink checks them one by one: UInt32(_:radix:) alone would take "+755".
            guard fields.count == 3, fields[0].count == 4, fields[0].allSatisfy({ ("0"..."7").contains($0) }),
                !fields[1].isEmpty, fields[1].allSatisfy({ ("0"..."9").contains($0) }),
                let mode = UInt32(fields[0], radix: 8), let size = UInt64(fields[1])
            else {
                throw SCPProtocolError("expected '\(letter)<mode> <size> <name>' with an octal mode like 0644, found '\(letter)\(rest)'")
            }
            let name = String(fields[2])
            // OpenSSH's sink refuses names that would leave the target directory.
            guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
                throw SCPProtocolError("unexpected filename: \(name)")
            }
            guard line.utf8Valid else { throw SCPProtocolError("the file name is not valid UTF-8") }
            if letter == "D" { return .directory(mode: mode, name: name) }
            state = .awaitingDecision(size: size)
            return .file(mode: mode, size: size, name: name)
        default:
            throw SCPProtocolError("expected a control line starting with C, D, E or T, found byte 0x\(String(kind, radix: 16))")
        }
    }
}

extension ArraySlice<UInt8> {
    fileprivate var utf8Valid: Bool {
        var iterator = makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
