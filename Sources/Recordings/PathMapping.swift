import IPP

/// `--map-path FROM=TO`: requests recorded under the path FROM are replayed under TO, for an actor that keeps the same
/// resource elsewhere (a CUPS queue at `/printers/office`, a print gateway at `/ipp/print`). In an IPP request the resource is named
/// again inside the message, so its `printer-uri` and `job-uri` operation attributes move with the target.
package struct PathMapping: Sendable, Equatable, CustomStringConvertible {
    package let from: String
    package let to: String

    /// Reads `FROM=TO`: two paths starting with `/`, without spaces, query or fragment; nil when `text` is not that.
    package init?(_ text: String) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, parts.allSatisfy(Self.isPath) else { return nil }
        from = parts[0].count > 1 && parts[0].hasSuffix("/") ? String(parts[0].dropLast()) : parts[0]
        to = parts[1].count > 1 && parts[1].hasSuffix("/") ? String(parts[1].dropLast()) : parts[1]
    }

    package var description: String { "\(from)=\(to)" }

    private static func isPath(_ text: String) -> Bool {
        text.hasPrefix("/") && !text.contains(where: { $0 == " " || $0 == "?" || $0 == "#" || $0.isNewline })
    }

    /// `path` (a request target: path and query) under TO if it is FROM or under it (`FROM/…`, `FROM?…`), else nil.
    package func moved(_ path: String) -> String? {
        guard path.hasPrefix(from) else { return nil }
        let rest = path.dropFirst(from.count)
        guard from == "/" || rest.isEmpty || rest.first == "/" || rest.first == "?" else { return nil }
        return from == "/" ? (to == "/" ? path : to + path) : to + rest
    }

    /// `uri` (`ipp://host:port/path`) with its path moved, or nil when it has no path under FROM.
    func movedURI(_ uri: String) -> String? {
        guard let schemeEnd = uri.range(of: "://") else { return nil }
        let authorityAndPath = uri[schemeEnd.upperBound...]
        guard let pathStart = authorityAndPath.firstIndex(of: "/") else { return nil }
        return moved(String(uri[pathStart...])).map { String(uri[..<pathStart]) + $0 }
    }

    /// `bytes`, an IPP request, with the `printer-uri` and `job-uri` attributes whose path is under FROM moved to TO.
    /// Only those values change (their lengths with them): every other byte, the document's included, stays as it was
    /// sent. A message the codec cannot read, or one that names no such URI, is returned as it is.
    package func movedIPPRequest(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 8, let (_, documentOffset) = try? IPPDecoder().decodeWithDocumentOffset(bytes) else { return bytes }
        var out = Array(bytes[0..<8])  // version, operation, request-id
        var index = 8
        var changed = false
        while index < documentOffset {
            let tag = bytes[index]
            // Delimiter tags (a group's start, the end of attributes) are one byte (RFC 8010 §3.5.1).
            guard tag >= 0x10 else {
                out.append(tag)
                index += 1
                continue
            }
            // An attribute, or another value of the one before: tag, name length, name, value length, value (§3.1.4).
            guard index + 3 <= documentOffset else { return bytes }
            let nameLength = Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
            let valueAt = index + 3 + nameLength
            guard valueAt + 2 <= documentOffset else { return bytes }
            let valueLength = Int(bytes[valueAt]) << 8 | Int(bytes[valueAt + 1])
            let end = valueAt + 2 + valueLength
            guard end <= documentOffset else { return bytes }
            let name = String(decoding: bytes[(index + 3)..<valueAt], as: UTF8.self)
            var value = Array(bytes[(valueAt + 2)..<end])
            if tag == 0x45, name == "printer-uri" || name == "job-uri",
                let moved = movedURI(String(decoding: value, as: UTF8.self)), moved.utf8.count <= Int(UInt16.max)
            {
                value = Array(moved.utf8)
                changed = true
            }
            out += bytes[index..<valueAt]
            out += [UInt8(value.count >> 8), UInt8(value.count & 0xFF)]
            out += value
            index = end
        }
        guard changed else { return bytes }
        return out + bytes[documentOffset...]
    }
}
