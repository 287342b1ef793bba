import Foundation
/// The three converter jars the app uploads to the host, as deterministic stand-ins of the real sizes: the real
/// jars are not ours to ship, and a simulated world needs payloads whose digests it controls.
///
/// Each stand-in is a valid jar — a ZIP with `META-INF/MANIFEST.MF` first, the class entries the host's `java`
/// looks for, and a stored payload that brings it to the exact size — so `java` on the host recognises it by its
/// manifest and class list, and refuses a truncated upload the way java does.
public enum StandInJar: String, CaseIterable, Sendable {
    case docsToPDF = "docs-to-pdf-converter-1.7.jar"
    case nupPDF = "nup_pdf.jar"
    case multivalent = "Multivalent.jar"

    public var fileName: String { rawValue }

    /// Bytes: the reference gives nup_pdf's and Multivalent's; docs-to-pdf's exact size is not public, the seed's
    /// screenshot shows "46.6 MB" (iOS file-style, decimal).
    public var size: Int {
        switch self {
        case .docsToPDF: 46_617_390
        case .nupPDF: 1_174_581
        case .multivalent: 2_716_363
        }
    }

    public var mainClass: String? {
        switch self {
        case .docsToPDF: "com.yeokhengmeng.docstopdfconverter.MainClass"
        case .nupPDF: "NUp"
        case .multivalent: "multivalent.Multivalent"
        }
    }

    /// Classes the jar holds (dotted names).
    public var classNames: [String] {
        switch self {
        case .docsToPDF: ["com.yeokhengmeng.docstopdfconverter.MainClass", "com.yeokhengmeng.docstopdfconverter.Converter"]
        case .nupPDF: ["NUp"]
        case .multivalent: ["multivalent.Multivalent", "tool.pdf.Impose"]
        }
    }

    /// The jar, exactly ``size`` bytes, the same every time.
    public func bytes() -> [UInt8] {
        var zip = ZIPWriter()
        let manifest = "Manifest-Version: 1.0\r\nCreated-By: Workbench stand-in for \(fileName)\r\n"
            + (mainClass.map { "Main-Class: \($0)\r\n" } ?? "") + "\r\n"
        zip.add("META-INF/MANIFEST.MF", Array(manifest.utf8), compress: false)
        for name in classNames {
            // A class-file header (magic, Java 8 version) and the name: enough to look like what it stands for.
            zip.add(name.replacingOccurrences(".", "/") + ".class", [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 52] + Array(name.utf8), compress: false)
        }
        let payloadName = "stand-in/payload.bin"
        // A stored entry costs 30 + name bytes in front of its data and 46 + name bytes in the directory.
        let overhead = 30 + 46 + 2 * payloadName.utf8.count
        let payloadSize = max(0, size - zip.currentSize - overhead)
        zip.add(payloadName, Self.payload(count: payloadSize, seed: RandomStreamSeed.of(fileName)), compress: false)
        return zip.finish()
    }

    /// Deterministic, incompressible filler (xorshift64*), seeded by the jar's name.
    static func payload(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { raw in
            var index = 0
            while index + 8 <= raw.count {
                state ^= state >> 12; state ^= state << 25; state ^= state >> 27
                raw.storeBytes(of: (state &* 0x2545_F491_4F6C_DD1D).littleEndian, toByteOffset: index, as: UInt64.self)
                index += 8
            }
            while index < raw.count {
                state ^= state >> 12; state ^= state << 25; state ^= state >> 27
                raw[index] = UInt8(truncatingIfNeeded: state &* 0x2545_F491_4F6C_DD1D)
                index += 1
            }
        }
        return out
    }
}

enum RandomStreamSeed {
    /// FNV-1a of a name: stable across processes (Swift's Hasher is seeded per process).
    static func of(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

/// What `java` learns from a jar before running it.
public struct JarInfo: Sendable, Equatable {
    public let mainClass: String?
    /// Dotted class names, e.g. `tool.pdf.Impose`.
    public let classNames: Set<String>
}

public enum JarFile {
    /// Reads a jar as `java` does: the ZIP's end record and directory, then `META-INF/MANIFEST.MF`. A truncated
    /// upload has no directory and throws — java's "Invalid or corrupt jarfile".
    public static func inspect(_ bytes: [UInt8]) throws(DocumentError) -> JarInfo {
        let zip = try ZIPReader(bytes)
        var mainClass: String?
        if let manifest = try zip.contents(of: "META-INF/MANIFEST.MF", limit: 1 << 20) {
            for line in String(decoding: manifest, as: UTF8.self).split(whereSeparator: \.isNewline)
            where line.hasPrefix("Main-Class:") {
                mainClass = line.dropFirst("Main-Class:".count).trimmingCharacters(in: .whitespaces)
            }
        }
        let classes = zip.entryNames.filter { $0.hasSuffix(".class") }
            .map { String($0.dropLast(".class".count)).replacingOccurrences("/", ".") }
        return JarInfo(mainClass: mainClass, classNames: Set(classes))
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
