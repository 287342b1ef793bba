import Foundation

/// The CPU a figure was measured on, from /proc/cpuinfo: its model, its cores, and whether it has AVX-512 IFMA (which
/// OpenSSL's RSA uses and BoringSSL's does not), so a figure from another machine can be read.
package struct CPU {
    package let model: String
    package let hasAVX512IFMA: Bool
    package var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    package static var current: CPU {
        let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        func field(_ name: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(name) }.flatMap { $0.split(separator: ":", maxSplits: 1).last }
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let flags = field("flags")?.split(separator: " ") ?? []
        return CPU(model: field("model name") ?? "unknown", hasAVX512IFMA: flags.contains("avx512ifma"))
    }

    package init(model: String, hasAVX512IFMA: Bool) {
        self.model = model
        self.hasAVX512IFMA = hasAVX512IFMA
    }
}
