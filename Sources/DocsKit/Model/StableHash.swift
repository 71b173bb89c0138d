/// FNV-1a over 64 bits: a hash that is the same in every process (Swift's `Hasher` is
/// seeded per process), for ids, fingerprints, checksums and file names that must not
/// change between runs. The one FNV-1a of docsh's files (the stem cache's 32-bit one hashes
/// tokens in memory only).
struct StableHash {
  private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

  /// A hash of nothing yet.
  init() {}

  /// The hash of `bytes`.
  init(_ bytes: some Sequence<UInt8>) {
    combine(bytes)
  }

  mutating func combine(_ bytes: some Sequence<UInt8>) {
    for byte in bytes {
      value ^= UInt64(byte)
      value &*= 0x100_0000_01B3
    }
  }

  mutating func combine(_ number: UInt64) {
    withUnsafeBytes(of: number.littleEndian) { combine($0) }
  }

  /// The hash as 16 hexadecimal digits.
  var hexDigits: String { value.hexDigits }
}

extension UInt64 {
  /// The number as 16 lowercase hexadecimal digits, zeros in front: how docsh writes a
  /// 64-bit hash or epoch half in its files.
  var hexDigits: String {
    let digits = String(self, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}
