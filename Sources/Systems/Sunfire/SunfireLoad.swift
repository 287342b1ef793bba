import SOCPrint
import SystemKit
import Wire

/// Sunfire's share of `workbench bench load`: commands and SFTP uploads on each client's own SSH connection.
extension LoadBenchPart {
    static let sunfire = LoadBenchPart(
        operations: [
            LoadOperation(
                "sunfire-exec",
                "SSHConnectivity.execute(\"lpq -P psts\") on the client's own SSH connection to Sunfire "
                    + "(opened once, host key pinned to the one serve announces, kept open): one exec channel; exit status 0."),
            LoadOperation(
                "sunfire-sftp",
                "SSHConnectivity.upload of a 1 KB file (load-K.txt in demo's home, overwritten each time) "
                    + "over the SFTP subsystem on the same connection: INIT, OPEN, WRITE, CLOSE each answered OK."),
        ],
        setUps: [LoadSetUp(what: "the SSH login", countsAs: "sunfire-exec")]
    ) { announced in
        let ssh = try announced.requiredURL("sunfire", "ssh")
        guard let user = ssh.user, let password = ssh.password else { throw WorkbenchError("the sunfire URL has no demo credentials") }
        let host = ssh.host ?? ""
        let port = ssh.port ?? 0
        // `known_hosts [HOST]:PORT ssh-ed25519 AAAA…`: the key the clients pin.
        let hostKey = try announced.requiredNote("sunfire", "known_hosts").split(separator: " ").dropFirst().joined(separator: " ")
        return { index, node in
            SunfireLoadSession(
                index: index,
                ssh: SSHConnectivity(
                    host: host, port: port, user: user, password: password,
                    node: node, hostKeyPolicy: .pinned(hostKey)))
        }
    }
}

struct SunfireLoadSession: LoadSession {
    let index: Int
    let ssh: SSHConnectivity
    var connected = false

    static let upload = [UInt8](repeating: UInt8(ascii: "x"), count: 1023) + [UInt8(ascii: "\n")]

    /// The SSH login, once (and again after a failed operation dropped the connection).
    mutating func prepare(for operation: String) async -> LoadSetUpFailure? {
        guard !connected else { return nil }
        let login = await ssh.connect()
        guard login.authorised else { return LoadSetUpFailure(operation: operation, text: "SSH login to Sunfire: " + (login.failure ?? "refused")) }
        connected = true
        return nil
    }

    mutating func perform(_ operation: String) async throws {
        do {
            if operation == "sunfire-exec" {
                let result = try await ssh.execute("lpq -P psts")
                guard result.exitStatus == 0 else { throw WorkbenchError("lpq -P psts exited \(result.exitStatus): \(result.stderr.prefix(120))") }
            } else {
                guard await ssh.upload(.bytes(Self.upload), to: "load-\(index).txt", transport: .sftp) else {
                    throw WorkbenchError("SFTP upload of load-\(index).txt failed")
                }
            }
        } catch {
            // A dropped connection is opened again before the next operation.
            connected = false
            throw error
        }
    }

    func close() async { await ssh.disconnect() }
}
