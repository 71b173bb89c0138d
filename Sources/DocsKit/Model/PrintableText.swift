/// Text made safe to print on a terminal: control and format characters that could move the
/// cursor, recolor the terminal or reorder what is shown become visible escapes. Names from a
/// remote (any bytes anyone pushed) go through it wherever DocsKit names them in a message,
/// and the shell puts listings and messages through it too, so that a name reads the same
/// everywhere.
///
/// Escaped: C0 controls (except `\n` and `\t` when `allowingNewlinesAndTabs`: document content
/// allows them, names never do), DEL, C1 (U+0080–U+009F), U+2028/U+2029, and the bidi overrides
/// and isolates U+202A–U+202E and U+2066–U+2069. ESC reads `\e`; tab, newline and carriage
/// return read `\t`, `\n`, `\r`; other ASCII controls `\x07`; the rest `\u{202E}`; a byte
/// that is not UTF-8 (from ``escaped(_:)-(Collection<UInt8>)``) `\xFF`. A literal backslash
/// is kept as is.
public enum PrintableText {
  /// `text` with what a terminal would act on escaped.
  public static func escaped(_ text: String, allowingNewlinesAndTabs: Bool = false) -> String {
    var bytes = text
    let mightNeedEscapes = bytes.withUTF8 { utf8 in
      utf8.contains { mightNeedEscape($0, allowingNewlinesAndTabs) }
    }
    if !mightNeedEscapes { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 16)
    for scalar in text.unicodeScalars {
      append(scalar, to: &result, allowingNewlinesAndTabs: allowingNewlinesAndTabs)
    }
    return result
  }

  /// `bytes` (a file name from a tree, say) as printable text: UTF-8 as ``escaped(_:allowingNewlinesAndTabs:)`` gives
  /// it, each byte that is not UTF-8 as `\xFF`.
  public static func escaped(_ bytes: some Collection<UInt8>) -> String {
    let bytes = Array(bytes)
    if let text = String(validating: bytes, as: UTF8.self) { return escaped(text) }
    var result = ""
    var start = 0
    while start < bytes.count {
      let lead = bytes[start]
      let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
      let end = min(bytes.count, start + length)
      if let text = String(validating: bytes[start..<end], as: UTF8.self) {
        result += escaped(text)
        start = end
      } else {
        result += "\\x" + hexDigits(UInt32(lead), minimumCount: 2)
        start += 1
      }
    }
    return result
  }

  private static func append(
    _ scalar: Unicode.Scalar, to result: inout String, allowingNewlinesAndTabs: Bool
  ) {
    switch scalar.value {
    case 0x0A where allowingNewlinesAndTabs, 0x09 where allowingNewlinesAndTabs:
      result.unicodeScalars.append(scalar)
    case 0x1B: result += "\\e"
    case 0x09: result += "\\t"
    case 0x0A: result += "\\n"
    case 0x0D: result += "\\r"
    case 0x00...0x1F, 0x7F: result += "\\x" + hexDigits(scalar.value, minimumCount: 2)
    case 0x80...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
      result += "\\u{" + hexDigits(scalar.value, minimumCount: 4) + "}"
    default: result.unicodeScalars.append(scalar)
    }
  }

  /// Whether a UTF-8 byte is a control byte or the lead byte of a sequence that may need
  /// escaping.
  private static func mightNeedEscape(_ byte: UInt8, _ allowingNewlinesAndTabs: Bool) -> Bool {
    switch byte {
    case 0x0A, 0x09: !allowingNewlinesAndTabs
    // 0xC2 leads C1 controls (C2 80–C2 9F); 0xE2 leads U+2028–U+206F.
    case 0x00...0x1F, 0x7F, 0xC2, 0xE2: true
    default: false
    }
  }

  /// `value` in upper-case hexadecimal, zero-padded to at least `minimumCount` digits.
  private static func hexDigits(_ value: UInt32, minimumCount: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, minimumCount - digits.count)) + digits
  }
}
