/// Byte counts as people read them.
enum SizeFormatting {
  /// SI units, like GNU `ls -h --si` with a space: `0 B`, `999 B`, `1.0 kB`, `12 kB`,
  /// `1.5 GB`; one decimal below 10, none from 10, rounded half up, and never `1000 kB`.
  static func humanReadable(_ byteCount: Int) -> String {
    let sign = byteCount < 0 ? "-" : ""
    let magnitude = UInt64(byteCount.magnitude)
    guard magnitude >= 1000 else { return sign + String(magnitude) + " B" }
    var unitIndex = 1
    var unit: UInt64 = 1000
    while unitIndex < units.count - 1, magnitude / unit >= 1000 {
      unitIndex += 1
      unit *= 1000
    }
    while true {
      let tenths = roundedHalfUp(magnitude, dividedBy: unit / 10)
      if tenths < 100 {
        return sign + String(tenths / 10) + "." + String(tenths % 10) + " " + units[unitIndex]
      }
      let whole = roundedHalfUp(magnitude, dividedBy: unit)
      if whole < 1000 || unitIndex == units.count - 1 {
        return sign + String(whole) + " " + units[unitIndex]
      }
      unitIndex += 1
      unit *= 1000
    }
  }

  /// The exact count in plain digits (`1234`), or grouped by thousands (`1,234`).
  static func exactBytes(_ byteCount: Int, grouped: Bool = false) -> String {
    let digits = String(byteCount.magnitude)
    let sign = byteCount < 0 ? "-" : ""
    guard grouped, digits.count > 3 else { return sign + digits }
    var result = ""
    for (offset, digit) in digits.enumerated() {
      if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
      result.append(digit)
    }
    return sign + result
  }

  private static let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"]

  /// `value / divisor` rounded half up, without overflow.
  private static func roundedHalfUp(_ value: UInt64, dividedBy divisor: UInt64) -> UInt64 {
    let quotient = value / divisor
    let remainder = value % divisor
    return remainder >= divisor - remainder ? quotient + 1 : quotient
  }
}
