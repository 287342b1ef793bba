import NIOCore

/// An address range in CIDR notation (`10.0.0.0/8`, `::1/128`): Sunfire's whitelist of networks it answers.
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    private let network: [UInt8]
    private let prefixLength: Int

    /// Parses `ADDRESS/BITS` (or a bare address, meaning that one host).
    ///
    /// - throws: ``AddressRangeError`` naming what is wrong, e.g. a prefix longer than the address.
    public init(_ text: String) throws(AddressRangeError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let address = Self.bytes(of: parts[0]) else {
            throw AddressRangeError("'\(text)': expected an IPv4 or IPv6 address like 10.0.0.0/8 or ::1/128")
        }
        let bits = address.count * 8
        var length = bits
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...bits).contains(value) else {
                throw AddressRangeError("'\(text)': the prefix length must be 0…\(bits)")
            }
            length = value
        }
        network = Self.masked(address, length)
        prefixLength = length
        description = "\(parts[0])/\(length)"
    }

    public let description: String

    /// Whether `address` lies in the range (IPv4 and IPv6 never match each other).
    public func contains(_ address: SocketAddress) -> Bool {
        guard let text = address.ipAddress, let bytes = Self.bytes(of: text), bytes.count == network.count else { return false }
        return Self.masked(bytes, prefixLength) == network
    }

    private static func bytes(of text: String) -> [UInt8]? {
        guard let address = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        switch address {
        case .v4(let v4): return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6): return withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        default: return nil
        }
    }

    private static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let keep = min(8, max(0, length - index * 8))
            return keep == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
    }
}

/// A whitelist entry that is not a range.
public struct AddressRangeError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
