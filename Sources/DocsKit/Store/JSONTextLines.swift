#if canImport(Glibc)
  import Glibc
#endif

/// The lines of a content as the store spells it: the body of a JSON string literal (the
/// bytes between its quotes), walked forward without decoding it.
///
/// A line break is the escape `\n`, found by a scan for backslashes only: the bytes
/// between two escapes are never looked at, and an escaped backslash followed by `n`
/// (`\\n`) is no break, because each escape is stepped over whole. The walker also notes
/// whether every escape it passed is one docsh writes (see ``isCanonical``): only then does
/// each character have one spelling, so that finding a needle's spelling in the bytes is
/// finding the needle in the text.
struct JSONTextLines: LineWalker {
  private let base: UnsafePointer<UInt8>?
  private let count: Int
  /// The next byte to walk; always the start of a character or an escape.
  private var position = 0
  /// Where the last `\r` escape walked starts and ends, to drop it when a break follows.
  private var carriageReturn = (start: -1, end: -1)

  private(set) var lineNumber = 1
  private(set) var lineStart = 0
  private(set) var isCanonical = true

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

  mutating func advance(to offset: Int) -> Bool {
    guard let base else { return offset == 0 }
    while position < offset {
      guard let escape = ByteScan.firstOffset(of: 0x5C, in: base, from: position, to: offset)
      else {
        position = offset
        return true
      }
      if escape + 1 < count, base[escape + 1] == UInt8(ascii: "n") {
        position = escape + 2
        lineNumber += 1
        lineStart = position
      } else {
        position = escape + stepOverEscape(at: escape)
      }
    }
    return position == offset
  }

  mutating func finishLine() -> (end: Int, next: Int?) {
    guard let base else { return (0, nil) }
    while position < count {
      guard let escape = ByteScan.firstOffset(of: 0x5C, in: base, from: position, to: count)
      else { break }
      if escape + 1 < count, base[escape + 1] == UInt8(ascii: "n") {
        position = escape
        let end = carriageReturn.end == escape ? carriageReturn.start : escape
        return (end, escape + 2)
      }
      position = escape + stepOverEscape(at: escape)
    }
    position = count
    return (count, nil)
  }

  mutating func startLine(at offset: Int) {
    position = offset
    lineStart = offset
    lineNumber += 1
  }

  func text(of range: Range<Int>) throws(JSONTextError) -> String {
    let bytes = UnsafeRawBufferPointer(
      start: base.map { $0 + range.lowerBound }, count: range.count)
    let hasEscape = bytes.baseAddress.map { memchr($0, 0x5C, bytes.count) != nil } ?? false
    if !hasEscape, let text = JSONText.validatedString(bytes) { return text }
    // Escapes to decode, or bytes to report precisely.
    var decoded: [UInt8] = []
    decoded.reserveCapacity(bytes.count)
    try JSONText.unescape(bytes, into: &decoded, offsetBase: range.lowerBound)
    guard let text = String(validating: decoded, as: UTF8.self) else {
      throw JSONTextError(offset: range.lowerBound, reason: JSONText.invalidUTF8)
    }
    return text
  }

  /// The length of the escape at `offset` (not `\n`), noting a `\r` and any escape docsh
  /// does not write: `\/`, a `\u` escape of anything but a control character without an
  /// escape of its own, upper-case hex digits, or a malformed escape.
  private mutating func stepOverEscape(at offset: Int) -> Int {
    guard let base, offset + 1 < count else {
      isCanonical = false
      return 1
    }
    switch base[offset + 1] {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"),
      UInt8(ascii: "t"):
      return 2
    case UInt8(ascii: "r"):
      carriageReturn = (offset, offset + 2)
      return 2
    case UInt8(ascii: "u"):
      guard offset + 6 <= count else {
        isCanonical = false
        return count - offset
      }
      var value: UInt32 = 0
      for index in (offset + 2)..<(offset + 6) {
        let byte = base[index]
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt32(byte - 0x30)
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt32(byte - 0x57)
        default:
          isCanonical = false
          return 6
        }
      }
      switch value {
      case 0x08, 0x09, 0x0A, 0x0C, 0x0D: isCanonical = false
      case 0..<0x20: break
      default: isCanonical = false
      }
      return 6
    default:
      isCanonical = false
      return 2
    }
  }
}
