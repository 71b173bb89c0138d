/// Case folding for searches that ignore case: two texts match when their folded forms are
/// equal scalar by scalar.
///
/// A scalar folds to the lowercase of its uppercase, each mapping taken only where Unicode
/// gives one scalar for it (the simple mappings). That is Unicode's simple case folding in
/// all but a few letters, and like GNU grep it puts together what case alone tells apart:
/// `K`, `k` and the Kelvin sign; `σ`, `ς` and `Σ`; `s`, `S` and `ſ`; `ß` and `ẞ`; and, as GNU
/// grep does and case folding does not, the dotless `ı` with `i` and `I`. `İ` only matches
/// itself. No text is normalized: `é` and `e` followed by U+0301 stay different, as in grep.
struct CaseFolder {
  /// The folds of scalars below U+10000 worked out so far, `unknown` for the others.
  private var basic: [UInt32] = []
  private var supplementary: [UInt32: UInt32] = [:]
  private static let unknown = UInt32.max

  /// The scalar `scalar` folds to (see the type's summary).
  static func fold(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    guard scalar.properties.changesWhenCaseMapped else { return scalar }
    let uppercase = scalar.properties.uppercaseMapping.unicodeScalars
    let upper = uppercase.count == 1 ? uppercase.first ?? scalar : scalar
    let lowercase = upper.properties.lowercaseMapping.unicodeScalars
    return lowercase.count == 1 ? lowercase.first ?? upper : upper
  }

  /// Every scalar that folds to `target`, itself a fold: `target` and those its simple case
  /// mappings reach, plus the few that no mapping of their fold leads back to (``strays``).
  static func scalars(foldingTo target: Unicode.Scalar) -> [Unicode.Scalar] {
    func single(_ mapping: String) -> Unicode.Scalar? {
      let scalars = mapping.unicodeScalars
      return scalars.count == 1 ? scalars.first : nil
    }
    let properties = target.properties
    let candidates =
      [
        target, single(properties.uppercaseMapping), single(properties.titlecaseMapping),
        single(properties.lowercaseMapping),
      ].compactMap { $0 } + strays.compactMap(Unicode.Scalar.init)
    var found: [Unicode.Scalar] = []
    for candidate in candidates where fold(candidate) == target && !found.contains(candidate) {
      found.append(candidate)
    }
    return found
  }

  /// The scalars that fold to something whose simple mappings do not lead back to them: the
  /// micro sign, dotless `ı`, long `ſ`, final `ς`, the Greek symbol forms, the old Cyrillic
  /// forms, `ẞ`, the Ohm, Kelvin and Ångström signs and a few more. A test checks this list
  /// against every scalar of the Unicode version Swift carries.
  static let strays: [UInt32] = [
    0xB5, 0x131, 0x17F, 0x345, 0x3C2, 0x3D0, 0x3D1, 0x3D5, 0x3D6, 0x3F0, 0x3F1, 0x3F4, 0x3F5,
    0x1C80, 0x1C81, 0x1C82, 0x1C83, 0x1C84, 0x1C85, 0x1C86, 0x1C87, 0x1C88, 0x1E9B, 0x1E9E,
    0x1FBE, 0x2126, 0x212A, 0x212B,
  ]

  /// The fold of the scalar `value`, remembered for the next time.
  @inline(__always)
  mutating func fold(_ value: UInt32) -> UInt32 {
    if value < 0x80 {
      return value &- 0x41 < 26 ? value | 0x20 : value
    }
    if value < 0x1_0000 {
      if basic.isEmpty { basic = Array(repeating: CaseFolder.unknown, count: 0x1_0000) }
      let known = basic[Int(value)]
      if known != CaseFolder.unknown { return known }
      let folded = Unicode.Scalar(value).map { CaseFolder.fold($0).value } ?? value
      basic[Int(value)] = folded
      return folded
    }
    if let known = supplementary[value] { return known }
    let folded = Unicode.Scalar(value).map { CaseFolder.fold($0).value } ?? value
    supplementary[value] = folded
    return folded
  }

