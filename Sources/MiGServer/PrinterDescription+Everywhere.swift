import Crypto
import IPP

/// The printer attributes PWG 5100.14 (IPP Everywhere) requires beyond IPP/2.0, each describing the simulated
/// device: its media with sizes and margins, its one tray and paper, the toner it uses up, its icons, its raster
/// formats (PWG raster, and Apple raster with its `urf-supported`). CUPS builds a driverless queue (`lpadmin -m everywhere`) from these.
extension PrinterDescription {
    /// Pages one toner cartridge prints: printer-supply's level falls by one percent every 1/100 of this.
    static let tonerCapacity: Int64 = 20_000
    /// PWG raster the printer takes: the resolutions and colour spaces of a 600 dpi monochrome device.
    static let rasterResolutions: [Int32] = [300, 600]
    static let rasterTypes = ["black_1", "sgray_8"]
    /// The same device in Apple raster's words (`image/urf`, what AirPrint clients send): format version 1.4, 8-bit
    /// grey (W8) at 300 and 600 dpi, copies (CP1), two-sided (DM1), one tray (IS1), plain paper (MT1), print
    /// qualities 3 to 5.
    static let appleRasterCapabilities = ["CP1", "DM1", "IS1", "MT1", "PQ3-4-5", "RS300-600", "V1.4", "W8"]

    /// `urn:uuid:` of a printer, stable across runs and restarts: a name-based (version 5 style) UUID from the
    /// host the printer runs on and its name, so two MiGs on two hosts differ and one MiG keeps its own.
    public static func uuid(host: String, name: String) -> String {
        var bytes = Array(SHA256.hash(data: Array("mig-printer:\(host)/ipp/print:\(name)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return "urn:uuid:" + parts.joined(separator: "-")
    }

    /// One media-col: a size with the printer's margins, and its tray and paper when `loaded`.
    func mediaCol(_ media: String, loaded: Bool) -> IPPValue {
        let size = mediaSizes[media] ?? (0, 0)
        return .collection(
            IPPCollection { col in
                col.add(
                    "media-size",
                    .collection(
                        IPPCollection { dimensions in
                            dimensions.add("x-dimension", .integer(size.width))
                            dimensions.add("y-dimension", .integer(size.length))
                        }))
                for edge in ["bottom", "left", "right", "top"] { col.add("media-\(edge)-margin", .integer(mediaMargin)) }
                if loaded {
                    col.add("media-source", .keyword(mediaSource))
                    col.add("media-type", .keyword(mediaType))
                }
            })
    }

    func everywhereAttributes(status: PrinterStatus, address: PrinterAddress) -> [(String, AttributeGroup, [IPPValue])] {
        let keywords = { (list: [String]) in list.map(IPPValue.keyword) }
        let level = max(0, 100 - status.pagesPrinted * 100 / Self.tonerCapacity)
        let supply = "index=1;class=supplyThatIsConsumed;type=toner;unit=percent;maxcapacity=100;level=\(level);colorantname=black;"
        let web = address.moreInfo.dropLast()  // the scheme and authority clients reached MiG's HTTP at
        return [
            ("media-bottom-margin-supported", .template, [.integer(mediaMargin)]),
            ("media-col-database", .template, media.map { mediaCol($0, loaded: false) }),
            ("media-col-default", .template, [mediaCol(mediaDefault, loaded: true)]),
            ("media-col-ready", .template, [mediaCol(mediaDefault, loaded: true)]),
            ("media-col-supported", .template, keywords(Self.mediaColMembers)),
            ("media-left-margin-supported", .template, [.integer(mediaMargin)]),
            ("media-right-margin-supported", .template, [.integer(mediaMargin)]),
            (
                "media-size-supported", .template,
                media.compactMap { name in
                    mediaSizes[name].map { size in
                        .collection(
                            IPPCollection { col in
                                col.add("x-dimension", .integer(size.width))
                                col.add("y-dimension", .integer(size.length))
                            })
                    }
                }
            ),
            ("media-source-supported", .template, keywords(mediaSources)),
            ("media-top-margin-supported", .template, [.integer(mediaMargin)]),
            ("media-type-supported", .template, keywords(mediaTypes)),
            ("overrides-supported", .template, keywords(Self.overrideMembers)),
            ("preferred-attributes-supported", .description, [.boolean(false)]),
            ("printer-config-change-date-time", .description, [.dateTime(IPPDateTime(unixSeconds: status.configChangeTime))]),
            ("printer-config-change-time", .description, [.integer(Int32(clamping: status.configChangeTime))]),
            ("printer-device-id", .description, [.text("MFG:Dispatcher Paragon;MDL:MiG;CMD:PDF,PS,JPEG,PWGRaster,URF;")]),
            ("printer-geo-location", .description, [.outOfBand(.unknown)]),
            ("printer-get-attributes-supported", .description, [.keyword("document-format")]),
            ("printer-icons", .description, PrinterIcon.sizes.map { .uri(web + PrinterIcon.path(size: $0)) }),
            ("printer-organization", .description, [.text(organization)]),
            ("printer-organizational-unit", .description, [.text(organizationalUnit)]),
            ("printer-state-change-date-time", .description, [.dateTime(IPPDateTime(unixSeconds: status.stateChangeTime))]),
            ("printer-supply", .description, [.octetString(Array(supply.utf8))]),
            ("printer-supply-description", .description, [.text("Black toner")]),
            ("printer-supply-info-uri", .description, [.uri(address.moreInfo)]),
            ("printer-uuid", .description, [.uri(uuid ?? Self.uuid(host: "mig", name: name))]),
            (
                "pwg-raster-document-resolution-supported", .description,
                Self.rasterResolutions.map { .resolution(IPPResolution(crossFeed: $0, feed: $0)) }
            ),
            ("pwg-raster-document-sheet-back", .description, [.keyword("normal")]),
            ("pwg-raster-document-type-supported", .description, keywords(Self.rasterTypes)),
            ("urf-supported", .description, keywords(Self.appleRasterCapabilities)),
        ]
    }

    /// The media-col members a job may give (`PrinterDescription.media(for:)` checks each).
    static let mediaColMembers = [
        "media-bottom-margin", "media-left-margin", "media-right-margin", "media-size", "media-size-name",
        "media-source", "media-top-margin", "media-type",
    ]

    /// What an `overrides` collection may name besides the job-template attributes it overrides. PWG 5100.6 spells
    /// the documents member `document-numbers`; ipptool's own suites disagree (ipp-everywhere.test looks for
    /// `document-number` in overrides-supported, ipp-2.2.test §6.4 for `document-numbers`), and clients written
    /// against either exist, so both are listed and both are honoured alike.
    static let overrideMembers = ["document-number", "document-numbers", "pages"]
}
