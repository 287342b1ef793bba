#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Swift symbol names as people read them, by the Swift runtime's own demangler: perf prints Swift symbols mangled
/// (`$s3JWT9SignedJWTV7compactACSS_tAA8JWTErrorVYKcfC`), which says little in a flame graph.
public enum SwiftDemangler {
    /// `symbol` demangled and shortened (see ``shortened(_:)``) when it is a Swift symbol; any other name unchanged.
    public static func name(_ symbol: String) -> String {
        guard symbol.hasPrefix("$s") || symbol.hasPrefix("_$s") || symbol.hasPrefix("$S") else { return symbol }
        let demangled = symbol.utf8CString.withUnsafeBufferPointer { name -> String? in
            guard let base = name.baseAddress, let text = swiftDemangle(base, name.count - 1, nil, nil, 0) else { return nil }
            defer { free(text) }
            return String(cString: text)
        }
        return demangled.map(shortened) ?? symbol
    }

    /// A demangled name without what makes it long but not clearer in a frame: the `Swift.` module prefix of
    /// standard-library types and the result type of a function (`-> JWT.SignedJWT`) at the outermost level.
    /// `generic specialization <…> of` and `closure #1 in` stay: they tell frames apart.
    public static func shortened(_ name: String) -> String {
        var out = ""
        var depth = 0
        var index = name.startIndex
        while index < name.endIndex {
            let character = name[index]
            switch character {
            case "(", "<", "[": depth += 1
            case ")", "]": depth -= 1
            // The ">" of an arrow ("->") closes nothing.
            case ">" where index == name.startIndex || name[name.index(before: index)] != "-": depth -= 1
            default: break
            }
            // "->" at depth 0 starts the outermost function's result type, unless more of the name follows (" in ").
            if depth == 0, name[index...].hasPrefix(" -> ") {
                let rest = name[name.index(index, offsetBy: 4)...]
                if let inRange = firstRange(of: " in ", in: rest) {
                    index = inRange.lowerBound
                    continue
                }
                break
            }
            if name[index...].hasPrefix("Swift."), index == name.startIndex || !isIdentifier(name[name.index(before: index)]) {
                index = name.index(index, offsetBy: 6)
                continue
            }
            out.append(character)
            index = name.index(after: index)
        }
        return out
    }

    private static func isIdentifier(_ character: Character) -> Bool { character.isLetter || character.isNumber || character == "_" }

    private static func firstRange(of needle: String, in text: Substring) -> Range<Substring.Index>? {
        var start = text.startIndex
        while start < text.endIndex {
            if text[start...].hasPrefix(needle) { return start..<text.index(start, offsetBy: needle.count) }
            start = text.index(after: start)
        }
        return nil
    }
}

// The runtime's demangler (swift/Demangling/Demangle.h: "swift_demangle"); it returns a malloc'd string when given no buffer.
@_silgen_name("swift_demangle")
private func swiftDemangle(
    _ mangledName: UnsafePointer<CChar>, _ mangledNameLength: Int, _ outputBuffer: UnsafeMutablePointer<CChar>?,
    _ outputBufferSize: UnsafeMutablePointer<Int>?, _ flags: UInt32
) -> UnsafeMutablePointer<CChar>?
