/// The name git gives a blob (`git hash-object`): the SHA-1 of `blob SIZE\0` and the bytes,
/// as 40 hex digits. docsh computes it itself so that finding which documents differ from a
/// commit costs no git process per document.
struct GitBlobID: Hashable, Sendable, CustomStringConvertible {
  /// The 40 hexadecimal digits.
  let hex: String

  /// The blob name git printed.
  init(hex: some StringProtocol) { self.hex = String(hex) }

  /// The name of a blob holding `bytes`.
  init(of bytes: [UInt8]) {
    var hash = SHA1()
    hash.update(Array("blob \(bytes.count)\u{0}".utf8))
    hash.update(bytes)
    hex = hash.finalHex()
  }

  var description: String { hex }
}

/// SHA-1 (FIPS 180-4), for object names only: git's, not for security.
struct SHA1 {
  private var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
    0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
  )
  private var pending: [UInt8] = []
  private var length: UInt64 = 0

  /// Adds `bytes` to what is hashed.
  mutating func update(_ bytes: [UInt8]) {
    length &+= UInt64(bytes.count)
    var start = 0
    if !pending.isEmpty {
      let take = min(64 - pending.count, bytes.count)
      pending += bytes[0..<take]
      start = take
      guard pending.count == 64 else { return }
      let block = pending
      pending = []
      block.withUnsafeBufferPointer { compress($0, at: 0) }
    }
    bytes.withUnsafeBufferPointer { buffer in
      while start + 64 <= buffer.count {
        compress(buffer, at: start)
        start += 64
      }
    }
    if start < bytes.count { pending += bytes[start...] }
  }

  /// The digest as 40 lowercase hex digits; the hash is then spent.
  mutating func finalHex() -> String {
    let bitLength = length &* 8
    var tail = pending + [0x80]
    while tail.count % 64 != 56 { tail.append(0) }
    for shift in stride(from: 56, through: 0, by: -8) {
      tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
    }
    tail.withUnsafeBufferPointer { buffer in
      for offset in stride(from: 0, to: buffer.count, by: 64) { compress(buffer, at: offset) }
    }
    pending = []
    let words = [state.0, state.1, state.2, state.3, state.4]
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(40)
    for word in words {
      for shift in stride(from: 28, through: 0, by: -4) {
        text.append(digits[Int((word >> UInt32(shift)) & 0xF)])
      }
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// Mixes the 64 bytes of `buffer` from `offset` into the state.
  private mutating func compress(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int) {
    var w = [UInt32](repeating: 0, count: 80)
    for index in 0..<16 {
      let byte = offset + index * 4
      w[index] =
        UInt32(buffer[byte]) << 24 | UInt32(buffer[byte + 1]) << 16
        | UInt32(buffer[byte + 2]) << 8 | UInt32(buffer[byte + 3])
    }
    for index in 16..<80 {
      let mixed = w[index - 3] ^ w[index - 8] ^ w[index - 14] ^ w[index - 16]
      w[index] = mixed << 1 | mixed >> 31
    }
    var (a, b, c, d, e) = state
    for index in 0..<80 {
      let f: UInt32
      let k: UInt32
      switch index {
      case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
      case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
      case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
      default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
      }
      let temporary = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[index]
      e = d
      d = c
      c = b << 30 | b >> 2
      b = a
      a = temporary
    }
    state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
  }
}
