/// Byte counts as people read them.
enum SizeFormatting {
  /// SI units, like GNU `ls -h --si` with a space: `0 B`, `999 B`, `1.0 kB`, `12 kB`,
  /// `1.5 GB`; one decimal below 10, none from 10, rounded half up, and never `1000 kB`.
  static func humanReadable(_ byteCount: Int) -> String {
    let isNegative = byteCount < 0
    let magnitude = UInt64(byteCount.magnitude)
    guard magnitude >= 1000 else { return written(isNegative, magnitude, tenths: nil, unit: 0) }
    var unitIndex = 1
    var unit: UInt64 = 1000
    while unitIndex < units.count - 1, magnitude / unit >= 1000 {
      unitIndex += 1
      unit *= 1000
    }
    while true {
      let tenths = roundedHalfUp(magnitude, dividedBy: unit / 10)
      if tenths < 100 {
        return written(isNegative, tenths / 10, tenths: tenths % 10, unit: unitIndex)
      }
      let whole = roundedHalfUp(magnitude, dividedBy: unit)
      if whole < 1000 || unitIndex == units.count - 1 {
        return written(isNegative, whole, tenths: nil, unit: unitIndex)
      }
      unitIndex += 1
      unit *= 1000
    }
  }

  /// `-12.3 kB`: the sign, the whole number, one decimal when given, a space and the unit,
  /// written byte by byte (`ls` of a large category writes thousands of these).
  private static func written(_ isNegative: Bool, _ whole: UInt64, tenths: UInt64?, unit: Int)
    -> String
  {
    var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0)
    return String(unsafeUninitializedCapacity: 40) { out in
      var count = 0
      if isNegative {
        out[count] = UInt8(ascii: "-")
        count += 1
      }
      // The digits of `whole`, last first, then copied in order.
      let digitCount = withUnsafeMutableBytes(of: &digits) { reversed -> Int in
        var value = whole
        var used = 0
        repeat {
          reversed[used] = UInt8(ascii: "0") + UInt8(value % 10)
          value /= 10
          used += 1
        } while value > 0 && used < reversed.count
        for index in 0..<used { out[count + index] = reversed[used - 1 - index] }
        return used
      }
      count += digitCount
      if let tenths {
        out[count] = UInt8(ascii: ".")
        out[count + 1] = UInt8(ascii: "0") + UInt8(tenths)
        count += 2
      }
      out[count] = UInt8(ascii: " ")
      count += 1
      for byte in units[unit].utf8 {
        out[count] = byte
        count += 1
      }
      return count
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
