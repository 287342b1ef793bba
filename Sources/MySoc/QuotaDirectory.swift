import NIOCore
import NIOHTTP1
import Wire
import WireHTTP

/// How mysoc asks the SoC account directory (served by Sunfire) whether credentials are good and what quota they
/// have left: `POST /directory/quota` with the site's bearer token and `user=…&password=…` (percent-encoded).
enum QuotaDirectory {
    enum Answer {
        case quotas(realm: String, rows: [(type: String, value: Int)])
        case refused
    }

    static func ask(user: String, password: String, configuration: MySoc.Configuration, node: Node) async throws -> Answer {
        let body = "user=\(formEncode(user))&password=\(formEncode(password))"
        let request = HTTPRequest(
            method: .POST, target: "/directory/quota",
            headers: [
                "Authorization": "Bearer \(configuration.directoryToken)",
                "Content-Type": "application/x-www-form-urlencoded",
            ],
            body: ByteBuffer(string: body))
        let response = try await HTTPClient.send(
            request, host: configuration.directoryHost, port: configuration.directoryPort,
            on: node, timeout: .seconds(10))
        switch response.status {
        case .ok:
            var realm = "unix"
            var rows: [(String, Int)] = []
            for line in response.text.split(separator: "\n") {
                let parts = line.split(separator: "\t").map(String.init)
                guard parts.count == 2 else { continue }
                if parts[0] == "realm" { realm = parts[1] } else if let value = Int(parts[1]) { rows.append((parts[0], value)) }
            }
            return .quotas(realm: realm, rows: rows)
        case .unauthorized:
            return .refused
        default:
            throw HTTPClientError("the account directory answered \(response.status.code): \(response.text)")
        }
    }

    private static func formEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
