#if canImport(Glibc)
  import Glibc
#endif

/// The lines of a content as the store spells it: the body of a JSON string literal (the
/// bytes between its quotes), walked forward without decoding it.
///
/// A line break is the escape `\n`, found by a scan for a backslash before `n`, sixteen
/// bytes at a time: the other escapes are never looked at. That backslash starts an escape
/// (rather than ending an escaped backslash, as in `\\n`) when the run of backslashes it
/// ends is odd, for a run always begins where a character or an escape does. A search of
/// the bytes for a needle's spelling finds the needle only where every character has one
/// spelling, which ``spellsEachCharacterOneWay(_:)`` checks first; then the only escapes
/// are `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t` and `\u00XX` for other control characters.
struct JSONTextLines: LineWalker {
  private let base: UnsafePointer<UInt8>?
  private let count: Int
  /// Where the walk is: never inside an escape.
  private var position = 0

  private(set) var lineNumber = 1
  private(set) var lineStart = 0

  init(_ body: UnsafeRawBufferPointer) {
    base = body.baseAddress?.assumingMemoryBound(to: UInt8.self)
    count = body.count
  }

  /// `text` as docsh spells it inside a literal: quotes, backslashes and control
  /// characters escaped, everything else as raw UTF-8.
  static func spelling(of text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    JSONText.appendBody(text, to: &bytes)
    return bytes
  }

  /// Whether the body holds no escape docsh does not write (see
  /// ``JSONText/hasForeignEscape(_:)``).
  static func spellsEachCharacterOneWay(_ bytes: UnsafeRawBufferPointer) -> Bool {
    !JSONText.hasForeignEscape(bytes)
  }

  mutating func advance(to offset: Int) -> Bool {
    guard base != nil, offset > position else { return offset == position }
    var from = position
    while let lineBreak = nextBreak(from: from, before: offset) {
      lineNumber += 1
      lineStart = lineBreak + 2
      from = lineStart
    }
    // Inside an escape, the walk stops at its start, so that a break it is gets counted.
    if let escape = escape(around: offset) {
      position = escape
      return false
    }
    position = offset
    return true
  }

  func startsCharacter(at offset: Int) -> Bool { escape(around: offset) == nil }

  /// Where the escape that `offset` is inside starts: right after its backslash, or in the
  /// hex digits of a `\u`. `nil` when `offset` is inside none.
  private func escape(around offset: Int) -> Int? {
    guard let base else { return nil }
    for back in 1...5 where offset - back >= 0 {
      let index = offset - back
      guard index + 1 < count, base[index] == 0x5C, startsEscape(at: index) else { continue }
      return back == 1 || base[index + 1] == UInt8(ascii: "u") ? index : nil
    }
    return nil
  }

  mutating func finishLine() -> (end: Int, next: Int?) {
    guard let base, let lineBreak = nextBreak(from: position, before: count) else {
      position = count
      return (count, nil)
    }
    position = lineBreak
    let dropsReturn =
      lineBreak - 2 >= lineStart && base[lineBreak - 2] == 0x5C
      && base[lineBreak - 1] == UInt8(ascii: "r") && startsEscape(at: lineBreak - 2)
    return (dropsReturn ? lineBreak - 2 : lineBreak, lineBreak + 2)
  }

  mutating func startLine(at offset: Int) {
    position = offset
    lineStart = offset
    lineNumber += 1
  }

  /// Where the next `\n` escape at or after `from` starts, if it ends by `end`.
  private func nextBreak(from: Int, before end: Int) -> Int? {
    guard let base else { return nil }
    let raw = UnsafeRawPointer(base)
    let backslash = SIMD16<UInt8>(repeating: 0x5C)
    let letterN = SIMD16<UInt8>(repeating: UInt8(ascii: "n"))
    var offset = from
    while offset + 17 <= end {
      let here = raw.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
      let next = raw.loadUnaligned(fromByteOffset: offset + 1, as: SIMD16<UInt8>.self)
      var lanes = ByteScan.lanes((here .== backslash) .& (next .== letterN))
      while let lane = ByteScan.firstLane(lanes) {
        if startsEscape(at: offset + lane) { return offset + lane }
        lanes = ByteScan.droppingFirstLane(lanes)
      }
      offset += 16
    }
    while offset + 1 < end {
      if base[offset] == 0x5C, base[offset + 1] == UInt8(ascii: "n"), startsEscape(at: offset) {
        return offset
      }
      offset += 1
    }
    return nil
  }

  /// Whether the backslash at `offset` starts an escape: the run of backslashes it ends is
  /// odd.
  private func startsEscape(at offset: Int) -> Bool {
    guard let base else { return false }
    var index = offset - 1
    while index >= 0, base[index] == 0x5C { index -= 1 }
    return (offset - index) % 2 == 1
  }

  func text(of range: Range<Int>) throws(JSONTextError) -> String {
    let bytes = UnsafeRawBufferPointer(
      start: base.map { $0 + range.lowerBound }, count: range.count)
    if !JSONText.holdsSpecialByte(bytes, orBackslash: true) {
      guard let text = String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) else {
        throw JSONTextError(offset: range.lowerBound, reason: JSONText.invalidUTF8)
      }
      return text
    }
    // Escapes to decode, or bytes to report precisely.
    return try JSONText.unescapedString(bytes, offsetBase: range.lowerBound)
  }

  func appendText(of range: Range<Int>, to text: inout [UInt8]) throws(JSONTextError) {
    let bytes = UnsafeRawBufferPointer(
      start: base.map { $0 + range.lowerBound }, count: range.count)
    // ASCII without escapes stands for itself; anything else is decoded (and checked) as
    // `text(of:)` does.
    guard !JSONText.holdsSpecialByte(bytes, orBackslash: true), JSONText.isASCII(bytes) else {
      return text.append(contentsOf: try self.text(of: range).utf8)
    }
    text.append(contentsOf: bytes)
  }
}
