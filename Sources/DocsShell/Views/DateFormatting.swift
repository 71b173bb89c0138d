import DocsKit

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
    let fields = localFields(milliseconds).fields
    let isRecent = milliseconds <= now && now - milliseconds < Self.sixMonthsInMilliseconds
    guard (0...99_999).contains(fields.year) else {
      let day = fields.day < 10 ? " " + String(fields.day) : String(fields.day)
      let year = String(fields.year)
      return Self.monthAbbreviations[fields.month - 1] + " " + day + " "
        + String(repeating: " ", count: max(0, 5 - year.count)) + year
    }
    // Written byte by byte: `ls` of a large category formats thousands of these.
    return String(unsafeUninitializedCapacity: 12) { out in
      Self.monthBytes.withUTF8Buffer { months in
        for offset in 0..<3 { out[offset] = months[(fields.month - 1) * 3 + offset] }
      }
      out[3] = UInt8(ascii: " ")
      out[4] = fields.day < 10 ? UInt8(ascii: " ") : UInt8(48 + fields.day / 10)
      out[5] = UInt8(48 + fields.day % 10)
      out[6] = UInt8(ascii: " ")
      if isRecent {
        out[7] = UInt8(48 + fields.hour / 10)
        out[8] = UInt8(48 + fields.hour % 10)
        out[9] = UInt8(ascii: ":")
        out[10] = UInt8(48 + fields.minute / 10)
        out[11] = UInt8(48 + fields.minute % 10)
        return 12
      }
      // The year right-aligned in five columns: `Nov 29  2025`.
      var year = fields.year
      var index = 11
      repeat {
        out[index] = UInt8(48 + year % 10)
        year /= 10
        index -= 1
      } while year > 0
      while index >= 7 {
        out[index] = UInt8(ascii: " ")
        index -= 1
      }
      return 12
    }
  }

  /// The month abbreviations, three bytes each.
  private static let monthBytes: StaticString = "JanFebMarAprMayJunJulAugSepOctNovDec"

  /// To the minute, local time: `2026-11-29 14:53`, as `log` lists versions.
  func minutes(_ milliseconds: Int64) -> String {
    let fields = localFields(milliseconds).fields
    return paddedNumber(fields.year, 4) + "-" + twoDigits(fields.month) + "-"
      + twoDigits(fields.day) + " " + twoDigits(fields.hour) + ":" + twoDigits(fields.minute)
  }

  /// The full form: `2026-11-29 14:53:00.123 +0100`, local time and its offset from UTC.
  func full(_ milliseconds: Int64) -> String {
    let (fields, offsetSeconds) = localFields(milliseconds)
    let offsetMinutes = offsetSeconds / 60
    let offset =
      (offsetMinutes < 0 ? "-" : "+") + twoDigits(abs(offsetMinutes) / 60)
      + twoDigits(abs(offsetMinutes) % 60)
    return paddedNumber(fields.year, 4) + "-" + twoDigits(fields.month) + "-"
      + twoDigits(fields.day) + " " + twoDigits(fields.hour) + ":" + twoDigits(fields.minute)
      + ":" + twoDigits(fields.second) + "." + paddedNumber(fields.millisecond, 3) + " " + offset
  }

  /// The local calendar day `days` after the one holding the moment, in ISO 8601:
  /// `2026-11-29` (`days` -1: the day before). Days are counted on the local calendar, so a
  /// change of summer time on the way moves no date.
  func isoDay(_ milliseconds: Int64, addingDays days: Int = 0) -> String {
    let moment = Timestamp(millisecondsSince1970: milliseconds)
    let localSeconds =
      moment.secondsSince1970 + Int64(timeZone.secondsEast(moment.secondsSince1970))
    // Rounded down, also before 1970.
    let dayNumber =
      (localSeconds >= 0 ? localSeconds / 86_400 : (localSeconds - 86_399) / 86_400) + Int64(days)
    let fields = Timestamp(millisecondsSince1970: dayNumber * 86_400_000).calendarFields()
    return paddedNumber(fields.year, 4) + "-" + twoDigits(fields.month) + "-"
      + twoDigits(fields.day)
  }

  /// The local time to the minute: `14:53`.
  func hoursAndMinutes(_ milliseconds: Int64) -> String {
    let fields = localFields(milliseconds).fields
    return twoDigits(fields.hour) + ":" + twoDigits(fields.minute)
  }

  /// Six months as `ls` counts them: half of 365.2425 days.
  static let sixMonthsInMilliseconds: Int64 = 15_778_476_000

  /// English month abbreviations, whatever the locale.
  static let monthAbbreviations = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  private func localFields(_ milliseconds: Int64) -> (
    fields: Timestamp.CalendarFields, offsetSeconds: Int
  ) {
    let moment = Timestamp(millisecondsSince1970: milliseconds)
    let offset = timeZone.secondsEast(moment.secondsSince1970)
    return (moment.calendarFields(offsetSeconds: offset), offset)
  }

  private func twoDigits(_ value: Int) -> String { paddedNumber(value, 2) }

  private func paddedNumber(_ value: Int, _ width: Int) -> String {
    let digits = String(value.magnitude)
    let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
    return value < 0 ? "-" + padded : padded
  }
}
