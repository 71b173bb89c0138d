import CSodium

/// The few libsodium primitives age is built from, and nothing else: the one file that
/// imports `CSodium`. Every construction (HKDF, the header, STREAM) is Swift on top of these.
///
/// Invariants: every function here calls `sodium_init` first (through `ready`); every
/// pointer handed to libsodium is valid for its length, also for empty inputs (libsodium
/// declares its pointers `nonnull`); a secret this file allocates for its own use is zeroed
/// before it returns.
enum Sodium {
  /// Key length of ChaCha20-Poly1305 IETF, X25519 scalars and points, and HMAC-SHA-256 tags.
  static let keyLength = 32
  /// Nonce length of ChaCha20-Poly1305 IETF.
  static let nonceLength = 12
  /// Length of a Poly1305 tag.
  static let tagLength = 16

  /// `sodium_init` once per process; false when libsodium could not start (no randomness).
  private static let ready: Bool = sodium_init() >= 0

  /// Throws when libsodium could not be started.
  static func start() throws(AgeError) {
    guard ready else { throw .randomFailure }
  }

  // MARK: - Randomness

  /// `count` bytes from the system's CSPRNG.
  /// - Throws: `AgeError.randomFailure` when libsodium could not be started.
  static func randomBytes(_ count: Int) throws(AgeError) -> [UInt8] {
    try start()
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { buffer in
      if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
    }
    return bytes
  }

  /// `count` bytes from the system's CSPRNG for a new key, without a failure to report:
  /// `randombytes_buf` starts its generator itself and aborts the process rather than
  /// return predictable bytes.
  static func randomKeyBytes(_ count: Int) -> [UInt8] {
    _ = ready
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { buffer in
      if let base = buffer.baseAddress { randombytes_buf(base, buffer.count) }
    }
    return bytes
  }

  // MARK: - X25519

  /// X25519(scalar, basepoint): the public key of a secret scalar. It cannot fail: a clamped
  /// scalar is never a multiple of the group's order, so the result is never the identity.
  static func x25519Base(_ scalar: [UInt8]) -> [UInt8] {
    _ = ready
    precondition(scalar.count == keyLength)
    var point = [UInt8](repeating: 0, count: keyLength)
    point.withUnsafeMutableBufferPointer { out in
      scalar.withUnsafeBufferPointer { scalar in
        _ = crypto_scalarmult_base(
          out.baseAddress.unsafelyUnwrapped, scalar.baseAddress.unsafelyUnwrapped)
      }
    }
    return point
  }

  /// X25519(scalar, point), or nil when the result is all zero bytes (a low-order point),
  /// which age requires a reader to reject.
  static func x25519(_ scalar: [UInt8], _ point: [UInt8]) throws(AgeError) -> [UInt8]? {
    try start()
    precondition(scalar.count == keyLength && point.count == keyLength)
    var shared = [UInt8](repeating: 0, count: keyLength)
    let status = shared.withUnsafeMutableBufferPointer { out in
      scalar.withUnsafeBufferPointer { scalar in
        point.withUnsafeBufferPointer { point in
          crypto_scalarmult(
            out.baseAddress.unsafelyUnwrapped, scalar.baseAddress.unsafelyUnwrapped,
            point.baseAddress.unsafelyUnwrapped)
        }
      }
    }
    // libsodium itself returns -1 for an all-zero result; checked again here so that the
    // rule does not depend on the library's version.
    let allZero =
      shared.withUnsafeBufferPointer { sodium_is_zero($0.baseAddress.unsafelyUnwrapped, keyLength) }
      == 1
    guard status == 0, !allZero else {
      zero(&shared)
      return nil
    }
    return shared
  }

  // MARK: - ChaCha20-Poly1305 IETF

  /// Encrypts `count` bytes at `plaintext` into `output` (`count + tagLength` bytes).
  static func seal(
    key: UnsafePointer<UInt8>, nonce: UnsafePointer<UInt8>,
    plaintext: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutablePointer<UInt8>
  ) {
    var written: UInt64 = 0
    _ = crypto_aead_chacha20poly1305_ietf_encrypt(
      output, &written, plaintext, UInt64(count), nil, 0, nil, nonce, key)
  }

  /// Decrypts and authenticates `count` bytes at `ciphertext` (tag included) into `output`
  /// (`count - tagLength` bytes); false when the tag does not match.
  static func open(
    key: UnsafePointer<UInt8>, nonce: UnsafePointer<UInt8>,
    ciphertext: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutablePointer<UInt8>
  ) -> Bool {
    guard count >= tagLength else { return false }
    var written: UInt64 = 0
    return crypto_aead_chacha20poly1305_ietf_decrypt(
      output, &written, nil, ciphertext, UInt64(count), nil, 0, nonce, key) == 0
  }