  /// `text` folded.
  mutating func folded(_ text: String) -> String {
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      result.append(Unicode.Scalar(fold(scalar.value)) ?? scalar)
    }
    return String(result)
  }

  /// Writes `bytes` folded to `output`, which must hold `2 * bytes.count + 8` bytes (a fold
  /// may take one more byte than its scalar: `Ⱥ` is two bytes, `ⱥ` three). Bytes that are not
  /// UTF-8 are copied. ASCII is folded eight bytes at a time; escapes in a JSON literal's
  /// body are ASCII and keep their shape. Returns the folded length, and whether every
  /// character kept its offset (no fold changed a length), so that offsets in `output` are
  /// offsets in `bytes`.
  mutating func fold(
    _ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
  ) -> (count: Int, keepsOffsets: Bool) {
    guard let source = bytes.baseAddress, let target = output.baseAddress else { return (0, true) }
    let count = bytes.count
    var read = 0
    var written = 0
    var keepsOffsets = true
    while read < count {
      if read + 8 <= count {
        // Eight bytes at once: the ASCII ones lowered, the rest copied; then on past the
        // ASCII ones, so that a character of several bytes is folded below.
        let word = source.loadUnaligned(fromByteOffset: read, as: UInt64.self)
        target.storeBytes(
          of: CaseFolder.lowercasedASCII(word), toByteOffset: written, as: UInt64.self)
        let high = UInt64(littleEndian: word) & 0x8080_8080_8080_8080
        let ascii = high == 0 ? 8 : high.trailingZeroBitCount >> 3
        read += ascii
        written += ascii
        if ascii == 8 { continue }
      }
      let first = bytes[read]
      if first < 0x80 {
        output[written] = first &- 0x41 < 26 ? first | 0x20 : first
        read += 1
        written += 1
        continue
      }
      guard let (value, length) = CaseFolder.decodeScalar(bytes, at: read) else {
        output[written] = first
        read += 1
        written += 1
        continue
      }
      let folded = fold(value)
      let foldedLength = CaseFolder.encode(folded, into: target + written)
      if foldedLength != length { keepsOffsets = false }
      read += length
      written += foldedLength
    }
    return (written, keepsOffsets)
  }

  /// `word` (eight bytes as loaded) with its ASCII capitals lowered and its other bytes as
  /// they are, byte by byte without a branch: a byte is a capital when adding 0x3F sets its
  /// top bit (it is 0x41 or more) and adding 0x25 does not (it is below 0x5B).
  @inline(__always)
  static func lowercasedASCII(_ word: UInt64) -> UInt64 {
    let value = UInt64(littleEndian: word)
    let low = value & 0x7F7F_7F7F_7F7F_7F7F
    let capitals =
      (low &+ 0x3F3F_3F3F_3F3F_3F3F) & ~(low &+ 0x2525_2525_2525_2525) & ~value
      & 0x8080_8080_8080_8080
    return (value | capitals >> 2).littleEndian
  }

  /// The scalar whose UTF-8 starts at `offset` (a byte of 0x80 or more) and its length;
  /// `nil` when the bytes there are not UTF-8.
  @inline(__always)
  static func decodeScalar(
    _ bytes: UnsafeRawBufferPointer, at offset: Int
  ) -> (UInt32, Int)? {
    let count = bytes.count
    let first = UInt32(bytes[offset])
    func continuation(_ index: Int) -> UInt32? {
      guard index < count else { return nil }
      let byte = bytes[index]
      return byte & 0xC0 == 0x80 ? UInt32(byte & 0x3F) : nil
    }
    switch first {
    case 0xC2...0xDF:
      guard let second = continuation(offset + 1) else { return nil }
      return ((first & 0x1F) << 6 | second, 2)
    case 0xE0...0xEF:
      guard let second = continuation(offset + 1), let third = continuation(offset + 2) else {
        return nil
      }
      let value = (first & 0x0F) << 12 | second << 6 | third
      guard value >= 0x800, !(0xD800...0xDFFF).contains(value) else { return nil }
      return (value, 3)
    case 0xF0...0xF4:
      guard let second = continuation(offset + 1), let third = continuation(offset + 2),
        let fourth = continuation(offset + 3)
      else { return nil }
      let value = (first & 0x07) << 18 | second << 12 | third << 6 | fourth
      guard (0x1_0000...0x10_FFFF).contains(value) else { return nil }
      return (value, 4)
    default:
      return nil
    }
  }

  /// Writes the UTF-8 of the scalar `value` at `target`; its length.
  @inline(__always)
  private static func encode(_ value: UInt32, into target: UnsafeMutableRawPointer) -> Int {
    switch value {
    case 0..<0x80:
      target.storeBytes(of: UInt8(value), as: UInt8.self)
      return 1
    case 0x80..<0x800:
      target.storeBytes(of: UInt8(0xC0 | value >> 6), as: UInt8.self)
      target.storeBytes(of: UInt8(0x80 | value & 0x3F), toByteOffset: 1, as: UInt8.self)
      return 2
    case 0x800..<0x1_0000:
      target.storeBytes(of: UInt8(0xE0 | value >> 12), as: UInt8.self)
      target.storeBytes(of: UInt8(0x80 | value >> 6 & 0x3F), toByteOffset: 1, as: UInt8.self)
      target.storeBytes(of: UInt8(0x80 | value & 0x3F), toByteOffset: 2, as: UInt8.self)
      return 3
    default:
      target.storeBytes(of: UInt8(0xF0 | value >> 18), as: UInt8.self)
      target.storeBytes(of: UInt8(0x80 | value >> 12 & 0x3F), toByteOffset: 1, as: UInt8.self)
      target.storeBytes(of: UInt8(0x80 | value >> 6 & 0x3F), toByteOffset: 2, as: UInt8.self)
      target.storeBytes(of: UInt8(0x80 | value & 0x3F), toByteOffset: 3, as: UInt8.self)
      return 4
    }
  }
}
