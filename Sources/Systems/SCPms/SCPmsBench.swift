import ArgumentParser
import Foundation
import Kernel
import NIOCore
import SCPms
import SCPmsClient
import SCPmsServer
import SystemKit
import Wire
import WireHTTP

/// `workbench bench scpms`: the registration endpoint's throughput on the simulated wire (so the figures
/// measure HTTP, OData and SQLite work, not socket scheduling), in memory and on disk, and the pure core.
struct SCPmsBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scpms",
        abstract: "SCPms registrations and session checks per wall-clock second (in memory and SQLite WAL on disk), and the OData core."
    )

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @OptionGroup var check: BenchCheckOption

    @Option(help: "Registrations per measurement.")
    var count = 1000

    func validate() throws {
        guard (1...10_000_000).contains(count) else { throw ValidationError("--count \(count): expected 1…10000000") }
    }

    func run() throws {
        let clock = ContinuousClock()

        // The pure core: parse a registration body and render the entity, as one registration does.
        let body = Array(#"{"DeviceType": "iPhone", "DeviceModel": "iOS 17.5", "UserName": "demo"}"#.utf8)
        let coreRounds = 20_000
        let coreTime = clock.measure {
            for index in 0..<coreRounds {
                guard case .success(let settings) = ConnectionSettings.parse(json: body) else { return }
                let connection = ApplicationConnection(
                    id: "ID-\(index)", applicationId: "app", owner: "demo",
                    createdAtMilliseconds: Int64(index), modifiedAtMilliseconds: Int64(index), settings: settings)
                _ = connection.odataJSON(uri: "http://scpms/odata/applications/latest/app/Connections('ID-\(index)')")
            }
        }

        let inMemory = try registrations(databasePath: nil, clock: clock)
        let folder = try BenchInterruption.workFolder("scpms")
        defer { BenchInterruption.remove(folder) }
        let onDisk = try registrations(databasePath: folder.path + "/scpms.sqlite", clock: clock)
        let checks = try sessionChecks(clock: clock)

        let figures: [(String, Double)] = [
            ("core_registrations_per_second", Double(coreRounds) / coreTime.seconds),
            ("registrations_per_second_memory", Double(count) / inMemory.seconds),
            ("registrations_per_second_wal", Double(count) / onDisk.seconds),
            ("session_checks_per_second", Double(count) / checks.seconds),
        ]
        if json {
            print(jsonObject(figures))
        } else {
            print("core: parse body + render entity per second:     \(Int(figures[0].1))")
            print("registrations per second (simulated, in memory): \(Int(figures[1].1))")
            print("registrations per second (simulated, WAL file):  \(Int(figures[2].1))")
            print("session checks per second (X-SMP-APPCID, 200):   \(Int(figures[3].1))")
        }
        // No targets yet: these figures are compared across builds, not held to a goal.
        try check.finish([])
    }

    /// `count` registrations, each a whole HTTP exchange with Basic credentials sent up front.
    private func registrations(databasePath: String?, clock: ContinuousClock) throws -> Duration {
        let kernel = Kernel(seed: 1)
        let node = kernel.node("scpms")
        _ = try kernel.run("start") { try await SCPmsServer.start(on: node, configuration: SCPmsServer.Configuration(databasePath: databasePath)) }
        let phone = kernel.node("phone")
        var request = HTTPRequest(
            method: .POST, target: "/odata/applications/latest/com.workbench.demo/Connections",
            headers: [
                "Content-Type": "application/json",
                "Authorization": BasicCredentials(user: "demo", password: "password").headerValue,
            ],
            body: ByteBuffer(string: #"{"DeviceType": "iPhone", "DeviceModel": "iOS 17.5", "UserName": "demo"}"#))
        request.headers.add(name: "Accept", value: "application/json")
        let finalRequest = request
        let total = count
        return try clock.measure {
            try kernel.run("registrations", timeout: .seconds(86_400)) {
                for _ in 0..<total {
                    let response = try await HTTPClient.send(finalRequest, host: "scpms", port: 80, on: phone)
                    guard response.status == .created else { throw WorkbenchError("registration answered \(response.status.code)") }
                }
            }
        }
    }

    /// `count` session starts of one app that is already registered (one exchange each once credentials go up front).
    private func sessionChecks(clock: ContinuousClock) throws -> Duration {
        let kernel = Kernel(seed: 1)
        let node = kernel.node("scpms")
        _ = try kernel.run("start") { try await SCPmsServer.start(on: node) }
        let manager = try SCPmsSessionManager(
            node: kernel.node("phone"),
            configuration: .init(backendURL: "http://scpms", applicationId: "com.workbench.demo"),
            store: InMemorySCPmsSettingsStore())
        _ = try kernel.run("register") { try await manager.startSession(user: "demo", password: "password") }
        let total = count
        return try clock.measure {
            try kernel.run("checks", timeout: .seconds(86_400)) {
                for _ in 0..<total {
                    let session = try await manager.startSession(user: "demo", password: "password")
                    guard session.registration == .existing else { throw WorkbenchError("the stored id was not accepted") }
                }
            }
        }
    }

}
