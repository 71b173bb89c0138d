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
    guard bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"),
      bytes[18] == UInt8(ascii: "-"), bytes[23] == UInt8(ascii: "-")
    else { return nil }
    /// The hex digits of `range` as one number; `nil` for any other character.
    func hex(_ range: Range<Int>) -> UInt64? {
      var value: UInt64 = 0
      for index in range {
        let byte = bytes[index]
        let digit = byte &- UInt8(ascii: "0")
        let letter = (byte | 0x20) &- UInt8(ascii: "a")
        if digit < 10 {
          value = value << 4 | UInt64(digit)
        } else if letter < 6 {
          value = value << 4 | UInt64(letter + 10)
        } else {
          return nil
        }
      }
      return value
    }
    guard let a = hex(0..<8), let b = hex(9..<13), let c = hex(14..<18), let d = hex(19..<23),
      let e = hex(24..<36)
    else { return nil }
    self.init(high: a << 32 | b << 16 | c, low: d << 48 | e)
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

/// Makes random identities for one context: xoshiro256** seeded with 256 bits from the
/// system's generator. Identities need to be unique, not secret; drawing every one from
/// `SystemRandomNumberGenerator` cost two `getrandom` system calls per document (20,000 for
/// a script of 10,000 `new` lines).
public final class RandomIDSource {
  private var state: (UInt64, UInt64, UInt64, UInt64)

  /// A source seeded from the system's generator.
  public init() {
    var system = SystemRandomNumberGenerator()
    state = (system.next(), system.next(), system.next(), system.next())
    if state == (0, 0, 0, 0) { state.0 = 1 }  // the one state xoshiro cannot leave
  }

  /// A new random (version 4) identifier.
  public func make() -> ObjectID {
    var generator = Xoshiro(source: self)
    return ObjectID.random(using: &generator)
  }

  fileprivate func next() -> UInt64 {
    let result = rotateLeft(state.1 &* 5, 7) &* 9
    let shifted = state.1 << 17
    state.2 ^= state.0
    state.3 ^= state.1
    state.1 ^= state.2
    state.0 ^= state.3
    state.2 ^= shifted
    state.3 = rotateLeft(state.3, 45)
    return result
  }

  private func rotateLeft(_ value: UInt64, _ count: UInt64) -> UInt64 {
    value << count | value >> (64 - count)
  }

  /// The source as a `RandomNumberGenerator`.
  private struct Xoshiro: RandomNumberGenerator {
    let source: RandomIDSource
    mutating func next() -> UInt64 { source.next() }
  }
}
