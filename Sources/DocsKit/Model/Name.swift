/// A validated name of a category or document.
///
/// A name is trimmed of surrounding white space and newlines, is not empty, holds at most
/// 255 UTF-8 bytes, contains no `/` and no control characters, and is neither `.` nor `..`.
/// It is stored and shown as typed; ``key`` is what uniqueness compares: the name folded
/// to lower case, compared by Swift's canonical string equivalence, so "Café" typed as NFC
/// or NFD is one name and "work" clashes with "Work".
public struct Name: Hashable, Sendable, CustomStringConvertible {
  /// The most UTF-8 bytes a name may hold.
  public static let maximumByteCount = 255

  /// The name as typed (after trimming).
  public let text: String

  /// The case-folded form that uniqueness compares and listings sort by, made once.
  public let key: NameKey

  /// Validates and trims `raw`.
  /// - Throws: ``NameError`` saying what is wrong with it.
  public init(_ raw: String) throws(NameError) {
    let trimmed = Name.trimmed(raw)
    guard !trimmed.isEmpty else { throw .empty }
    guard trimmed.utf8.count <= Name.maximumByteCount else {
      throw .tooLong(trimmed, byteCount: trimmed.utf8.count)
    }
    guard trimmed.utf8.count > 2 || (trimmed != "." && trimmed != "..") else {
      throw .reserved(trimmed)
    }
    // One pass over the bytes answers the slash, the plain ASCII and the capitals the key
    // needs: names are read by the thousand from an index (`ls` of a large category).
    var bytes = trimmed
    let (hasSlash, isPlainASCII, hasCapitals) = bytes.withUTF8 { utf8 in
      var hasSlash = false
      var isPlainASCII = true
      var hasCapitals = false
      for byte in utf8 {
        if byte == UInt8(ascii: "/") { hasSlash = true }
        if byte < 0x20 || byte >= 0x7F { isPlainASCII = false }
        if byte >= 0x41 && byte <= 0x5A { hasCapitals = true }
      }
      return (hasSlash, isPlainASCII, hasCapitals)
    }
    if hasSlash { throw .containsSlash(trimmed) }
    if !isPlainASCII {
      for scalar in trimmed.unicodeScalars where Name.isForbidden(scalar) {
        throw .containsControlCharacter(trimmed, scalar.value)
      }
    }
    text = trimmed
    key = isPlainASCII ? NameKey(ascii: trimmed, hasCapitals: hasCapitals) : NameKey(trimmed)
  }

  /// Makes a name without validating it: for names read from a store that was validated.
  init(unchecked text: String) {
    self.text = text
    key = NameKey(text)
  }

  public var description: String { text }

  /// Two names are equal when they are spelled the same (use ``key`` for clashes).
  public static func == (lhs: Name, rhs: Name) -> Bool { lhs.text == rhs.text }
  public func hash(into hasher: inout Hasher) { hasher.combine(text) }

  /// Control characters (C0, DEL, C1), line and paragraph separators, and the bidirectional
  /// overrides and isolates that could make a name display as something else.
  static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
    default: return false
    }
  }

  private static func trimmed(_ raw: String) -> String {
    // ASCII ends need no Unicode properties: only a leading or trailing space, tab or
    // newline (or a non-ASCII character) sends the name down the general path.
    if let first = raw.utf8.first, let last = raw.utf8.last,
      first > 0x20, first < 0x80, last > 0x20, last < 0x80
    {
      return raw
    }
    let scalars = raw.unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    guard let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    return String(scalars[first...last])
  }
}

/// What uniqueness of names compares: the name in lower case. Equality and hashing of
/// `String` follow canonical equivalence, so NFC and NFD spellings are one key.
public struct NameKey: Hashable, Sendable {
  let folded: String

  /// The key of a name as typed.
  public init(_ text: String) {
    // Most names are ASCII without capitals: they are their own key, no lowercasing needed.
    var isASCII = true
    var hasCapitals = false
    for byte in text.utf8 {
      if byte >= 0x80 { isASCII = false }
      if byte >= 0x41 && byte <= 0x5A { hasCapitals = true }
    }
    if isASCII {
      folded = hasCapitals ? NameKey.asciiLowercased(text) : text
    } else {
      folded = text.lowercased()
    }
  }

  /// The key of `text`, known to be ASCII, with capitals or not.
  init(ascii text: String, hasCapitals: Bool) {
    folded = hasCapitals ? NameKey.asciiLowercased(text) : text
  }
}

extension NameKey {
  /// Whether no other spelling is equal to this key: ASCII without `;` or `` ` ``, which
  /// U+037E and U+1FEF are canonically equal to (no other non-ASCII text is equal to ASCII
  /// once lowercased). Such a key is found by comparing bytes.
  var isSpelledOneWay: Bool {
    folded.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: "`") }
  }

  /// Whether the key contains `needle` (a folded key), as `String.contains` finds it (an
  /// empty needle in none): by bytes when both are ASCII (where the two agree), in a few
  /// instructions a byte rather than the thousands a call of `String.contains` costs.
  func contains(_ needle: String) -> Bool {
    guard !needle.isEmpty else { return false }
    var key = folded
    var needle = needle
    let found = key.withUTF8 { keyBytes in
      needle.withUTF8 { needleBytes -> Bool? in
        guard keyBytes.allSatisfy({ $0 < 0x80 }), needleBytes.allSatisfy({ $0 < 0x80 }) else {
          return nil
        }
        return ByteScan.contains(
          UnsafeRawBufferPointer(needleBytes), in: UnsafeRawBufferPointer(keyBytes))
      }
    }
    return found ?? folded.contains(needle)
  }

  /// `text`, all ASCII, with A–Z turned to a–z, without Unicode case mapping.
  static func asciiLowercased(_ text: String) -> String {
    var text = text
    return text.withUTF8 { bytes in
      String(unsafeUninitializedCapacity: bytes.count) { output in
        for index in 0..<bytes.count {
          let byte = bytes[index]
          output[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
        }
        return bytes.count
      }
    }
  }
}

/// Why a name was refused.
public enum NameError: Error, Equatable, Sendable {
  case empty
  case tooLong(String, byteCount: Int)
  case reserved(String)
  case containsSlash(String)
  case containsControlCharacter(String, UInt32)
}

extension NameError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .empty:
      return "a name cannot be empty"
    case .tooLong(_, let byteCount):
      return
        "a name may hold at most \(Name.maximumByteCount) bytes of UTF-8, this one has \(byteCount)"
    case .reserved(let name):
      return "\"\(name)\" is reserved and cannot be a name"
    case .containsSlash(let name):
      return "a name cannot contain \"/\": \"\(name.count <= 80 ? name : name.prefix(79) + "…")\""
    case .containsControlCharacter(_, let value):
      return "a name cannot contain the control character \(codePoint(value))"
    }
  }
}

/// `U+0009`: a code point as Unicode writes it, at least four hex digits.
func codePoint(_ value: UInt32) -> String {
  let hex = String(value, radix: 16, uppercase: true)
  return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
}

extension Character {
  /// How the errors about names and tags show a character they refuse: `a space`, `U+0009`
  /// for another invisible one (white space, control), else the character in quotes.
  var shownInErrors: String {
    guard let scalar = unicodeScalars.first else { return "?" }
    if scalar == " " { return "a space" }
    if scalar.properties.isWhitespace || scalar.value < 0x20 || Name.isForbidden(scalar) {
      return codePoint(scalar.value)
    }
    return "\"" + String(self) + "\""
  }
}