  /// ChaCha20-Poly1305 of `plaintext` with `key` and a nonce of 12 zero bytes (age's stanza
  /// bodies).
  static func sealWithZeroNonce(_ plaintext: [UInt8], key: [UInt8]) throws(AgeError) -> [UInt8] {
    try start()
    precondition(key.count == keyLength)
    let nonce = [UInt8](repeating: 0, count: nonceLength)
    var output = [UInt8](repeating: 0, count: plaintext.count + tagLength)
    withBytes(plaintext) { plaintext, count in
      output.withUnsafeMutableBufferPointer { out in
        key.withUnsafeBufferPointer { key in
          nonce.withUnsafeBufferPointer { nonce in
            seal(
              key: key.baseAddress.unsafelyUnwrapped, nonce: nonce.baseAddress.unsafelyUnwrapped,
              plaintext: plaintext, count: count, into: out.baseAddress.unsafelyUnwrapped)
          }
        }
      }
    }
    return output
  }

  /// The plaintext of `ciphertext` sealed with `key` and a zero nonce, or nil when it does
  /// not authenticate.
  static func openWithZeroNonce(_ ciphertext: [UInt8], key: [UInt8]) throws(AgeError) -> [UInt8]? {
    try start()
    precondition(key.count == keyLength)
    guard ciphertext.count >= tagLength else { return nil }
    let nonce = [UInt8](repeating: 0, count: nonceLength)
    var output = [UInt8](repeating: 0, count: max(ciphertext.count - tagLength, 1))
    let opened = ciphertext.withUnsafeBufferPointer { ciphertext in
      output.withUnsafeMutableBufferPointer { out in
        key.withUnsafeBufferPointer { key in
          nonce.withUnsafeBufferPointer { nonce in
            open(
              key: key.baseAddress.unsafelyUnwrapped, nonce: nonce.baseAddress.unsafelyUnwrapped,
              ciphertext: ciphertext.baseAddress.unsafelyUnwrapped, count: ciphertext.count,
              into: out.baseAddress.unsafelyUnwrapped)
          }
        }
      }
    }
    output.removeLast(output.count - (ciphertext.count - tagLength))
    guard opened else {
      zero(&output)
      return nil
    }
    return output
  }

  // MARK: - SHA-256 and HMAC-SHA-256

  /// HMAC-SHA-256 of the concatenation of `parts` under `key` (any length).
  static func hmacSHA256(key: [UInt8], _ parts: [UInt8]...) -> [UInt8] {
    hmacSHA256(key: key, parts: parts)
  }

  /// HMAC-SHA-256 of the concatenation of `parts` under `key` (any length).
  static func hmacSHA256(key: [UInt8], parts: [[UInt8]]) -> [UInt8] {
    var tag = [UInt8](repeating: 0, count: keyLength)
    tag.withUnsafeMutableBytes { tag in
      hmacSHA256(key: key, into: tag.baseAddress.unsafelyUnwrapped) { update in
        for part in parts { part.withUnsafeBytes { update($0) } }
      }
    }
    return tag
  }

  /// HMAC-SHA-256 under `key` (any length) of what `feed` passes to the `update` it is
  /// given, in order, written to the 32 bytes at `tag`. For secrets kept outside Swift
  /// arrays (scrypt's buffer): nothing is copied but the key; the state is zeroed after.
  static func hmacSHA256(
    key: [UInt8], into tag: UnsafeMutableRawPointer,
    _ feed: ((UnsafeRawBufferPointer) -> Void) -> Void
  ) {
    _ = ready  // HMAC needs no randomness; this only picks libsodium's implementations
    var state = crypto_auth_hmacsha256_state()
    withBytes(key) { key, count in _ = crypto_auth_hmacsha256_init(&state, key, count) }
    feed { part in
      guard let base = part.baseAddress, !part.isEmpty else { return }
      _ = crypto_auth_hmacsha256_update(
        &state, base.assumingMemoryBound(to: UInt8.self), UInt64(part.count))
    }
    _ = crypto_auth_hmacsha256_final(&state, tag.assumingMemoryBound(to: UInt8.self))
    withUnsafeMutableBytes(of: &state) { sodium_memzero($0.baseAddress, $0.count) }
  }

