#if canImport(Glibc)
  import Glibc
#endif

// The JSON scanner under `StoreReader`: members, elements, numbers, strings, and the bytes
// of its buffer. Split from StoreReader.swift; the members it shares with the format part
// there are internal for that reason, and used by nothing else.

extension StoreReader {
  // MARK: - JSON

  /// Steps to the next member of an object whose `{` was read: its key, with the `:` after
  /// it read too, or `nil` at the closing `}`. `first` tracks whether a `,` is due.
  mutating func nextKey(_ first: inout Bool) throws(StoreReadFailure) -> Key? {
    try skipWhitespace()
    if first {
      first = false
      if try peek() == UInt8(ascii: "}") {
        position += 1
        return nil
      }
    } else {
      switch try next() {
      case UInt8(ascii: ","): try skipWhitespace()
      case UInt8(ascii: "}"): return nil
      case nil: throw failure(.malformed, "the file ends in the middle of the store")
      default: throw failure(.malformed, at: offset - 1, "expected ',' or '}' in an object")
      }
    }
    guard try peek() == UInt8(ascii: "\"") else {
      throw failure(.malformed, "expected a key in quotes")
    }
    let at = offset
    var key = try withStringBody { body, hasEscapes in hasEscapes ? nil : Key(body) }
    if key == nil { key = Key(decoded: try stringAt(at)) }
    try skipWhitespace()
    try expect(UInt8(ascii: ":"), "expected ':' after a key")
    try skipWhitespace()
    return key
  }

  /// Steps to the next element of an array whose `[` was read: `true` when there is one,
  /// `false` at the closing `]`.
  mutating func nextElement(_ first: inout Bool) throws(StoreReadFailure) -> Bool {
    try skipWhitespace()
    if first {
      first = false
      if try peek() == UInt8(ascii: "]") {
        position += 1
        return false
      }
    } else {
      switch try next() {
      case UInt8(ascii: ","): break
      case UInt8(ascii: "]"): return false
      case nil: throw failure(.malformed, "the file ends in the middle of the store")
      default: throw failure(.malformed, at: offset - 1, "expected ',' or ']' in an array")
      }
    }
    try skipWhitespace()
    return true
  }

