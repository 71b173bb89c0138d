// age's ASCII armor (c2sp.org/age, "ASCII armor"): RFC 7468's strict PEM with the label
// "AGE ENCRYPTED FILE", read strictly.
//
// Invariants of armor this file accepts: whitespace (space, tab, CR, LF) only before the
// BEGIN line and after the END line; the BEGIN and END lines exactly as written; between
// them lines of padded, canonical standard base64, each ending in LF or CRLF, every line but
// the last exactly 64 columns and the last 1 to 64; no headers, no blank line, no space in
// a line, no checksum line. Nothing else is tolerated: armor is malleable otherwise.

enum AgeArmor {
  static let beginLine = Array("-----BEGIN AGE ENCRYPTED FILE-----".utf8)
  static let endLine = Array("-----END AGE ENCRYPTED FILE-----".utf8)
  private static let columns = 64

  private static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
  }

  /// True when `bytes` starts, after whitespace, with the BEGIN line.
  static func isArmored(_ bytes: [UInt8]) -> Bool {
    guard let start = bytes.firstIndex(where: { !isSpace($0) }) else { return false }
    return bytes[start...].starts(with: beginLine)
  }

  /// The binary age file inside the armor.
  /// - Throws: `AgeError.malformed` for any broken rule.
  static func decode(_ bytes: [UInt8]) throws(AgeError) -> [UInt8] {
    guard let first = bytes.firstIndex(where: { !isSpace($0) }),
      let last = bytes.lastIndex(where: { !isSpace($0) })
    else { throw .malformed("ASCII armor: nothing but whitespace") }
    var lines = bytes[first...last].split(
      separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false
    ).map { $0.last == 0x0D ? $0.dropLast() : $0 }
    guard lines.count >= 2, lines.first?.elementsEqual(beginLine) == true else {
      throw .malformed(
        "ASCII armor: the first line is not \(String(decoding: beginLine, as: UTF8.self))")
    }
    guard lines.last?.elementsEqual(endLine) == true else {
      throw .malformed(
        "ASCII armor: the last line is not \(String(decoding: endLine, as: UTF8.self))")
    }
    lines = Array(lines.dropFirst().dropLast())
    var text: [UInt8] = []
    text.reserveCapacity(lines.count * columns)
    for (index, line) in lines.enumerated() {
      let isLast = index == lines.count - 1
      guard line.count == columns || (isLast && !line.isEmpty && line.count < columns) else {
        throw .malformed("ASCII armor: a line is not 64 columns (the last: 1 to 64)")
      }
      text += line
    }
    guard text.count % 4 == 0 else { throw .malformed("ASCII armor: the base64 is not padded") }
    let padding = text.reversed().prefix { $0 == UInt8(ascii: "=") }.count
    guard padding <= 2, let decoded = AgeBase64.decode(text.dropLast(padding)) else {
      throw .malformed("ASCII armor: the base64 is not canonical")
    }
    return decoded
  }
}
