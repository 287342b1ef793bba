/// A day of the proleptic Gregorian calendar in UTC, from a count of days since 1970-01-01: what IPP's
/// `dateTime`, an SFTP `ls -l` line and an OData ETag print, without a calendar library (and without Foundation,
/// so the pure protocol cores stay pure).
public struct CivilDate: Sendable, Equatable {
    public let year: Int64
    /// 1…12.
    public let month: Int
    /// 1…31.
    public let day: Int

    /// Howard Hinnant's days-to-civil algorithm (`civil_from_days`): exact for every representable day, before 1970
    /// too.
    public init(daysSinceEpoch days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// The day a Unix time falls on, and the seconds since that day's midnight (0…86399), in UTC.
    public static func split(unixSeconds seconds: Int64) -> (date: CivilDate, secondsOfDay: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (CivilDate(daysSinceEpoch: days), seconds - days * 86_400)
    }
}
