#if canImport(Glibc)
  import Glibc
#endif

/// A moment in time with millisecond precision, as the store records it.
///
/// The store writes the fixed shape `2026-11-29T14:53:00.123Z` (ISO 8601, UTC); parsing and
/// formatting it by hand keeps date formatters out of loading 100,000 documents.
public struct Timestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// Milliseconds since 1970-01-01T00:00:00Z.
  public var millisecondsSince1970: Int64

  /// Makes a timestamp from milliseconds since the Unix epoch.
  public init(millisecondsSince1970: Int64) {
    self.millisecondsSince1970 = millisecondsSince1970
  }

  /// The current time of the system clock.
  public static func now() -> Timestamp {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Timestamp(
      millisecondsSince1970: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
  }

  /// Whole seconds since the epoch (rounded down).
  public var secondsSince1970: Int64 {
    millisecondsSince1970 >= 0
      ? millisecondsSince1970 / 1000 : (millisecondsSince1970 - 999) / 1000
  }

  public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
    lhs.millisecondsSince1970 < rhs.millisecondsSince1970
  }

  /// The ISO 8601 form in UTC with milliseconds: `2026-11-29T14:53:00.123Z`.
  public var description: String { iso8601 }

  /// The calendar date and time of day of this moment, `offsetSeconds` east of UTC.
  public func calendarFields(offsetSeconds: Int = 0) -> CalendarFields {
    let local = secondsSince1970 + Int64(offsetSeconds)
    let civil = CivilTime(secondsSince1970: local)
    return CalendarFields(
      year: civil.year, month: civil.month, day: civil.day, hour: civil.hour,
      minute: civil.minute, second: civil.second,
      millisecond: Int((millisecondsSince1970 % 1000 + 1000) % 1000))
  }

  /// A moment as a calendar shows it (proleptic Gregorian).
  public struct CalendarFields: Hashable, Sendable {
    /// The year, e.g. 2026.
    public var year: Int
    /// The month, 1 to 12.
    public var month: Int
    /// The day of the month, 1 to 31.
    public var day: Int
    /// The hour, 0 to 23.
    public var hour: Int
    /// The minute, 0 to 59.
    public var minute: Int
    /// The second, 0 to 59.
    public var second: Int
    /// The millisecond, 0 to 999.
    public var millisecond: Int
  }

  /// The ISO 8601 form in UTC with milliseconds: `2026-11-29T14:53:00.123Z`.
  public var iso8601: String {
    let millis = Int((millisecondsSince1970 % 1000 + 1000) % 1000)
    let fields = CivilTime(secondsSince1970: secondsSince1970)
    guard (0...9999).contains(fields.year) else {
      return pad(fields.year, 4) + "-" + pad(fields.month, 2) + "-" + pad(fields.day, 2) + "T"
        + pad(fields.hour, 2) + ":" + pad(fields.minute, 2) + ":" + pad(fields.second, 2) + "."
        + pad(millis, 3) + "Z"
    }
    // The fixed shape, digit by digit: this runs for every document a save encodes.
    return String(unsafeUninitializedCapacity: 24) { out in
      // `value` in `width` digits at `start`, then `separator`.
      func put(_ value: Int, _ width: Int, at start: Int, then separator: Unicode.Scalar) {
        var value = value
        for index in stride(from: start + width - 1, through: start, by: -1) {
          out[index] = UInt8(48 + value % 10)
          value /= 10
        }
        out[start + width] = UInt8(ascii: separator)
      }
      put(fields.year, 4, at: 0, then: "-")
      put(fields.month, 2, at: 5, then: "-")
      put(fields.day, 2, at: 8, then: "T")
      put(fields.hour, 2, at: 11, then: ":")
      put(fields.minute, 2, at: 14, then: ":")
      put(fields.second, 2, at: 17, then: ".")
      put(millis, 3, at: 20, then: "Z")
      return 24
    }
  }

  /// Parses ISO 8601 in the shapes other tools write: `YYYY-MM-DDTHH:MM:SS`, optionally
  /// followed by a fraction of a second, then `Z` or a `±HH:MM` offset. `nil` when malformed.
  public init?(iso8601 text: some StringProtocol) {
    var bytes = Array(text.utf8)
    guard
      let parsed = bytes.withUnsafeMutableBufferPointer({
        Timestamp(iso8601Bytes: UnsafeBufferPointer($0))
      })
    else { return nil }
    self = parsed
  }

  /// Parses the bytes of an ISO 8601 timestamp; see ``init(iso8601:)``.
  init?(iso8601Bytes b: UnsafeBufferPointer<UInt8>) {
    func number(_ start: Int, _ count: Int) -> Int? {
      guard start + count <= b.count else { return nil }
      var value = 0
      for index in start..<(start + count) {
        let digit = Int(b[index]) - 48
        guard digit >= 0 && digit <= 9 else { return nil }
        value = value * 10 + digit
      }
      return value
    }
    guard b.count >= 20,
      let year = number(0, 4), b[4] == UInt8(ascii: "-"),
      let month = number(5, 2), b[7] == UInt8(ascii: "-"),
      let day = number(8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"),
      let hour = number(11, 2), b[13] == UInt8(ascii: ":"),
      let minute = number(14, 2), b[16] == UInt8(ascii: ":"),
      let second = number(17, 2),
      (1...12).contains(month), (1...CivilTime.daysIn(month: month, year: year)).contains(day),
      hour < 24, minute < 60, second < 61
    else { return nil }
    var index = 19
    var millis = 0
    if index < b.count, b[index] == UInt8(ascii: ".") {
      index += 1
      var digits = 0
      while index < b.count, b[index] >= 48, b[index] <= 57 {
        if digits < 3 { millis = millis * 10 + Int(b[index] - 48) }
        digits += 1
        index += 1
      }
      guard digits > 0 else { return nil }
      for _ in digits..<max(digits, 3) { millis *= 10 }
    }
    var offsetSeconds = 0
    guard index < b.count else { return nil }
    switch b[index] {
    case UInt8(ascii: "Z"), UInt8(ascii: "z"):
      index += 1
    case UInt8(ascii: "+"), UInt8(ascii: "-"):
      guard let offsetHour = number(index + 1, 2), index + 3 < b.count,
        b[index + 3] == UInt8(ascii: ":"), let offsetMinute = number(index + 4, 2)
      else { return nil }
      offsetSeconds =
        (offsetHour * 3600 + offsetMinute * 60) * (b[index] == UInt8(ascii: "+") ? 1 : -1)
      index += 6
    default:
      return nil
    }
    guard index == b.count else { return nil }
    let days = CivilTime.daysSince1970(year: year, month: month, day: day)
    let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
    self.init(millisecondsSince1970: seconds * 1000 + Int64(millis))
  }
}

/// Calendar fields of a moment in the proleptic Gregorian calendar.
struct CivilTime {
  var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int

  init(secondsSince1970 seconds: Int64) {
    let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
    let secondOfDay = Int(seconds - Int64(days) * 86_400)
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    hour = secondOfDay / 3600
    minute = secondOfDay / 60 % 60
    second = secondOfDay % 60
  }

  /// Days from 1970-01-01 to the given date (Howard Hinnant's days_from_civil).
  static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }
}

/// `value` in decimal, left-padded with zeros to `width` digits.
func pad(_ value: Int, _ width: Int) -> String {
  let digits = String(value)
  return digits.count >= width
    ? digits : String(repeating: "0", count: width - digits.count) + digits
}
