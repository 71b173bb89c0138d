#if canImport(Glibc)
  import Glibc
#endif

/// The identity of a category or document: a random (version 4) UUID, stable across saves.
///
/// DocsKit keeps Foundation off the path of a plain listing, so this type parses and
/// formats the canonical `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` form itself.
public struct ObjectID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The first 64 bits of the UUID, big-endian.
  public let high: UInt64
  /// The last 64 bits of the UUID, big-endian.
  public let low: UInt64

  /// Makes an identifier from its two halves.
  public init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// Parses the canonical textual form of a UUID (either letter case); `nil` when malformed.
  public init?(_ text: some StringProtocol) {
    var utf8 = Array(text.utf8)
    guard
      let id = utf8.withUnsafeMutableBufferPointer({ ObjectID(uuidBytes: UnsafeBufferPointer($0)) })
    else { return nil }
    self = id
  }

  /// Parses the 36 bytes of a canonical UUID; `nil` when malformed.
  init?(uuidBytes bytes: UnsafeBufferPointer<UInt8>) {
    guard bytes.count == 36 else { return nil }
    var high: UInt64 = 0
    var low: UInt64 = 0
    var nibbles = 0
    for (index, byte) in bytes.enumerated() {
      if index == 8 || index == 13 || index == 18 || index == 23 {
        guard byte == UInt8(ascii: "-") else { return nil }
        continue
      }
      let value: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte &- UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte &- UInt8(ascii: "a") &+ 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte &- UInt8(ascii: "A") &+ 10
      default: return nil
      }
      if nibbles < 16 {
        high = high << 4 | UInt64(value)
      } else {
        low = low << 4 | UInt64(value)
      }
      nibbles += 1
    }
    self.init(high: high, low: low)
  }

  /// A new random identifier (UUID version 4).
  public static func random<G: RandomNumberGenerator>(using generator: inout G) -> ObjectID {
    let high = (generator.next() as UInt64) & ~0xF000 | 0x4000
    let low = (generator.next() as UInt64) & ~(0xC000_0000_0000_0000) | 0x8000_0000_0000_0000
    return ObjectID(high: high, low: low)
  }

  /// The canonical lower-case textual form.
  public var description: String {
    String(unsafeUninitializedCapacity: 36) { buffer in
      writeCanonicalForm(into: buffer)
      return 36
    }
  }

  /// Writes the 36 bytes of the canonical form into `buffer`, which must hold at least 36.
  func writeCanonicalForm(into buffer: UnsafeMutableBufferPointer<UInt8>) {
    let digits: StaticString = "0123456789abcdef"
    digits.withUTF8Buffer { hex in
      var out = 0
      for nibble in 0..<32 {
        if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
          buffer[out] = UInt8(ascii: "-")
          out += 1
        }
        let word = nibble < 16 ? high : low
        let shift = UInt64(60 - (nibble % 16) * 4)
        buffer[out] = hex[Int((word >> shift) & 0xF)]
        out += 1
      }
    }
  }

  public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool {
    (lhs.high, lhs.low) < (rhs.high, rhs.low)
  }
}
