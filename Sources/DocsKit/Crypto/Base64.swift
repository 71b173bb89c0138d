/// age's base64: RFC 4648 section 4 (standard alphabet) without `=` padding, canonical
/// (unused low bits zero) in both directions.
enum AgeBase64 {
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// The value of each alphabet byte, 0xFF for a byte outside it.
  private static let values: [UInt8] = {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
    return table
  }()

  /// The unpadded encoding of `bytes`, appended to `output`.
  static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes, into output: inout [UInt8]) {
    var iterator = bytes.makeIterator()
    while let first = iterator.next() {
      let second = iterator.next()
      let third = second == nil ? nil : iterator.next()
      let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
      output.append(alphabet[Int(group >> 18 & 63)])
      output.append(alphabet[Int(group >> 12 & 63)])
      if second != nil { output.append(alphabet[Int(group >> 6 & 63)]) }
      if third != nil { output.append(alphabet[Int(group & 63)]) }
    }
  }

  /// The unpadded encoding of `bytes`.
  static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] {
    var output: [UInt8] = []
    output.reserveCapacity((bytes.count * 4 + 2) / 3)
    encode(bytes, into: &output)
    return output
  }

  /// The bytes `text` encodes, or nil when it is not canonical unpadded base64 (a byte
  /// outside the alphabet, `=`, a length of 1 mod 4, or non-zero unused bits).
  static func decode<Text: Collection<UInt8>>(_ text: Text) -> [UInt8]? {
    guard text.count % 4 != 1 else { return nil }
    var output: [UInt8] = []
    output.reserveCapacity(text.count * 3 / 4)
    var accumulator: UInt32 = 0
    var bits = 0
    for byte in text {
      let value = values[Int(byte)]
      guard value != 0xFF else { return nil }
      accumulator = accumulator << 6 | UInt32(value)
      bits += 6
      if bits >= 8 {
        bits -= 8
        output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
        accumulator &= (1 << UInt32(bits)) - 1
      }
    }
    // Canonical: the bits left over (2 or 4) are zero.
    guard accumulator == 0 else { return nil }
    return output
  }
}
