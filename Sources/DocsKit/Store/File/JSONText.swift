#if canImport(Glibc)
  import Glibc
#endif

// JSON string literals, encoded and decoded byte by byte, without Foundation.

/// Why a JSON string literal could not be decoded, and where (an offset into its bytes).
struct JSONTextError: Error, Equatable {
  var offset: Int
  var reason: String
}

enum JSONText {
  /// The reason given for bytes that are not UTF-8.
  static let invalidUTF8 = "the text is not valid UTF-8"

  /// Appends `text` as a JSON string literal: quotes, backslashes and control characters
  /// escaped, everything else as raw UTF-8.
  static func appendLiteral(_ text: String, to output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    appendBody(text, to: &output)
    output.append(UInt8(ascii: "\""))
  }

  /// Appends the body of `text`'s literal, without the quotes: the one spelling docsh gives
  /// each character.
  static func appendBody(_ text: String, to output: inout [UInt8]) {
    var text = text
    text.withUTF8 { bytes in
      var runStart = 0
      for index in 0..<bytes.count {
        let byte = bytes[index]
        guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
          continue
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
        runStart = index + 1
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x09: output.append(UInt8(ascii: "t"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        default:
          let hex: StaticString = "0123456789abcdef"
          hex.withUTF8Buffer { digits in
            output.append(contentsOf: [
              UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
              digits[Int(byte >> 4)], digits[Int(byte & 0xF)],
            ])
          }
        }
      }
      output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
    }
  }

  /// The string of a literal's body that holds no backslash, or `nil` when it holds a raw
  /// control character or bytes that are not UTF-8.
  static func validatedString(_ body: UnsafeRawBufferPointer) -> String? {
    guard !hasRawControlOrQuote(body) else { return nil }
    return String(validating: body.bindMemory(to: UInt8.self), as: UTF8.self)
  }

  /// Whether `bytes` hold a byte a literal's body may not hold unescaped: a control
  /// character or a quote. Sixteen bytes at a time.
  static func hasRawControlOrQuote(_ bytes: UnsafeRawBufferPointer) -> Bool {
    holdsSpecialByte(bytes, orBackslash: false)
  }

  /// Whether every byte of `bytes` is ASCII (below 0x80), sixteen at a time.
  static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let high = SIMD16<UInt8>(repeating: 0x80)
    var offset = 0
    var any = SIMD16<UInt8>(repeating: 0)
    while offset + 16 <= bytes.count {
      any |= base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
      offset += 16
    }
    if ByteScan.firstLane(ByteScan.lanes(any .>= high)) != nil { return false }
    while offset < bytes.count {
      if bytes[offset] >= 0x80 { return false }
      offset += 1
    }
    return true
  }

