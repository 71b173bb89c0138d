/// Bech32 (BIP-173) as age uses it: no limit on the length, all upper or all lower case, the
/// checksum computed over the lower-case string.
enum Bech32 {
  private static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

  /// The value of each lower-case charset byte, -1 for a byte outside it.
  private static let values: [Int8] = {
    var table = [Int8](repeating: -1, count: 128)
    for (index, byte) in charset.enumerated() { table[Int(byte)] = Int8(index) }
    return table
  }()

  private static func polymod(_ values: [UInt8]) -> UInt32 {
    let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
    var check: UInt32 = 1
    for value in values {
      let top = check >> 25
      check = (check & 0x1ff_ffff) << 5 ^ UInt32(value)
      for index in 0..<5 where (top >> UInt32(index)) & 1 == 1 { check ^= generator[index] }
    }
    return check
  }

  private static func expanded(_ hrp: [UInt8]) -> [UInt8] {
    hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
  }

  /// The Bech32 string of `data` under `hrp` (given in the case wanted; the checksum is
  /// computed over its lower case), in the case of `hrp`.
  static func encode(hrp: String, data: [UInt8]) -> String {
    let upper = hrp.contains { $0.isUppercase }
    let lowerHRP = Array(hrp.lowercased().utf8)
    let groups = regroup(data, from: 8, to: 5, pad: true) ?? []
    let check = polymod(expanded(lowerHRP) + groups + [0, 0, 0, 0, 0, 0]) ^ 1
    var text = lowerHRP + [UInt8(ascii: "1")] + groups.map { charset[Int($0)] }
    for index in 0..<6 { text.append(charset[Int((check >> UInt32(5 * (5 - index))) & 31)]) }
    let string = String(decoding: text, as: UTF8.self)
    return upper ? string.uppercased() : string
  }

  /// The human-readable part (in the string's case) and the data of `text`.
  /// - Throws: `AgeError.malformed` for mixed case, a character outside the charset, a
  ///   missing separator, a bad checksum or bad padding.
  static func decode(_ text: String) throws(AgeError) -> (hrp: String, data: [UInt8]) {
    let bytes = Array(text.utf8)
    guard bytes.allSatisfy({ (33...126).contains($0) }) else {
      throw .malformed("a key holds a character outside printable ASCII")
    }
    let hasLower = bytes.contains { (97...122).contains($0) }
    let hasUpper = bytes.contains { (65...90).contains($0) }
    guard !(hasLower && hasUpper) else { throw .malformed("a key mixes upper and lower case") }
    let lower = bytes.map { (65...90).contains($0) ? $0 + 32 : $0 }
    guard let separator = lower.lastIndex(of: UInt8(ascii: "1")), separator >= 1,
      lower.count - separator - 1 >= 6
    else { throw .malformed("a key has no Bech32 separator or checksum") }
    let hrp = Array(lower[..<separator])
    var groups: [UInt8] = []
    groups.reserveCapacity(lower.count - separator - 1)
    for byte in lower[(separator + 1)...] {
      let value = byte < 128 ? values[Int(byte)] : -1
      guard value >= 0 else { throw .malformed("a key holds a character outside Bech32's") }
      groups.append(UInt8(value))
    }
    guard polymod(expanded(hrp) + groups) == 1 else {
      throw .malformed("a key's Bech32 checksum does not match")
    }
    guard let data = regroup(Array(groups.dropLast(6)), from: 5, to: 8, pad: false) else {
      throw .malformed("a key's Bech32 data has invalid padding")
    }
    return (String(decoding: bytes[..<separator], as: UTF8.self), data)
  }

  /// `values` of `from` bits regrouped into values of `to` bits; nil when, without padding,
  /// the leftover bits are too many or not zero.
  private static func regroup(_ values: [UInt8], from: Int, to: Int, pad: Bool) -> [UInt8]? {
    var accumulator = 0
    var bits = 0
    var output: [UInt8] = []
    let mask = (1 << to) - 1
    for value in values {
      accumulator = (accumulator << from) | Int(value)
      bits += from
      while bits >= to {
        bits -= to
        output.append(UInt8((accumulator >> bits) & mask))
      }
      accumulator &= (1 << bits) - 1
    }
    if pad {
      if bits > 0 { output.append(UInt8((accumulator << (to - bits)) & mask)) }
    } else if bits >= from || accumulator != 0 {
      return nil
    }
    return output
  }
}
