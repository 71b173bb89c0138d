#if canImport(Glibc)
  import Glibc
#endif

/// How far local time is ahead of UTC at a given moment; injected so tests are deterministic.
struct TimeZoneOffset: Sendable {
  /// Seconds east of UTC in effect at `secondsSince1970`.
  let secondsEast: @Sendable (_ secondsSince1970: Int64) -> Int

  /// Makes a provider from a function of the moment.
  init(secondsEast: @escaping @Sendable (_ secondsSince1970: Int64) -> Int) {
    self.secondsEast = secondsEast
  }

  /// A zone that is always `seconds` east of UTC.
  static func fixed(seconds: Int) -> TimeZoneOffset {
    TimeZoneOffset { _ in seconds }
  }

  /// UTC itself.
  static let utc = fixed(seconds: 0)

  /// The process's local time zone (`TZ`, else `/etc/localtime`), through `localtime_r`.
  static let system = TimeZoneOffset { seconds in
    var time = time_t(seconds)
    var fields = tm()
    guard localtime_r(&time, &fields) != nil else { return 0 }
    return Int(fields.tm_gmtoff)
  }
}

/// Renders moments (milliseconds since the epoch) in local time, with English month names.
struct DateFormatting: Sendable {
  /// The local time zone the dates are shown in.
  var timeZone: TimeZoneOffset

  /// Makes a formatter for `timeZone`, by default the system's.
  init(timeZone: TimeZoneOffset = .system) {
    self.timeZone = timeZone
  }

  /// The `ls` form: `Nov 29 14:53` within the last six months and not in the future,
  /// otherwise `Nov 29  2025`; the day is padded with a space (`Nov  9`).
  func short(_ milliseconds: Int64, now: Int64) -> String {
    let fields = localFields(milliseconds)
    let day = fields.day < 10 ? " " + String(fields.day) : String(fields.day)
    let start = Self.monthAbbreviations[fields.month - 1] + " " + day + " "
    let isRecent = milliseconds <= now && now - milliseconds < Self.sixMonthsInMilliseconds
    if isRecent {
      return start + twoDigits(fields.hour) + ":" + twoDigits(fields.minute)
    }
    let year = String(fields.year)
    return start + String(repeating: " ", count: max(0, 5 - year.count)) + year
  }

  /// The full form: `2026-11-29 14:53:00.123 +0100`, local time and its offset from UTC.
  func full(_ milliseconds: Int64) -> String {
    let fields = localFields(milliseconds)
    let offsetMinutes = fields.offsetSeconds / 60
    let offset =
      (offsetMinutes < 0 ? "-" : "+") + twoDigits(abs(offsetMinutes) / 60)
      + twoDigits(abs(offsetMinutes) % 60)
    return paddedNumber(fields.year, 4) + "-" + twoDigits(fields.month) + "-"
      + twoDigits(fields.day) + " " + twoDigits(fields.hour) + ":" + twoDigits(fields.minute)
      + ":" + twoDigits(fields.second) + "." + paddedNumber(fields.millisecond, 3) + " " + offset
  }

  /// Six months as `ls` counts them: half of 365.2425 days.
  static let sixMonthsInMilliseconds: Int64 = 15_778_476_000

  /// English month abbreviations, whatever the locale.
  static let monthAbbreviations = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  private struct LocalFields {
    var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, millisecond = 0
    var offsetSeconds = 0
  }

  private func localFields(_ milliseconds: Int64) -> LocalFields {
    let (seconds, millisecond) = floorDivision(milliseconds, 1000)
    var fields = LocalFields()
    fields.millisecond = Int(millisecond)
    fields.offsetSeconds = timeZone.secondsEast(seconds)
    let local = seconds + Int64(fields.offsetSeconds)
    let (days, secondOfDay) = floorDivision(local, 86_400)
    fields.hour = Int(secondOfDay / 3600)
    fields.minute = Int(secondOfDay / 60 % 60)
    fields.second = Int(secondOfDay % 60)
    // Howard Hinnant's civil_from_days.
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    fields.day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
    fields.month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
    fields.year = Int(yearOfEra + era * 400) + (fields.month <= 2 ? 1 : 0)
    return fields
  }

  private func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
    let remainder = (value % divisor + divisor) % divisor
    return ((value - remainder) / divisor, remainder)
  }

  private func twoDigits(_ value: Int) -> String { paddedNumber(value, 2) }

  private func paddedNumber(_ value: Int, _ width: Int) -> String {
    let digits = String(value.magnitude)
    let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
    return value < 0 ? "-" + padded : padded
  }
}