  /// Whether `bytes` hold a control character, a quote or, with `orBackslash`, a backslash:
  /// anything but bytes that stand for themselves in a literal's body.
  static func holdsSpecialByte(_ bytes: UnsafeRawBufferPointer, orBackslash: Bool) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    let space = SIMD16<UInt8>(repeating: 0x20)
    let quote = SIMD16<UInt8>(repeating: UInt8(ascii: "\""))
    let backslash = SIMD16<UInt8>(repeating: orBackslash ? 0x5C : UInt8(ascii: "\""))
    var offset = 0
    while offset + 16 <= bytes.count {
      let chunk = base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
      let special = (chunk .< space) .| (chunk .== quote) .| (chunk .== backslash)
      if ByteScan.firstLane(ByteScan.lanes(special)) != nil { return true }
      offset += 16
    }
    while offset < bytes.count {
      let byte = bytes[offset]
      if byte < 0x20 || byte == UInt8(ascii: "\"") || (orBackslash && byte == 0x5C) { return true }
      offset += 1
    }
    return false
  }

  /// Whether a literal's body holds an escape docsh never writes: `\/`, or a `\u` escape of
  /// anything but a control character without a short escape, in lower-case hex (or a
  /// malformed one). Without one, each character has one spelling in the body. Looks for a
  /// backslash before `u` or `/` sixteen bytes at a time; only those are looked at closer.
  static func hasForeignEscape(_ body: UnsafeRawBufferPointer) -> Bool {
    guard let base = body.baseAddress, body.count >= 2 else { return false }
    let backslash = SIMD16<UInt8>(repeating: 0x5C)
    let u = SIMD16<UInt8>(repeating: UInt8(ascii: "u"))
    let slash = SIMD16<UInt8>(repeating: UInt8(ascii: "/"))
    var offset = 0
    while offset + 17 <= body.count {
      let here = base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
      let next = base.loadUnaligned(fromByteOffset: offset + 1, as: SIMD16<UInt8>.self)
      var lanes = ByteScan.lanes((here .== backslash) .& ((next .== u) .| (next .== slash)))
      while let lane = ByteScan.firstLane(lanes) {
        if isForeignEscape(body, at: offset + lane) { return true }
        lanes = ByteScan.droppingFirstLane(lanes)
      }
      offset += 16
    }
    while offset + 1 < body.count {
      if body[offset] == 0x5C,
        body[offset + 1] == UInt8(ascii: "u") || body[offset + 1] == UInt8(ascii: "/"),
        isForeignEscape(body, at: offset)
      {
        return true
      }
      offset += 1
    }
    return false
  }

  /// Whether the backslash at `offset`, before `u` or `/`, starts an escape docsh never
  /// writes. It starts an escape when the run of backslashes it ends is odd: a run always
  /// begins where a character or an escape does, and pairs up from there.
  private static func isForeignEscape(_ body: UnsafeRawBufferPointer, at offset: Int) -> Bool {
    var run = 0
    var index = offset
    while index >= 0, body[index] == 0x5C {
      run += 1
      index -= 1
    }
    guard run % 2 == 1 else { return false }  // the second half of `\\`
    guard body[offset + 1] == UInt8(ascii: "u") else { return true }  // `\/`
    guard offset + 6 <= body.count else { return true }
    var value: UInt32 = 0
    for index in (offset + 2)..<(offset + 6) {
      let byte = body[index]
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt32(byte - 0x30)
      case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt32(byte - 0x57)
      default: return true
      }
    }
    switch value {
    case 0x08, 0x09, 0x0A, 0x0C, 0x0D: return true
    case 0..<0x20: return false
    default: return true
    }
  }

  /// Decodes a whole JSON string literal, quotes included, into its text.
  /// - Throws: ``JSONTextError`` for a bad escape, a raw control character, a missing
  ///   quote or bytes that are not UTF-8.
  static func decodeLiteral(_ literal: UnsafeRawBufferPointer) throws(JSONTextError) -> String {
    let count = literal.count
    guard count >= 2, literal[0] == UInt8(ascii: "\""), literal[count - 1] == UInt8(ascii: "\"")
    else { throw JSONTextError(offset: 0, reason: "expected a string") }
    let body = UnsafeRawBufferPointer(rebasing: literal[1..<(count - 1)])
    // Fast path: no escapes and no control characters, just validate the UTF-8.
    let hasEscape = body.baseAddress.map { memchr($0, 0x5C, body.count) != nil } ?? false
    if !hasEscape && !hasRawControlOrQuote(body) {
      guard let text = validatedString(body) else {
        throw JSONTextError(offset: 1 + firstInvalidUTF8Offset(body), reason: invalidUTF8)
      }
      return text
    }
    return try unescapedString(body, offsetBase: 1)
  }

  /// The text of a literal's body that has escapes or bytes to report: decoded into room
  /// of its own, then checked as UTF-8.
  /// - Throws: ``JSONTextError`` for a bad escape, a raw control character or quote, or
  ///   bytes that are not UTF-8 (at `offsetBase` plus the offset in `body`).
  static func unescapedString(
    _ body: UnsafeRawBufferPointer, offsetBase: Int
  ) throws(JSONTextError) -> String {
    // Decoding never lengthens: an escape is at least as long as what it stands for.
    let room = UnsafeMutableRawBufferPointer.allocate(byteCount: max(body.count, 1), alignment: 1)
    defer { room.deallocate() }
    let count = try unescape(body, into: room, offsetBase: offsetBase)
    guard
      let text = String(
        validating: UnsafeRawBufferPointer(rebasing: room[..<count]).bindMemory(to: UInt8.self),
        as: UTF8.self)
    else { throw JSONTextError(offset: offsetBase, reason: invalidUTF8) }
    return text
  }

  /// Writes the unescaped bytes of a string literal's body (between the quotes) to
  /// `output`, which holds at least `body.count` bytes; returns how many. Runs between
  /// escapes are found sixteen bytes at a time and copied whole.
  static func unescape(
    _ body: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, offsetBase: Int
  ) throws(JSONTextError) -> Int {
    guard let source = body.baseAddress, let target = output.baseAddress else { return 0 }
    var index = 0
    var written = 0
    func put(_ byte: UInt8) {
      output[written] = byte
      written += 1
    }
    while index < body.count {
      let special = firstSpecialByte(body, from: index) ?? body.count
      if special > index {
        (target + written).copyMemory(from: source + index, byteCount: special - index)
        written += special - index
        index = special
        continue
      }
      let byte = body[index]
      if byte < 0x20 {
        throw JSONTextError(
          offset: offsetBase + index, reason: "unescaped control character in a string")
      }
      if byte == UInt8(ascii: "\"") {
        throw JSONTextError(offset: offsetBase + index, reason: "unescaped quote in a string")
      }
      guard index + 1 < body.count else {
        throw JSONTextError(offset: offsetBase + index, reason: "incomplete escape")
      }
      let escaped = body[index + 1]
      index += 2
      switch escaped {
      case UInt8(ascii: "\""): put(UInt8(ascii: "\""))
      case UInt8(ascii: "\\"): put(UInt8(ascii: "\\"))
      case UInt8(ascii: "/"): put(UInt8(ascii: "/"))
      case UInt8(ascii: "b"): put(0x08)
      case UInt8(ascii: "f"): put(0x0C)
      case UInt8(ascii: "n"): put(0x0A)
      case UInt8(ascii: "r"): put(0x0D)
      case UInt8(ascii: "t"): put(0x09)
      case UInt8(ascii: "u"):
        let unicode = try unicodeEscape(body, digitsAt: &index, offsetBase: offsetBase)
        for unit in UTF8.encode(unicode) ?? UTF8.EncodedScalar() { put(unit) }
      default:
        throw JSONTextError(
          offset: offsetBase + index - 1, reason: "invalid escape \\\(Unicode.Scalar(escaped))")
      }
    }
    return written
  }

  /// The scalar of the `\u` escape whose four hex digits start at `index`, with the low
  /// half that follows a high surrogate; moves `index` past what it read.
  /// - Throws: ``JSONTextError`` for bad or missing digits, an unpaired surrogate or a value
  ///   that is no scalar (at `offsetBase` plus the offset in `body`).
  private static func unicodeEscape(
    _ body: UnsafeRawBufferPointer, digitsAt index: inout Int, offsetBase: Int
  ) throws(JSONTextError) -> Unicode.Scalar {
    var scalar = try hexQuad(body, at: index, offsetBase: offsetBase)
    index += 4
    if (0xD800...0xDBFF).contains(scalar) {
      guard index + 6 <= body.count, body[index] == UInt8(ascii: "\\"),
        body[index + 1] == UInt8(ascii: "u")
      else {
        throw JSONTextError(
          offset: offsetBase + index, reason: "unpaired surrogate in \\u escape")
      }
      let low = try hexQuad(body, at: index + 2, offsetBase: offsetBase)
      guard (0xDC00...0xDFFF).contains(low) else {
        throw JSONTextError(
          offset: offsetBase + index, reason: "unpaired surrogate in \\u escape")
      }
      scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      index += 6
    } else if (0xDC00...0xDFFF).contains(scalar) {
      throw JSONTextError(
        offset: offsetBase + index - 6, reason: "unpaired surrogate in \\u escape")
    }
    guard let unicode = Unicode.Scalar(scalar) else {
      throw JSONTextError(offset: offsetBase + index, reason: "invalid \\u escape")
    }
    return unicode
  }

  /// The value of the four hex digits at `start` of a `\u` escape.
  /// - Throws: ``JSONTextError`` when there are fewer than four, or one is no hex digit.
  private static func hexQuad(
    _ body: UnsafeRawBufferPointer, at start: Int, offsetBase: Int
  ) throws(JSONTextError) -> UInt32 {
    guard start + 4 <= body.count else {
      throw JSONTextError(offset: offsetBase + start, reason: "incomplete \\u escape")
    }
    var value: UInt32 = 0
    for position in start..<(start + 4) {
      let byte = body[position]
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
      default:
        throw JSONTextError(offset: offsetBase + position, reason: "bad hex digit in \\u escape")
      }
      value = value << 4 | digit
    }
    return value
  }

  /// The offset of the first backslash, control character or quote in `bytes` at or after
  /// `from`, sixteen bytes at a time.
  private static func firstSpecialByte(_ bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
    guard let base = bytes.baseAddress else { return nil }
    let space = SIMD16<UInt8>(repeating: 0x20)
    let quote = SIMD16<UInt8>(repeating: UInt8(ascii: "\""))
    let backslash = SIMD16<UInt8>(repeating: 0x5C)
    var offset = from
    while offset + 16 <= bytes.count {
      let chunk = base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
      let special = (chunk .< space) .| (chunk .== quote) .| (chunk .== backslash)
      if let lane = ByteScan.firstLane(ByteScan.lanes(special)) { return offset + lane }
      offset += 16
    }
    while offset < bytes.count {
      let byte = bytes[offset]
      if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == 0x5C { return offset }
      offset += 1
    }
    return nil
  }

  private static func firstInvalidUTF8Offset(_ bytes: UnsafeRawBufferPointer) -> Int {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    var offset = 0
    while true {
      switch decoder.decode(&iterator) {
      case .scalarValue(let scalar): offset += UTF8.width(scalar)
      case .emptyInput, .error: return offset
      }
    }
  }
}
