/// SFTP version 3 packet types (draft-ietf-secsh-filexfer-02 §3), the version OpenSSH's sftp and sftp-server speak.
public enum SFTPPacketType: UInt8, Sendable, CustomStringConvertible {
    case initialize = 1
    case version = 2
    case open = 3
    case close = 4
    case read = 5
    case write = 6
    case lstat = 7
    case fstat = 8
    case setstat = 9
    case fsetstat = 10
    case opendir = 11
    case readdir = 12
    case remove = 13
    case mkdir = 14
    case rmdir = 15
    case realpath = 16
    case stat = 17
    case rename = 18
    case readlink = 19
    case symlink = 20
    case status = 101
    case handle = 102
    case data = 103
    case name = 104
    case attrs = 105
    case extended = 200
    case extendedReply = 201

    public var description: String {
        let name: String =
            switch self {
            case .initialize: "INIT"
            case .version: "VERSION"
            case .open: "OPEN"
            case .close: "CLOSE"
            case .read: "READ"
            case .write: "WRITE"
            case .lstat: "LSTAT"
            case .fstat: "FSTAT"
            case .setstat: "SETSTAT"
            case .fsetstat: "FSETSTAT"
            case .opendir: "OPENDIR"
            case .readdir: "READDIR"
            case .remove: "REMOVE"
            case .mkdir: "MKDIR"
            case .rmdir: "RMDIR"
            case .realpath: "REALPATH"
            case .stat: "STAT"
            case .rename: "RENAME"
            case .readlink: "READLINK"
            case .symlink: "SYMLINK"
            case .status: "STATUS"
            case .handle: "HANDLE"
            case .data: "DATA"
            case .name: "NAME"
            case .attrs: "ATTRS"
            case .extended: "EXTENDED"
            case .extendedReply: "EXTENDED_REPLY"
            }
        return "SSH_FXP_" + name
    }
}

/// STATUS codes (draft-02 §7). Unknown codes from a peer are kept as they came.
public struct SFTPStatusCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let ok = SFTPStatusCode(rawValue: 0)
    public static let eof = SFTPStatusCode(rawValue: 1)
    public static let noSuchFile = SFTPStatusCode(rawValue: 2)
    public static let permissionDenied = SFTPStatusCode(rawValue: 3)
    public static let failure = SFTPStatusCode(rawValue: 4)
    public static let badMessage = SFTPStatusCode(rawValue: 5)
    public static let noConnection = SFTPStatusCode(rawValue: 6)
    public static let connectionLost = SFTPStatusCode(rawValue: 7)
    public static let opUnsupported = SFTPStatusCode(rawValue: 8)

    public var description: String {
        let names = [
            "SSH_FX_OK", "SSH_FX_EOF", "SSH_FX_NO_SUCH_FILE", "SSH_FX_PERMISSION_DENIED", "SSH_FX_FAILURE",
            "SSH_FX_BAD_MESSAGE", "SSH_FX_NO_CONNECTION", "SSH_FX_CONNECTION_LOST", "SSH_FX_OP_UNSUPPORTED",
        ]
        return rawValue < names.count ? names[Int(rawValue)] : "status \(rawValue)"
    }
}

/// OPEN's pflags (draft-02 §6.3).
public struct SFTPOpenFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let read = SFTPOpenFlags(rawValue: 0x01)
    public static let write = SFTPOpenFlags(rawValue: 0x02)
    public static let append = SFTPOpenFlags(rawValue: 0x04)
    public static let create = SFTPOpenFlags(rawValue: 0x08)
    public static let truncate = SFTPOpenFlags(rawValue: 0x10)
    public static let exclusive = SFTPOpenFlags(rawValue: 0x20)
}

/// File attributes (draft-02 §5): every field is optional and present only when its flag is set.
public struct SFTPFileAttributes: Hashable, Sendable {
    public var size: UInt64?
    public var uid: UInt32?
    public var gid: UInt32?
    /// Permission and file-type bits (`S_IFREG` 0o100000, `S_IFDIR` 0o040000).
    public var permissions: UInt32?
    public var accessTime: UInt32?
    public var modificationTime: UInt32?
    public var extended: [SFTPExtensionPair]

    public init(
        size: UInt64? = nil, uid: UInt32? = nil, gid: UInt32? = nil, permissions: UInt32? = nil,
        accessTime: UInt32? = nil, modificationTime: UInt32? = nil, extended: [SFTPExtensionPair] = []
    ) {
        self.size = size
        self.uid = uid
        self.gid = gid
        self.permissions = permissions
        self.accessTime = accessTime
        self.modificationTime = modificationTime
        self.extended = extended
    }

    static let sizeFlag: UInt32 = 0x01, uidGidFlag: UInt32 = 0x02, permissionsFlag: UInt32 = 0x04, timesFlag: UInt32 = 0x08
    static let extendedFlag: UInt32 = 0x8000_0000

    /// Whether these attributes describe a directory.
    public var isDirectory: Bool { (permissions ?? 0) & 0o170000 == 0o040000 }
}

/// A name/data pair of extensions (in INIT/VERSION and extended attributes). Data is kept as bytes.
public struct SFTPExtensionPair: Hashable, Sendable {
    public var name: String
    public var data: [UInt8]
    public init(name: String, data: [UInt8]) {
        self.name = name
        self.data = data
    }
}

/// One entry of a NAME answer.
public struct SFTPNameEntry: Hashable, Sendable {
    public var filename: String
    /// The `ls -l` style line clients print for `ls -l`.
    public var longname: String
    public var attributes: SFTPFileAttributes

    public init(filename: String, longname: String, attributes: SFTPFileAttributes) {
        self.filename = filename
        self.longname = longname
        self.attributes = attributes
    }
}
