/// Every SFTP v3 packet, requests and answers alike, so one codec serves a server and a client.
public enum SFTPMessage: Hashable, Sendable {
    case initialize(version: UInt32, extensions: [SFTPExtensionPair])
    case version(version: UInt32, extensions: [SFTPExtensionPair])
    case open(id: UInt32, path: String, flags: SFTPOpenFlags, attributes: SFTPFileAttributes)
    case close(id: UInt32, handle: [UInt8])
    case read(id: UInt32, handle: [UInt8], offset: UInt64, length: UInt32)
    case write(id: UInt32, handle: [UInt8], offset: UInt64, data: [UInt8])
    case lstat(id: UInt32, path: String)
    case fstat(id: UInt32, handle: [UInt8])
    case setstat(id: UInt32, path: String, attributes: SFTPFileAttributes)
    case fsetstat(id: UInt32, handle: [UInt8], attributes: SFTPFileAttributes)
    case opendir(id: UInt32, path: String)
    case readdir(id: UInt32, handle: [UInt8])
    case remove(id: UInt32, path: String)
    case mkdir(id: UInt32, path: String, attributes: SFTPFileAttributes)
    case rmdir(id: UInt32, path: String)
    case realpath(id: UInt32, path: String)
    case stat(id: UInt32, path: String)
    case rename(id: UInt32, oldPath: String, newPath: String)
    case readlink(id: UInt32, path: String)
    /// OpenSSH sends (target, link) where the draft says (link, target); the fields keep the wire order.
    case symlink(id: UInt32, linkPath: String, targetPath: String)
    case status(id: UInt32, code: SFTPStatusCode, message: String, languageTag: String)
    case handle(id: UInt32, handle: [UInt8])
    case data(id: UInt32, data: [UInt8])
    case name(id: UInt32, entries: [SFTPNameEntry])
    case attrs(id: UInt32, attributes: SFTPFileAttributes)
    case extended(id: UInt32, request: String, data: [UInt8])
    case extendedReply(id: UInt32, data: [UInt8])
    /// A packet type this codec does not know, with its request id, so a server can answer OP_UNSUPPORTED as
    /// OpenSSH's sftp-server does instead of dropping the session.
    case unknown(type: UInt8, id: UInt32, payload: [UInt8])

    /// The request id (nil for INIT and VERSION, which have none).
    public var id: UInt32? {
        switch self {
        case .initialize, .version: nil
        case .open(let id, _, _, _), .close(let id, _), .read(let id, _, _, _), .write(let id, _, _, _), .lstat(let id, _),
            .fstat(let id, _), .setstat(let id, _, _), .fsetstat(let id, _, _), .opendir(let id, _), .readdir(let id, _),
            .remove(let id, _), .mkdir(let id, _, _), .rmdir(let id, _), .realpath(let id, _), .stat(let id, _),
            .rename(let id, _, _), .readlink(let id, _), .symlink(let id, _, _), .status(let id, _, _, _), .handle(let id, _),
            .data(let id, _), .name(let id, _), .attrs(let id, _), .extended(let id, _, _), .extendedReply(let id, _),
            .unknown(_, let id, _):
            id
        }
    }

    /// The packet type byte.
    public var typeByte: UInt8 {
        switch self {
        case .initialize: 1
        case .version: 2
        case .open: 3
        case .close: 4
        case .read: 5
        case .write: 6
        case .lstat: 7
        case .fstat: 8
        case .setstat: 9
        case .fsetstat: 10
        case .opendir: 11
        case .readdir: 12
        case .remove: 13
        case .mkdir: 14
        case .rmdir: 15
        case .realpath: 16
        case .stat: 17
        case .rename: 18
        case .readlink: 19
        case .symlink: 20
        case .status: 101
        case .handle: 102
        case .data: 103
        case .name: 104
        case .attrs: 105
        case .extended: 200
        case .extendedReply: 201
        case .unknown(let type, _, _): type
        }
    }

    /// A name for messages and traces, e.g. `SSH_FXP_WRITE`.
    public var typeName: String {
        SFTPPacketType(rawValue: typeByte)?.description ?? "packet type \(typeByte)"
    }
}