  /// Skips any JSON value, checking its syntax.
  mutating func skipValue(depth: Int) throws(StoreReadFailure) {
    guard depth < StoreReader.maximumDepth else {
      throw failure(.malformed, "values are nested too deeply")
    }
    switch try peek() {
    case UInt8(ascii: "\"")?:
      _ = try readString()
    case UInt8(ascii: "{")?:
      position += 1
      var first = true
      while try nextKey(&first) != nil { try skipValue(depth: depth + 1) }
    case UInt8(ascii: "[")?:
      position += 1
      var first = true
      while try nextElement(&first) { try skipValue(depth: depth + 1) }
    case UInt8(ascii: "t")?: try expectWord("true")
    case UInt8(ascii: "f")?: try expectWord("false")
    case UInt8(ascii: "n")?: try expectWord("null")
    case let byte? where byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39):
      _ = try readNumber()
    case nil:
      throw failure(.malformed, "the file ends in the middle of the store")
    default:
      throw failure(.malformed, "expected a value")
    }
  }

  /// What a JSON number was, once scanned.
  struct ScannedNumber {
    /// Whether it is digits alone: no minus sign, fraction or exponent.
    var isPlainDigits: Bool
    /// Its value when it is plain digits that fit an `Int`.
    var value: Int?
  }

  /// Reads a JSON number, exactly as RFC 8259 writes it:
  /// `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`. Anything else (`012`, `1.`,
  /// `-`, `1e`) is refused at the number's first byte. The number ends at the first byte
  /// the grammar cannot take; what comes next is for the caller to judge.
  mutating func readNumber() throws(StoreReadFailure) -> ScannedNumber {
    let at = offset
    func invalid(_ why: String) -> StoreReadFailure {
      failure(.malformed, at: at, "invalid number: \(why)")
    }
    var isPlainDigits = true
    if try peek() == UInt8(ascii: "-") {
      position += 1
      isPlainDigits = false
    }
    var value: Int? = 0
    let firstDigit = try peek()
    let integerDigits = try digits { digit in
      let (times, overflowed) = (value ?? 0).multipliedReportingOverflow(by: 10)
      let (sum, overflowedAgain) = times.addingReportingOverflow(digit)
      value = overflowed || overflowedAgain || value == nil ? nil : sum
    }
    guard integerDigits > 0 else { throw invalid("no digit after '-'") }
    if integerDigits > 1, firstDigit == UInt8(ascii: "0") {
      throw invalid("a leading 0 before other digits")
    }
    if try peek() == UInt8(ascii: ".") {
      position += 1
      isPlainDigits = false
      guard try digits() > 0 else { throw invalid("no digit after '.'") }
    }
    if let byte = try peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
      position += 1
      isPlainDigits = false
      if let sign = try peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
        position += 1
      }
      guard try digits() > 0 else { throw invalid("no digit in the exponent") }
    }
    return ScannedNumber(isPlainDigits: isPlainDigits, value: isPlainDigits ? value : nil)
  }

  /// Steps over the digits at the current byte, handing each to `visit`; their count.
  mutating func digits(
    _ visit: (Int) -> Void = { _ in }
  ) throws(StoreReadFailure) -> Int {
    var count = 0
    while let byte = try peek(), byte >= 0x30 && byte <= 0x39 {
      visit(Int(byte - 0x30))
      position += 1
      count += 1
    }
    return count
  }

  /// Reads a whole number of 0 or more written as digits alone. Other JSON numbers are
  /// refused even when their value is whole (`1.0`, `1e2`, `-0`): docsh never writes them,
  /// and the format keeps one spelling for each value.
  mutating func readInteger(_ key: String) throws(StoreReadFailure) -> Int {
    let at = offset
    guard let first = try peek(), first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39)
    else {
      throw failure(.malformed, at: at, "\"\(key)\" is not a whole number of 0 or more")
    }
    let number = try readNumber()
    guard number.isPlainDigits else {
      throw failure(
        .malformed, at: at, "\"\(key)\" is not a whole number of 0 or more in plain digits")
    }
    guard let value = number.value else {
      throw failure(.malformed, at: at, "\"\(key)\" is too large")
    }
    return value
  }

  mutating func expectWord(_ word: StaticString) throws(StoreReadFailure) {
    for index in 0..<word.utf8CodeUnitCount {
      guard try next() == word.utf8Start[index] else {
        throw failure(.malformed, at: offset - 1, "expected a value")
      }
    }
  }

  /// Reads a string and decodes it.
  mutating func readString() throws(StoreReadFailure) -> String {
    let at = offset
    let plain = try withStringBody { body, hasEscapes in
      hasEscapes ? nil : JSONText.validatedString(body)
    }
    if let plain { return plain }
    return try stringAt(at)
  }

  /// Decodes the string literal that was just skipped, which started at `literalOffset`:
  /// escapes, validation and all.
  mutating func stringAt(_ literalOffset: Int) throws(StoreReadFailure) -> String {
    let length = offset - literalOffset
    let literal = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
    defer { literal.deallocate() }
    if literalOffset >= bufferStart {
      literal.copyMemory(
        from: UnsafeRawBufferPointer(rebasing: buffer[(literalOffset - bufferStart)..<position]))
    } else {
      try readFully(into: literal, at: literalOffset)
    }
    do {
      return try JSONText.decodeLiteral(UnsafeRawBufferPointer(literal))
    } catch {
      let reason =
        error.reason == JSONText.invalidUTF8 ? "a string is not valid UTF-8" : error.reason
      throw failure(.malformed, at: literalOffset + error.offset, reason)
    }
  }

  /// Skips a string literal and hands its body (between the quotes) to `body`, with whether
  /// it holds a backslash; straight from the buffer when the whole literal is still there.
  mutating func withStringBody<Result>(
    _ body: (UnsafeRawBufferPointer, _ hasEscapes: Bool) -> Result
  ) throws(StoreReadFailure) -> Result {
    let location = try skipString()
    let literalStart = location.offset - bufferStart
    let bodyRange: Range<Int>
    let storage: UnsafeMutableRawBufferPointer?
    if literalStart >= 0 {
      bodyRange = (literalStart + 1)..<(literalStart + location.length - 1)
      storage = nil
    } else {
      let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: location.length, alignment: 1)
      try readFully(into: copy, at: location.offset)
      bodyRange = 1..<(location.length - 1)
      storage = copy
    }
    defer { storage?.deallocate() }
    let bytes = UnsafeRawBufferPointer(rebasing: (storage ?? buffer)[bodyRange])
    let hasEscapes = bytes.baseAddress.map { memchr($0, 0x5C, bytes.count) != nil } ?? false
    return body(bytes, hasEscapes)
  }

  /// Skips a string literal, returning where it lies (quotes included). Finding its end costs
  /// a `memchr` for the next quote plus a count of the backslashes before it.
  mutating func skipString() throws(StoreReadFailure) -> StoredLocation {
    let start = offset
    guard try next() == UInt8(ascii: "\"") else {
      throw failure(.malformed, at: start, "expected a string")
    }
    // Backslashes that ended the previous buffer, when the run reaches its start.
    var carriedBackslashes = 0
    while true {
      if position == filled {
        guard try refill() else {
          throw failure(.malformed, "the file ends inside a string")
        }
      }
      let base = buffer.baseAddress.unsafelyUnwrapped
      let searchStart = position
      guard let found = memchr(base + position, Int32(UInt8(ascii: "\"")), filled - position) else {
        var run = 0
        var index = filled - 1
        while index >= searchStart, buffer[index] == UInt8(ascii: "\\") {
          run += 1
          index -= 1
        }
        carriedBackslashes = index < searchStart ? carriedBackslashes + run : run
        position = filled
        continue
      }
      let quote = base.distance(to: found)
      var run = 0
      var index = quote - 1
      while index >= searchStart, buffer[index] == UInt8(ascii: "\\") {
        run += 1
        index -= 1
      }
      if index < searchStart { run += carriedBackslashes }
      position = quote + 1
      carriedBackslashes = 0
      if run % 2 == 0 {
        return StoredLocation(offset: start, length: offset - start, in: locatedIn)
      }
    }
  }

  // MARK: - Bytes

  @inline(__always)
  mutating func skipWhitespace() throws(StoreReadFailure) {
    while true {
      if position == filled {
        guard try refill() else { return }
      }
      switch buffer[position] {
      case 0x20, 0x0A, 0x0D, 0x09: position += 1
      default: return
      }
    }
  }

  @inline(__always)
  mutating func peek() throws(StoreReadFailure) -> UInt8? {
    if position == filled {
      guard try refill() else { return nil }
    }
    return buffer[position]
  }

  @inline(__always)
  mutating func next() throws(StoreReadFailure) -> UInt8? {
    guard let byte = try peek() else { return nil }
    position += 1
    return byte
  }

  mutating func expect(_ byte: UInt8, _ reason: String) throws(StoreReadFailure) {
    let at = offset
    guard let found = try next() else {
      throw failure(.malformed, at: at, "the file ends in the middle of the store")
    }
    guard found == byte else { throw failure(.malformed, at: at, reason) }
  }

  /// Reads the next part of the file; `false` at its end.
  mutating func refill() throws(StoreReadFailure) -> Bool {
    bufferStart += filled
    position = 0
    filled = 0
    let count: Int
    do {
      count =
        try positioned
        ? fileSystem.read(file, into: buffer, at: bufferStart) : fileSystem.read(file, into: buffer)
    } catch {
      throw StoreReadFailure(kind: .system(error), offset: bufferStart, reason: "")
    }
    filled = count
    if count > 0, let bytesRead { bytesRead(bufferStart + count) }
    return count > 0
  }

  func readFully(
    into target: UnsafeMutableRawBufferPointer, at fileOffset: Int
  ) throws(StoreReadFailure) {
    let count: Int
    do {
      count = try fileSystem.readFully(file, into: target, at: fileOffset)
    } catch {
      throw StoreReadFailure(kind: .system(error), offset: fileOffset, reason: "")
    }
    guard count == target.count else {
      throw StoreReadFailure(
        kind: .malformed, offset: fileOffset, reason: "the file ends inside a string")
    }
  }

  func failure(_ kind: StoreReadFailure.Kind, _ reason: String) -> StoreReadFailure {
    StoreReadFailure(kind: kind, offset: offset, reason: reason)
  }

  func failure(
    _ kind: StoreReadFailure.Kind, at offset: Int, _ reason: String
  ) -> StoreReadFailure {
    StoreReadFailure(kind: kind, offset: offset, reason: reason)
  }
}
