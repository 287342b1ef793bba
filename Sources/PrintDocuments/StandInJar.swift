/// The three converter jars the app uploads to the host, as deterministic stand-ins of the real sizes: the real jars
/// are not ours to ship, and a simulated world needs payloads whose digests it controls.
///
/// Each stand-in is a valid jar — a ZIP with `META-INF/MANIFEST.MF` first, real (empty) class files for the classes
/// the host's `java` looks for, and a stored padding entry of pseudo-random bytes that brings it to the exact size.
/// `unzip -t` and `jar tf` accept them; the host's `java` recognises them by manifest and class list, and refuses a
/// truncated upload the way java does.
public enum StandInJar: String, CaseIterable, Sendable {
    case docsToPDF = "docs-to-pdf-converter-1.7.jar"
    case nupPDF = "nup_pdf.jar"
    case multivalent = "Multivalent.jar"

    /// The name the app uploads it as (`socPrint/<fileName>`).
    public var fileName: String { rawValue }

    /// Bytes. nup_pdf's and Multivalent's are the real jars' sizes; docs-to-pdf's is not public — the original
    /// app's screenshot shows "46.6 MB" (file-style, decimal), so this is a size that displays so.
    public var size: Int {
        switch self {
        case .docsToPDF: 46_617_390
        case .nupPDF: 1_174_581
        case .multivalent: 2_716_363
        }
    }

    /// The manifest's Main-Class: docs-to-pdf's from its source (yeokm1/docs-to-pdf-converter); nup_pdf's a plausible
    /// default-package class; Multivalent's the browser it starts.
    public var mainClass: String? {
        switch self {
        case .docsToPDF: "com.yeokhengmeng.docstopdfconverter.MainClass"
        case .nupPDF: "NUp"
        case .multivalent: "multivalent.Multivalent"
        }
    }

    /// The classes the jar holds (dotted names): the converter's own, or the tools the app runs from it.
    public var classNames: [String] {
        switch self {
        case .docsToPDF:
            [
                "MainClass", "MainClass$CommandLineValues", "MainClass$DOC_TYPE", "Converter", "DocToPDFConverter",
                "DocxToPDFConverter", "PptToPDFConverter", "PptxToPDFConverter", "OdtToPDF",
            ].map { "com.yeokhengmeng.docstopdfconverter." + $0 }
        case .nupPDF: ["NUp"]
        case .multivalent: ["multivalent.Multivalent", "tool.pdf.Impose", "tool.pdf.Compress", "tool.pdf.Split"]
        }
    }

    /// The jar, exactly ``size`` bytes, the same every time. The padding is generated straight into the archive, so
    /// the 46.6 MB converter takes a few tens of milliseconds in a release build.
    public func bytes() -> [UInt8] {
        var zip = ZIPWriter()
        var manifest = "Manifest-Version: 1.0\r\nCreated-By: Workbench stand-in for \(fileName) (not the real jar)\r\n"
        if let mainClass { manifest += "Main-Class: \(mainClass)\r\n" }
        zip.add("META-INF/MANIFEST.MF", Array((manifest + "\r\n").utf8), compress: true)
        for name in classNames {
            zip.add(name.replacing(".", with: "/") + ".class", Self.classFile(name), compress: true)
        }
        let paddingName = "stand-in/padding.bin"
        // A stored entry costs 30 + name bytes in front of its data and 46 + name bytes in the directory.
        let overhead = 30 + 46 + 2 * paddingName.utf8.count
        let paddingSize = max(0, size - zip.finishedSize - overhead)
        var state = Self.seed(fileName)
        return zip.finish(appendingStored: paddingName, size: paddingSize) { buffer in Self.fill(buffer, state: &state) }
    }

