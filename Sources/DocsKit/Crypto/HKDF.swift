/// HKDF-SHA-256 (RFC 5869), built from libsodium's HMAC-SHA-256.
enum HKDF {
  /// HKDF-Extract then HKDF-Expand: `length` bytes (at most 255 × 32) of key material.
  static func derive(ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int = 32) -> [UInt8] {
    var prk = extract(salt: salt, ikm: ikm)
    defer { Sodium.zero(&prk) }
    return expand(prk: prk, info: info, length: length)
  }

  /// HKDF-Extract: PRK = HMAC-Hash(salt, IKM). An empty salt is HashLen zeros, which HMAC
  /// pads its key to anyway.
  static func extract(salt: [UInt8], ikm: [UInt8]) -> [UInt8] {
    Sodium.hmacSHA256(key: salt, ikm)
  }

  /// HKDF-Expand: T(1) ‖ T(2) ‖ … truncated to `length`, T(i) = HMAC(PRK, T(i-1) ‖ info ‖ i).
  static func expand(prk: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
    precondition(length >= 0 && length <= 255 * 32)
    var output: [UInt8] = []
    output.reserveCapacity(length + 32)
    var previous: [UInt8] = []
    var counter: UInt8 = 1
    while output.count < length {
      previous = Sodium.hmacSHA256(key: prk, previous, info, [counter])
      output += previous
      counter &+= 1
    }
    Sodium.zero(&previous)
    output.removeLast(output.count - length)
    return output
  }
}
