import ArgumentParser
import EchoServer
import Kernel
import NIOCore
import SystemKit
import Wire
import WireHTTP

/// What simulation costs in wall time.
struct KernelBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kernel",
        abstract: "Idle virtual time, timer jobs and simulated HTTP exchanges per wall-clock second."
    )

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @OptionGroup var check: BenchCheckOption

    func run() throws {
        let clock = ContinuousClock()

        // One idle hour: nothing scheduled, so time jumps straight to the end.
        let idleHour = median(
            (0..<101).map { _ in
                let kernel = Kernel(seed: 1)
                return clock.measure { kernel.advance(by: .seconds(3600)) }
            })

        // An hour with a 1-second heartbeat timer: 3,600 jobs.
        let heartbeatHour = median(
            (0..<11).map { _ in
                let kernel = Kernel(seed: 1)
                let loop = kernel.loop
                _ = loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in }
                return clock.measure { kernel.advance(by: .seconds(3600)) }
            })

        // Raw job throughput: a chain of 200,000 timers 1 ms apart.
        let chain = 200_000
        let chainTime = median(
            (0..<5).map { _ in
                let kernel = Kernel(seed: 1)
                let loop = kernel.loop
                @Sendable func next(_ remaining: Int) {
                    guard remaining > 0 else { return }
                    loop.scheduleTask(in: .milliseconds(1)) { next(remaining - 1) }
                }
                next(chain)
                return clock.measure { kernel.advance(by: .seconds(Int64(chain))) }
            })

        // Whole HTTP/1.1 exchanges (connect, request, response, close) over the simulated wire.
        let exchanges = 500
        let kernel = Kernel(seed: 1)
        _ = try kernel.run("start echo") { try await EchoServer.start(on: kernel.node("echo")).get() }
        let phone = kernel.node("phone")
        let httpTime = try clock.measure {
            _ = try kernel.run("exchanges", timeout: .seconds(3600)) {
                for _ in 0..<exchanges {
                    _ = try await HTTPClient.send(HTTPRequest(), host: "echo", port: 80, on: phone)
                }
            }
        }

        let figures: [(String, Double)] = [
            ("idle_hour_wall_ns", Double(idleHour.nanosecondsValue)),
            ("heartbeat_hour_wall_ns", Double(heartbeatHour.nanosecondsValue)),
            ("timer_jobs_per_second", Double(chain) / chainTime.seconds),
            ("http_exchanges_per_second", Double(exchanges) / httpTime.seconds),
        ]
        if json {
            print(jsonObject(figures))
        } else {
            print("idle hour of virtual time:          \(idleHour.workbenchText) wall")
            print("hour with a 1 s heartbeat (3,600 jobs): \(heartbeatHour.workbenchText) wall")
            print("timer jobs per second:               \(Int(figures[2].1))")
            print("simulated HTTP exchanges per second: \(Int(figures[3].1))")
        }
        // No targets: what simulation costs is compared across builds, not held to a goal.
        try check.finish([])
    }

    private func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }
}
