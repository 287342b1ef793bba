/// Reading strings and walking values of wire-form items (the typed views are in IPPValueView.swift).
///
/// The decoder has already checked lengths and nesting, but these functions
/// stay defensive (no force unwraps, bounded loops) so that a storage built
/// any other way still cannot make them trap.
extension IPPStorageBox {
    /// The string of a character-string or with-language value item; nil for other syntaxes.
    @usableFromInline
    func string(item index: Int) -> String? {
        let item = items[index]
        switch item.tag {
        case 0x44, 0x46, 0x47, 0x49:
            return internedString(from: item.valueStart, count: Int(item.valueLength))
        case 0x40...0x5F:
            return string(from: item.valueStart, count: Int(item.valueLength))
        case 0x35, 0x36:
            return withLanguageViews(start: item.valueStart, length: Int(item.valueLength))?.text.plainString
        default:
            return nil
        }
    }

    /// The index of the next top-level value after the one at `index` (skips a collection's members).
    @inlinable
    func nextValue(after index: Int, end: Int) -> Int {
        guard items[index].tag == 0x34 else { return index + 1 }
        return collectionEnd(at: index, end: end)
    }

    /// The item after the endCollection that closes the collection whose begCollection item is at `index` (`end` if
    /// it never closes).
    @inlinable
    func collectionEnd(at index: Int, end: Int) -> Int { IPPItemReader(self).collectionEnd(at: index, end: end) }
}
