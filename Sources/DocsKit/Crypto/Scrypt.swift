/// scrypt (RFC 7914) in bounded memory, built from libsodium's Salsa20/8 core and
/// HMAC-SHA-256, giving bit for bit what libsodium's `crypto_pwhash_scryptsalsa208sha256_ll`
/// gives, without its 128·r·N bytes at once (256 MiB at age's work factor 18).
///
/// scrypt(P, S, N, r, p, dkLen) = PBKDF2-HMAC-SHA-256(P, B′, 1, dkLen), where B is
/// PBKDF2-HMAC-SHA-256(P, S, 1, p·128·r), cut into p blocks of 128·r bytes, and B′ is each
/// block through ROMix. ROMix(X): for i in 0..<N { V[i] = X; X = BlockMix(X) }, then N times
/// { j = Integerify(X) mod N; X = BlockMix(X ⊕ V[j]) }.
///
/// The time–memory trade-off (open to anyone, so it costs an attacker nothing and the
/// passphrase loses no strength; only we spend more time): the first loop keeps only
/// V[i] for i ≡ 0 (mod k), ⌈N/k⌉ blocks; the second rebuilds V[j] from V[j − j mod k] by
/// j mod k BlockMix steps, (k − 1)/2 on average, so a step of the second loop costs
/// 1 + (k − 1)/2 BlockMix instead of 1. k = 1 is plain scrypt.
///
/// Invariants: the only memory the computation touches is one region from
/// `Sodium.allocateSecure` of `regionBytes` (the kept blocks, four working blocks, B and the
/// Salsa20/8 argument words), zeroed and freed before `derive` returns, whether it returns
/// or throws; nothing is allocated inside the loops. Words are little-endian in memory, as
/// RFC 7914 and libsodium have them; only Integerify reads one as a number.
struct Scrypt: Sendable {
  /// N = 2^logN.
  let logN: Int
  /// The block size parameter r (a block is 128·r bytes).
  let r: Int
  /// The parallelization parameter p (done one block after the other here).
  let p: Int
  /// k: the first loop keeps every k-th block of V.
  let stride: Int

  /// The blocks of V the most that `forAge` keeps at once: 64 MiB of 1 KiB blocks (r = 8).
  static let ageKeptBlocksLimit = 1 << 16
  /// The largest k `forAge` picks: above work factor 20 the memory grows rather than the
  /// time (see `forAge`).
  static let ageStrideLimit = 16

  /// - Precondition: 1 ≤ logN ≤ 40, r ≥ 1, p ≥ 1, stride ≥ 1.
  init(logN: Int, r: Int, p: Int = 1, stride: Int) {
    precondition((1...40).contains(logN) && r >= 1 && p >= 1 && stride >= 1)
    self.logN = logN
    self.r = r
    self.p = p
    self.stride = stride
  }

  /// age's scrypt (r = 8, p = 1) with the k that keeps V to 64 MiB (2^16 blocks) up to work
  /// factor 20: k = 1 up to 16, then 2, 4 (age's default, 18), 8, 16. Above 20 k stays 16
  /// and the memory doubles with each step (128 MiB at 21, 256 MiB at 22): with k growing
  /// instead, a step of the second loop would cost 33 BlockMix at 22, about 130 times the
  /// time of work factor 18, while a file that stock `age` wrote at 22 already asked for
  /// 16 times its time and 4 GiB of plain scrypt.
  static func forAge(logN: Int) -> Scrypt {
    let stride = logN <= 16 ? 1 : 1 << min(logN - 16, 4)
    return Scrypt(logN: logN, r: 8, p: 1, stride: stride)
  }

  /// 32·r: the 32-bit words of a block.
  var blockWords: Int { 32 * r }
  /// The blocks of V kept: ⌈N/k⌉.
  var keptBlocks: Int { ((1 << logN) - 1) / stride + 1 }
  /// Bytes of the one region `derive` asks for: the kept blocks, four working blocks, the p
  /// blocks of B, and 32 words for Salsa20/8's arguments.
  var regionBytes: Int { ((keptBlocks + 4 + p) * blockWords + 32) * 4 }

  /// dkLen bytes of scrypt(passphrase, salt, N, r, p).
  /// - Parameter allocate: where the region comes from: `Sodium.allocateSecure` or what
  ///   forwards to it; a test may record the size asked for or refuse it.
  /// - Throws: `AgeError.unsupported` when the region cannot be had (the error libsodium's
  ///   scrypt gave when out of memory).
  func derive(
    passphrase: [UInt8], salt: [UInt8], length: Int,
    allocate: (Int) -> UnsafeMutableRawPointer? = Sodium.allocateSecure
  ) throws(AgeError) -> [UInt8] {
    precondition(length > 0)
    try Sodium.start()
    guard let region = allocate(regionBytes) else {
      throw .unsupported("scrypt with work factor \(logN) could not run (out of memory?)")
    }
    defer { Sodium.freeSecure(region) }
    let words = region.bindMemory(to: UInt32.self, capacity: regionBytes / 4)
    let blockBytes = blockWords * 4
    let kept = words
    let work = kept + keptBlocks * blockWords
    let b = work + 4 * blockWords
    let gathered = b + p * blockWords

    salt.withUnsafeBytes { salt in
      Self.pbkdf2(
        passphrase: passphrase, salt: salt,
        into: UnsafeMutableRawBufferPointer(start: b, count: p * blockBytes))
    }
    for block in 0..<p {
      roMix(b + block * blockWords, kept: kept, work: work, gathered: gathered)
    }
    var key = [UInt8](repeating: 0, count: length)
    key.withUnsafeMutableBytes { key in
      Self.pbkdf2(
        passphrase: passphrase,
        salt: UnsafeRawBufferPointer(start: b, count: p * blockBytes), into: key)
    }
    return key
  }

