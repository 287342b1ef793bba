// MARK: Encoding

extension SFTPMessage {
    /// Appends this message as one whole packet (`uint32 length`, type, fields) to `out`.
    public func encode(into out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: [0, 0, 0, 0, typeByte])
        switch self {
        case .initialize(let version, let extensions), .version(let version, let extensions):
            out.appendUInt32(version)
            for pair in extensions {
                out.appendString(pair.name)
                out.appendBytes(pair.data)
            }
        case .open(let id, let path, let flags, let attributes):
            out.appendUInt32(id)
            out.appendString(path)
            out.appendUInt32(flags.rawValue)
            attributes.encode(into: &out)
        case .close(let id, let handle), .fstat(let id, let handle), .readdir(let id, let handle), .handle(let id, let handle):
            out.appendUInt32(id)
            out.appendBytes(handle)
        case .read(let id, let handle, let offset, let length):
            out.appendUInt32(id)
            out.appendBytes(handle)
            out.appendUInt64(offset)
            out.appendUInt32(length)
        case .write(let id, let handle, let offset, let data):
            out.appendUInt32(id)
            out.appendBytes(handle)
            out.appendUInt64(offset)
            out.appendBytes(data)
        case .lstat(let id, let path), .opendir(let id, let path), .remove(let id, let path), .rmdir(let id, let path),
            .realpath(let id, let path), .stat(let id, let path), .readlink(let id, let path):
            out.appendUInt32(id)
            out.appendString(path)
        case .setstat(let id, let path, let attributes), .mkdir(let id, let path, let attributes):
            out.appendUInt32(id)
            out.appendString(path)
            attributes.encode(into: &out)
        case .fsetstat(let id, let handle, let attributes):
            out.appendUInt32(id)
            out.appendBytes(handle)
            attributes.encode(into: &out)
        case .rename(let id, let first, let second), .symlink(let id, let first, let second):
            out.appendUInt32(id)
            out.appendString(first)
            out.appendString(second)
        case .status(let id, let code, let message, let language):
            out.appendUInt32(id)
            out.appendUInt32(code.rawValue)
            out.appendString(message)
            out.appendString(language)
        case .data(let id, let data):
            out.appendUInt32(id)
            out.appendBytes(data)
        case .extendedReply(let id, let data):
            // The reply's layout belongs to the extension: its bytes follow the id as they are.
            out.appendUInt32(id)
            out.append(contentsOf: data)
        case .name(let id, let entries):
            out.appendUInt32(id)
            out.appendUInt32(UInt32(truncatingIfNeeded: entries.count))
            for entry in entries {
                out.appendString(entry.filename)
                out.appendString(entry.longname)
                entry.attributes.encode(into: &out)
            }
        case .attrs(let id, let attributes):
            out.appendUInt32(id)
            attributes.encode(into: &out)
        case .extended(let id, let request, let data):
            out.appendUInt32(id)
            out.appendString(request)
            out.append(contentsOf: data)
        case .unknown(_, let id, let payload):
            out.appendUInt32(id)
            out.append(contentsOf: payload)
        }
        let length = UInt32(truncatingIfNeeded: out.count - start - 4)
        out[start] = UInt8(truncatingIfNeeded: length >> 24)
        out[start + 1] = UInt8(truncatingIfNeeded: length >> 16)
        out[start + 2] = UInt8(truncatingIfNeeded: length >> 8)
        out[start + 3] = UInt8(truncatingIfNeeded: length)
    }

    /// This message as one whole packet.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        encode(into: &out)
        return out
    }
}

extension SFTPFileAttributes {
    func encode(into out: inout [UInt8]) {
        var flags: UInt32 = 0
        if size != nil { flags |= Self.sizeFlag }
        if uid != nil || gid != nil { flags |= Self.uidGidFlag }
        if permissions != nil { flags |= Self.permissionsFlag }
        if accessTime != nil || modificationTime != nil { flags |= Self.timesFlag }
        if !extended.isEmpty { flags |= Self.extendedFlag }
        out.appendUInt32(flags)
        if let size { out.appendUInt64(size) }
        if flags & Self.uidGidFlag != 0 {
            out.appendUInt32(uid ?? 0)
            out.appendUInt32(gid ?? 0)
        }
        if let permissions { out.appendUInt32(permissions) }
        if flags & Self.timesFlag != 0 {
            out.appendUInt32(accessTime ?? 0)
            out.appendUInt32(modificationTime ?? 0)
        }
        if !extended.isEmpty {
            out.appendUInt32(UInt32(truncatingIfNeeded: extended.count))
            for pair in extended {
                out.appendString(pair.name)
                out.appendBytes(pair.data)
            }
        }
    }
}

extension [UInt8] {
    mutating func appendUInt32(_ value: UInt32) {
        append(contentsOf: [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value),
        ])
    }

    mutating func appendUInt64(_ value: UInt64) {
        appendUInt32(UInt32(truncatingIfNeeded: value >> 32))
        appendUInt32(UInt32(truncatingIfNeeded: value))
    }

    mutating func appendBytes(_ bytes: [UInt8]) {
        appendUInt32(UInt32(truncatingIfNeeded: bytes.count))
        append(contentsOf: bytes)
    }

    mutating func appendString(_ text: String) {
        appendUInt32(UInt32(truncatingIfNeeded: text.utf8.count))
        append(contentsOf: text.utf8)
    }
}