  /// SHA-256 of `bytes`.
  static func sha256(_ bytes: [UInt8]) throws(AgeError) -> [UInt8] {
    try start()
    var digest = [UInt8](repeating: 0, count: 32)
    withBytes(bytes) { bytes, count in
      digest.withUnsafeMutableBufferPointer {
        _ = crypto_hash_sha256($0.baseAddress.unsafelyUnwrapped, bytes, UInt64(count))
      }
    }
    return digest
  }

  /// True when the two byte strings are equal, compared in time that does not depend on
  /// where they differ.
  static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return a.withUnsafeBytes { a in
      b.withUnsafeBytes { b in sodium_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
    }
  }

  // MARK: - scrypt

  /// scrypt(N = 2^logN, r = 8, p = 1, dkLen = 32) of `passphrase` with `salt`, in at most
  /// 64 MiB up to work factor 20 (`Scrypt.forAge`).
  /// - Throws: `AgeError.unsupported` when its memory cannot be had.
  static func scrypt(passphrase: [UInt8], salt: [UInt8], logN: Int) throws(AgeError) -> [UInt8] {
    try Scrypt.forAge(logN: logN).derive(passphrase: passphrase, salt: salt, length: keyLength)
  }

  /// libsodium's own scrypt, which holds 128·r·N bytes at once: kept for the tests, which
  /// compare `Scrypt` with it. Nil when it failed (out of memory, parameters it refuses).
  static func libsodiumScrypt(
    passphrase: [UInt8], salt: [UInt8], logN: Int, r: Int, p: Int, length: Int
  ) throws(AgeError) -> [UInt8]? {
    try start()
    precondition((1...63).contains(logN) && r > 0 && p > 0 && length > 0)
    var key = [UInt8](repeating: 0, count: length)
    let status = withBytes(passphrase) { passphrase, passphraseCount in
      withBytes(salt) { salt, saltCount in
        key.withUnsafeMutableBufferPointer { out in
          crypto_pwhash_scryptsalsa208sha256_ll(
            passphrase, passphraseCount, salt, saltCount, UInt64(1) << UInt64(logN), UInt32(r),
            UInt32(p), out.baseAddress.unsafelyUnwrapped, length)
        }
      }
    }
    return status == 0 ? key : nil
  }

  /// The Salsa20/8 core (RFC 7914 section 3) of a 64-byte block, written to the 16 words at
  /// `output`. `gathered` holds the block's 16 words as libsodium's `crypto_core_salsa208`
  /// takes them, which lays them out as c0 k0 k1 k2 k3 c1 in0 in1 in2 in3 c2 k4 k5 k6 k7 c3:
  /// `gathered[0..<4]` = in (words 6…9), `[4..<12]` = k (words 1…4, 11…14), `[12..<16]` = c
  /// (words 0, 5, 10, 15). libsodium writes the 16 words after the rounds plus the input
  /// words, in order: Salsa20/8 itself. Words are in memory as little-endian bytes.
  @inline(__always)
  static func salsa208(
    gathered: UnsafeMutablePointer<UInt32>, into output: UnsafeMutablePointer<UInt32>
  ) {
    let bytes = UnsafeMutableRawPointer(gathered).assumingMemoryBound(to: UInt8.self)
    _ = crypto_core_salsa208(
      UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt8.self), bytes, bytes + 16,
      bytes + 48)
  }

  // MARK: - Memory

  /// `count` bytes from libsodium's guarded allocator (`sodium_malloc`: guard pages, a
  /// canary, locked in memory where the system allows), or nil when they cannot be had.
  /// Give them back with `freeSecure`, which zeroes them.
  static func allocateSecure(_ count: Int) -> UnsafeMutableRawPointer? {
    guard ready, count > 0 else { return nil }
    return sodium_malloc(count)
  }

  /// Zeroes and frees what `allocateSecure` gave.
  static func freeSecure(_ pointer: UnsafeMutableRawPointer) {
    sodium_free(pointer)
  }

  /// Overwrites `bytes` with zeros in a way the compiler does not remove.
  static func zero(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
  }

  /// Overwrites `count` bytes at `pointer` with zeros in a way the compiler does not remove.
  static func zero(_ pointer: UnsafeMutableRawPointer, count: Int) {
    sodium_memzero(pointer, count)
  }

  /// Calls `body` with a pointer valid for `bytes.count` bytes (a valid pointer even when
  /// `bytes` is empty, since libsodium declares its pointers nonnull).
  static func withBytes<Result>(
    _ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) -> Result
  ) -> Result {
    if bytes.isEmpty {
      var placeholder: UInt8 = 0
      return withUnsafePointer(to: &placeholder) { body($0, 0) }
    }
    return bytes.withUnsafeBufferPointer { body($0.baseAddress.unsafelyUnwrapped, $0.count) }
  }
}