  // MARK: - ROMix and BlockMix

  /// ROMix (RFC 7914 section 5) of the block at `x`, in place, keeping every `stride`-th
  /// block of V in `kept` and working in the four blocks at `work`.
  private func roMix(
    _ x: UnsafeMutablePointer<UInt32>, kept: UnsafeMutablePointer<UInt32>,
    work: UnsafeMutablePointer<UInt32>, gathered: UnsafeMutablePointer<UInt32>
  ) {
    let n = 1 << logN
    let words = blockWords
    var current = work
    var next = work + words
    let rebuilt = (work + 2 * words, work + 3 * words)
    current.update(from: x, count: words)

    for i in 0..<n {
      if i % stride == 0 { (kept + (i / stride) * words).update(from: current, count: words) }
      Self.blockMix(current, xor: nil, into: next, r: r, gathered: gathered)
      swap(&current, &next)
    }
    for _ in 0..<n {
      let j = Int(truncatingIfNeeded: integerify(current) & UInt64(n - 1))
      var v = UnsafePointer(kept + (j / stride) * words)
      var target = rebuilt.0
      for _ in 0..<(j % stride) {
        Self.blockMix(v, xor: nil, into: target, r: r, gathered: gathered)
        v = UnsafePointer(target)
        target = target == rebuilt.0 ? rebuilt.1 : rebuilt.0
      }
      Self.blockMix(current, xor: v, into: next, r: r, gathered: gathered)
      swap(&current, &next)
    }
    x.update(from: current, count: words)
  }

  /// Integerify: the first 64-bit little-endian integer of the block's last 64 bytes.
  @inline(__always)
  private func integerify(_ x: UnsafeMutablePointer<UInt32>) -> UInt64 {
    let last = x + (2 * r - 1) * 16
    return UInt64(UInt32(littleEndian: last[0])) | UInt64(UInt32(littleEndian: last[1])) << 32
  }

  /// BlockMix (RFC 7914 section 4) of `a` ⊕ `b` (`a` alone when `b` is nil) into `output`,
  /// which overlaps neither: X = the last 64 bytes; for each 64-byte piece i,
  /// X = Salsa20/8(X ⊕ piece i), written to `output`'s even half for even i and odd half
  /// for odd i, and read back from there as the next X.
  @inline(__always)
  private static func blockMix(
    _ a: UnsafePointer<UInt32>, xor b: UnsafePointer<UInt32>?,
    into output: UnsafeMutablePointer<UInt32>, r: Int, gathered: UnsafeMutablePointer<UInt32>
  ) {
    let last = (2 * r - 1) * 16
    // X starts as the last piece; its words are kept in the second half of `gathered`.
    let start = gathered + 16
    if let b {
      for w in 0..<16 { start[w] = a[last + w] ^ b[last + w] }
    } else {
      start.update(from: a + last, count: 16)
    }
    var x = UnsafePointer(start)
    for piece in 0..<(2 * r) {
      let offset = piece * 16
      if let b {
        gather(into: gathered) { x[$0] ^ a[offset + $0] ^ b[offset + $0] }
      } else {
        gather(into: gathered) { x[$0] ^ a[offset + $0] }
      }
      let y = output + (piece / 2 + (piece % 2) * r) * 16
      Sodium.salsa208(gathered: gathered, into: y)
      x = UnsafePointer(y)
    }
  }

  /// Writes the 16 words `word(0…15)` of a 64-byte block in the order
  /// `Sodium.salsa208` takes them: in (6…9), k (1…4, 11…14), c (0, 5, 10, 15).
  @inline(__always)
  static func gather(
    into gathered: UnsafeMutablePointer<UInt32>, _ word: (Int) -> UInt32
  ) {
    gathered[0] = word(6)
    gathered[1] = word(7)
    gathered[2] = word(8)
    gathered[3] = word(9)
    gathered[4] = word(1)
    gathered[5] = word(2)
    gathered[6] = word(3)
    gathered[7] = word(4)
    gathered[8] = word(11)
    gathered[9] = word(12)
    gathered[10] = word(13)
    gathered[11] = word(14)
    gathered[12] = word(0)
    gathered[13] = word(5)
    gathered[14] = word(10)
    gathered[15] = word(15)
  }

  // MARK: - PBKDF2

  /// PBKDF2-HMAC-SHA-256 with one iteration (RFC 8018 section 5.2, c = 1): block i (from 1)
  /// of the output is HMAC(passphrase, salt ‖ INT(i)), i big-endian in 4 bytes.
  static func pbkdf2(
    passphrase: [UInt8], salt: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
  ) {
    guard let base = output.baseAddress else { return }
    var tag = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    withUnsafeMutableBytes(of: &tag) { tag in
      let tagBase = tag.baseAddress.unsafelyUnwrapped
      defer { Sodium.zero(tagBase, count: tag.count) }
      var offset = 0
      var index: UInt32 = 1
      while offset < output.count {
        var counter = index.bigEndian
        Sodium.hmacSHA256(key: passphrase, into: tagBase) { update in
          update(salt)
          withUnsafeBytes(of: &counter) { update($0) }
        }
        (base + offset).copyMemory(from: tagBase, byteCount: min(tag.count, output.count - offset))
        offset += tag.count
        index += 1
      }
    }
  }
}
