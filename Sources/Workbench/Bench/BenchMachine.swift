import Foundation

/// The CPU a figure was measured on, from /proc/cpuinfo: its model, its cores, and whether it has AVX-512 IFMA (which
/// OpenSSL's RSA uses and BoringSSL's does not), so a figure from another machine can be read.
struct CPU {
    let model: String
    let hasAVX512IFMA: Bool
    var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    static var current: CPU {
        let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        func field(_ name: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(name) }.flatMap { $0.split(separator: ":", maxSplits: 1).last }
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let flags = field("flags")?.split(separator: " ") ?? []
        return CPU(model: field("model name") ?? "unknown", hasAVX512IFMA: flags.contains("avx512ifma"))
    }
}
