/// Attribute names, member names and keyword values longer than 15 bytes that the code and the captured
/// messages use (RFC 8011, PWG 5100.x), interned: reading one from the wire returns the string literal, which
/// allocates nothing and whose copies cost no reference counting. Strings of up to 15 UTF-8 bytes are stored
/// inline in a `String` anyway, so only longer ones are listed. A name missing here still reads correctly
/// (as a new String); adding it only saves that allocation.
enum IPPInternedStrings {
    /// Every interned string; a slot in `table` holds an index into this list.
    static let strings: [String] = [
        "aborted-by-system",
        "application/octet-stream",
        "application/postscript",
        "attributes-charset",
        "attributes-natural-language",
        "certificate-accepted",
        "certificate-refused",
        "charset-configured",
        "charset-supported",
        "compression-error",
        "compression-supplied",
        "compression-supported",
        "copies-supported",
        "date-time-at-completed",
        "date-time-at-creation",
        "date-time-at-processing",
        "delete-attribute",
        "document-attributes-tag",
        "document-charset",
        "document-format-default",
        "document-format-error",
        "document-format-supplied",
        "document-format-supported",
        "document-message",
        "document-metadata",
        "document-natural-language",
        "document-numbers",
        "document-password",
        "document-password-supported",
        "document-received",
        "document-refused",
        "end-of-attributes-tag",
        "event-notification-attributes-tag",
        "finishing-template",
        "finishings-col-database",
        "finishings-col-default",
        "finishings-col-ready",
        "finishings-col-supported",
        "finishings-default",
        "finishings-ready",
        "finishings-supported",
        "generated-natural-language-supported",
        "identify-actions",
        "identify-actions-default",
        "identify-actions-supported",
        "image/pwg-raster",
        "ipp-attribute-fidelity",
        "ipp-features-supported",
        "ipp-versions-supported",
        "iso_a4_210x297mm",
        "iso_dl_110x220mm",
        "iso_dl_110x220mm_by-pass-tray",
        "job-attributes-tag",
        "job-canceled-by-user",
        "job-completed-successfully",
        "job-creation-attributes-supported",
        "job-data-insufficient",
        "job-hold-until-specified",
        "job-ids-supported",
        "job-impressions-completed",
        "job-k-octets-supported",
        "job-media-sheets",
        "job-media-sheets-completed",
        "job-originating-user-name",
        "job-printer-up-time",
        "job-priority-default",
        "job-priority-supported",
        "job-sheets-default",
        "job-sheets-supported",
        "job-state-message",
        "job-state-reasons",
        "media-bottom-margin",
        "media-bottom-margin-supported",
        "media-col-database",
        "media-col-default",
        "media-col-supported",
        "media-empty-error",
        "media-left-margin",
        "media-left-margin-supported",
        "media-right-margin",
        "media-right-margin-supported",
        "media-size-supported",
        "media-source-supported",
        "media-top-margin",
        "media-top-margin-supported",
        "media-type-supported",
        "mig.document-format-error",
        "mopria-certified",
        "multiple-document-handling",
        "multiple-document-handling-supported",
        "multiple-document-jobs-supported",
        "multiple-operation-time-out",
        "multiple-operation-time-out-action",
        "na_legal_8.5x14in",
        "na_letter_8.5x11in",
        "na_letter_8.5x11in_main_stationery",
        "na_number-10_4.125x9.5in",
        "na_number-10_4.125x9.5in_by-pass-tray",
        "na_number-10_4.125x9.5in_by-pass-tray_envelope",
        "natural-language-configured",
        "number-of-documents",
        "operation-attributes-tag",
        "operations-supported",
        "orientation-requested",
        "orientation-requested-default",
        "orientation-requested-supported",
        "output-bin-default",
        "output-bin-supported",
        "overrides-supported",
        "page-ranges-supported",
        "pages-per-minute",
        "pdl-override-supported",
        "preferred-attributes-supported",
        "print-color-mode",
        "print-color-mode-default",
        "print-color-mode-supported",
        "print-content-optimize",
        "print-content-optimize-default",
        "print-content-optimize-supported",
        "print-quality-default",
        "print-quality-supported",
        "print-rendering-intent",
        "print-rendering-intent-default",
        "print-rendering-intent-supported",
        "printer-attributes-tag",
        "printer-config-change-date-time",
        "printer-config-change-time",
        "printer-current-time",
        "printer-description",
        "printer-device-id",
        "printer-geo-location",
        "printer-get-attributes-supported",
        "printer-input-tray",
        "printer-is-accepting-jobs",
        "printer-location",
        "printer-make-and-model",
        "printer-more-info",
        "printer-organization",
        "printer-organizational-unit",
        "printer-resolution",
        "printer-resolution-default",
        "printer-resolution-supported",
        "printer-state-change-date-time",
        "printer-state-change-time",
        "printer-state-message",
        "printer-state-reasons",
        "printer-supply-description",
        "printer-supply-info-uri",
        "printer-uri-supported",
        "processing-stopped",
        "pwg-raster-document-resolution-supported",
        "pwg-raster-document-sheet-back",
        "pwg-raster-document-type-supported",
        "queued-job-count",
        "reference-uri-schemes-supported",
        "requested-attributes",
        "requesting-user-name",
        "resource-attributes-tag",
        "separate-documents-collated-copies",
        "separate-documents-uncollated-copies",
        "stationery-letterhead",
        "subscription-attributes-tag",
        "system-attributes-tag",
        "text-and-graphic",
        "time-at-completed",
        "time-at-creation",
        "time-at-processing",
        "two-sided-long-edge",
        "two-sided-short-edge",
        "unsupported-attributes-tag",
        "upload-abandoned",
        "uri-authentication-supported",
        "uri-security-supported",
        "v4-document-pages",
        "which-jobs-supported",
    ]

