import CivilDate

extension SFTPNameEntry {
    /// The `ls -l` line OpenSSH's sftp-server sends as a NAME entry's longname (sftp-common.c `ls_file`):
    /// `-rw-r--r--    1 demo     demo       297000 Jan  1 00:00 name`. Dates within six months of `now` show the
    /// time, older or future ones the year, as `ls` does; computed from Unix seconds without a calendar library.
    public static func longname(filename: String, attributes: SFTPFileAttributes, owner: String, group: String, now: UInt32) -> String {
        let mode = attributes.permissions ?? 0
        let type: Character =
            switch mode & 0o170000 {
            case 0o040000: "d"
            case 0o120000: "l"
            default: "-"
            }
        var bits = String(type)
        for (shift, letters) in [(6, "rwx"), (3, "rwx"), (0, "rwx")] {
            for (index, letter) in letters.enumerated() {
                bits.append(mode >> UInt32(shift) & (4 >> UInt32(index)) != 0 ? letter : "-")
            }
        }
        let time = attributes.modificationTime ?? 0
        let sixMonths: UInt32 = 182 * 86_400
        let recent = time <= now &+ sixMonths && (now < sixMonths || time >= now - sixMonths)
        let date = civilDate(Int64(time))
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let day = pad(String(date.day), 2)
        let stamp =
            recent
            ? "\(months[date.month - 1]) \(day) \(zero(date.hour)):\(zero(date.minute))"
            : "\(months[date.month - 1]) \(day)  \(date.year)"
        let size = String(attributes.size ?? 0)
        return "\(bits)    1 \(padRight(owner, 8)) \(padRight(group, 8)) \(pad(size, 8)) \(stamp) \(filename)"
    }

    private static func pad(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
    private static func padRight(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
    private static func zero(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// The UTC date, hour and minute of a Unix time (``CivilDate``).
    private static func civilDate(_ seconds: Int64) -> (year: Int64, month: Int, day: Int, hour: Int, minute: Int) {
        let (date, secondsOfDay) = CivilDate.split(unixSeconds: seconds)
        return (date.year, date.month, date.day, Int(secondsOfDay / 3600), Int(secondsOfDay % 3600 / 60))
    }
}