    /// A minimal valid class file: `public class <name> extends java.lang.Object` with no members, major version 50
    /// (Java 6, what the 2013 jars were built for).
    static func classFile(_ dottedName: String) -> [UInt8] {
        func utf8Entry(_ text: String) -> [UInt8] {
            let bytes = Array(text.utf8)
            return [0x01, UInt8(bytes.count >> 8 & 0xFF), UInt8(bytes.count & 0xFF)] + bytes
        }
        var out: [UInt8] = [0xCA, 0xFE, 0xBA, 0xBE, 0x00, 0x00, 0x00, 50]
        out += [0x00, 0x05]  // constant pool: 4 entries
        out += [0x07, 0x00, 0x02] + utf8Entry(dottedName.replacing(".", with: "/"))
        out += [0x07, 0x00, 0x04] + utf8Entry("java/lang/Object")
        out += [0x00, 0x21, 0x00, 0x01, 0x00, 0x03]  // public super; this #1; super #3
        out += [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]  // no interfaces, fields, methods, attributes
        return out
    }

    /// FNV-1a of the name: a seed stable across processes (Swift's Hasher is seeded per process).
    static func seed(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash | 1
    }

    /// xorshift64*: fast, fixed-seed, incompressible filler, eight bytes a step (little-endian, so the same on
    /// every machine).
    static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>, state: inout UInt64) {
        guard let base = buffer.baseAddress else { return }
        let raw = UnsafeMutableRawPointer(base)
        var x = state
        let words = buffer.count / 8
        var word = 0
        while word < words {
            x ^= x >> 12
            x ^= x << 25
            x ^= x >> 27
            raw.storeBytes(of: (x &* 0x2545_F491_4F6C_DD1D).littleEndian, toByteOffset: word &* 8, as: UInt64.self)
            word &+= 1
        }
        for index in (words * 8)..<buffer.count {
            x ^= x >> 12
            x ^= x << 25
            x ^= x >> 27
            base[index] = UInt8(truncatingIfNeeded: x &* 0x2545_F491_4F6C_DD1D)
        }
        state = x
    }
}

/// What `java` learns from a jar before running it.
public struct JarInfo: Sendable, Equatable {
    public let mainClass: String?
    /// Dotted class names, e.g. `tool.pdf.Impose`.
    public let classNames: Set<String>

    public init(mainClass: String?, classNames: Set<String>) {
        self.mainClass = mainClass
        self.classNames = classNames
    }
}

/// Jars as the host's `java` sees them.
public enum JarFile {
    /// Reads a jar as `java` does: the ZIP's end record and central directory, then `META-INF/MANIFEST.MF` — O(directory),
    /// never the whole file. A truncated upload has no end record and throws (java's "Invalid or corrupt jarfile").
    public static func inspect(_ bytes: [UInt8]) throws(DocumentError) -> JarInfo {
        let zip = try ZIPReader(bytes)
        var mainClass: String?
        if let manifest = try zip.contents(of: "META-INF/MANIFEST.MF", limit: DocumentLimits.maximumMetadataBytes) {
            mainClass = mainAttributes(manifest)["main-class"]
        }
        let classes = zip.entryNames.filter { $0.hasSuffix(".class") && !$0.hasPrefix("META-INF/") }
            .map { String($0.dropLast(".class".count)).replacing("/", with: ".") }
        return JarInfo(mainClass: mainClass.flatMap { $0.isEmpty ? nil : $0 }, classNames: Set(classes))
    }

    /// The manifest's main section (up to the first blank line), names lower-cased; a line starting with one space
    /// continues the previous one (manifests wrap at 72 bytes).
    static func mainAttributes(_ manifest: [UInt8]) -> [String: String] {
        var logical: [String] = []
        // Split on bytes: as Swift Characters, CR LF is one character and would never match "\n".
        for rawLine in manifest.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let line = String(decoding: rawLine.last == 0x0D ? rawLine.dropLast() : rawLine, as: UTF8.self)
            if line.isEmpty { break }
            if line.hasPrefix(" "), !logical.isEmpty {
                logical[logical.count - 1] += line.dropFirst()
            } else {
                logical.append(String(line))
            }
        }
        var attributes: [String: String] = [:]
        for line in logical {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop(while: { $0 == " " })
            attributes[line[..<colon].lowercased()] = String(value)
        }
        return attributes
    }
}