    /// An open-addressing hash table over `strings`, built once.
    static let table = Table(strings)

    /// The interned string equal to the `count` bytes at `bytes`, or nil.
    static func lookup(_ bytes: UnsafePointer<UInt8>, count: Int) -> String? {
        let table = self.table
        guard count > 15, count <= table.maxLength else { return nil }
        var slot = Table.hash(UnsafeRawPointer(bytes), count: count) & table.mask
        while true {
            let index = Int(table.slots[slot])
            if index < 0 { return nil }
            if table.matches(index, bytes, count: count) { return strings[index] }
            slot = (slot + 1) & table.mask
        }
    }

    /// Slots holding indices into `strings` (-1 when empty) and the strings' bytes, laid out for comparing.
    final class Table: Sendable {
        let slots: [Int16]
        let mask: Int
        let blob: [UInt8]
        let offsets: [Int]
        let maxLength: Int

        init(_ strings: [String]) {
            var size = 1
            while size < strings.count * 4 { size <<= 1 }
            var slots = [Int16](repeating: -1, count: size)
            var blob: [UInt8] = []
            var offsets: [Int] = []
            for (index, string) in strings.enumerated() {
                offsets.append(blob.count)
                blob += Array(string.utf8)
                var slot = blob.withUnsafeBytes { all in
                    all.baseAddress.map { Table.hash($0 + offsets[index], count: string.utf8.count) } ?? 0
                }
                slot &= size - 1
                while slots[slot] >= 0 { slot = (slot + 1) & (size - 1) }
                slots[slot] = Int16(index)
            }
            offsets.append(blob.count)
            self.slots = slots
            self.mask = size - 1
            self.blob = blob
            self.offsets = offsets
            self.maxLength = strings.map(\.utf8.count).max() ?? 0
        }

        /// Mixes the first, middle and last 8 bytes and the length (every interned string has at least 16 bytes).
        @inline(__always)
        static func hash(_ bytes: UnsafeRawPointer, count: Int) -> Int {
            let head = bytes.loadUnaligned(as: UInt64.self)
            let middle = bytes.loadUnaligned(fromByteOffset: count / 2 - 4, as: UInt64.self)
            let tail = bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            var mixed = (head &* 0x9E37_79B9_7F4A_7C15) ^ (middle &* 0xC2B2_AE3D_27D4_EB4F) ^ (tail &+ UInt64(count))
            mixed = (mixed ^ (mixed >> 29)) &* 0xBF58_476D_1CE4_E5B9
            return Int(truncatingIfNeeded: mixed ^ (mixed >> 32))
        }

        /// Whether string `index` is exactly these bytes.
        @inline(__always)
        func matches(_ index: Int, _ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
            let start = offsets[index]
            guard offsets[index + 1] - start == count else { return false }
            return blob.withUnsafeBufferPointer { all in
                guard let base = all.baseAddress else { return false }
                let wanted = UnsafeRawPointer(base + start)
                let given = UnsafeRawPointer(bytes)
                var offset = 0
                while offset + 8 <= count {
                    guard
                        wanted.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                            == given.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    else { return false }
                    offset += 8
                }
                // The last (overlapping) 8 bytes: count is at least 16.
                return wanted.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    == given.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            }
        }
    }
}
