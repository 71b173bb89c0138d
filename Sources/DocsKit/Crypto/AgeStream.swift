// The payload of an age v1 file: STREAM over ChaCha20-Poly1305.
//
// Invariants: the payload is a 16-byte nonce, then chunks of 64 KiB of plaintext (65,552
// bytes with the tag) of which only the last may be shorter; the last chunk, and only it, is
// sealed with the final flag; it is empty only when the whole plaintext is. The chunk nonce
// is an 11-byte big-endian counter from zero, then 0x01 for the final chunk, 0x00 otherwise.
// payload key = HKDF-SHA-256(ikm = file key, salt = nonce, info = "payload"). Nothing may
// follow the final chunk: the file's length fixes which chunk is the last.

enum AgeStream {
  static let chunkSize = 64 * 1024
  static let nonceLength = 16
  private static let sealedChunkSize = chunkSize + Sodium.tagLength
  private static let info = Array("payload".utf8)

  /// The number of chunks a plaintext of `count` bytes is cut into (one for an empty one).
  static func chunkCount(plaintextCount count: Int) -> Int {
    max(1, (count + chunkSize - 1) / chunkSize)
  }

  /// `header` followed by the payload for `plaintext` under `fileKey`, in one buffer
  /// allocated once and written once (no zero fill, no growth: a sync encrypts every
  /// document of a store this way).
  /// - Throws: `AgeError.randomFailure` when no nonce can be drawn.
  static func seal(_ plaintext: [UInt8], fileKey: [UInt8], after header: [UInt8])
    throws(AgeError) -> [UInt8]
  {
    let nonce = try Sodium.randomBytes(nonceLength)
    var key = HKDF.derive(ikm: fileKey, salt: nonce, info: info)
    defer { Sodium.zero(&key) }
    let chunks = chunkCount(plaintextCount: plaintext.count)
    let sealedStart = header.count + nonceLength
    let total = sealedStart + plaintext.count + chunks * Sodium.tagLength
    var chunkNonce = [UInt8](repeating: 0, count: Sodium.nonceLength)
    return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
      let out = buffer.baseAddress.unsafelyUnwrapped
      header.withUnsafeBufferPointer { header in
        if let base = header.baseAddress { out.initialize(from: base, count: header.count) }
      }
      nonce.withUnsafeBufferPointer { nonce in
        (out + header.count).initialize(
          from: nonce.baseAddress.unsafelyUnwrapped, count: nonceLength)
      }
      Sodium.withBytes(plaintext) { plaintext, plaintextCount in
        key.withUnsafeBufferPointer { key in
          for index in 0..<chunks {
            setNonce(&chunkNonce, counter: index, final: index == chunks - 1)
            let offset = index * chunkSize
            let count = min(chunkSize, plaintextCount - offset)
            chunkNonce.withUnsafeBufferPointer { nonce in
              Sodium.seal(
                key: key.baseAddress.unsafelyUnwrapped, nonce: nonce.baseAddress.unsafelyUnwrapped,
                plaintext: plaintext + offset, count: count,
                into: out + sealedStart + index * sealedChunkSize)
            }
          }
        }
      }
      initialized = total
    }
  }

  /// The plaintext of the payload that starts at `start` in `file`.
  /// - Throws: `AgeError.malformed` when the nonce is missing or short, there are no chunks,
  ///   a chunk is shorter than its tag or the final chunk is empty in a non-empty payload;
  ///   `AgeError.authenticationFailed` when a chunk does not authenticate (changed, cut, a
  ///   final flag in the wrong place, trailing data).
  static func open(_ file: [UInt8], from start: Int, fileKey: [UInt8]) throws(AgeError)
    -> [UInt8]
  {
    guard file.count - start >= nonceLength else {
      throw .malformed("the payload's nonce is missing or short")
    }
    let nonce = Array(file[start..<(start + nonceLength)])
    let sealedStart = start + nonceLength
    let sealedCount = file.count - sealedStart
    guard sealedCount > 0 else { throw .malformed("the payload has no chunk") }
    let chunks = (sealedCount + sealedChunkSize - 1) / sealedChunkSize
    let lastCount = sealedCount - (chunks - 1) * sealedChunkSize
    guard lastCount >= Sodium.tagLength else {
      throw .malformed("the payload's last chunk is shorter than its tag")
    }
    guard lastCount > Sodium.tagLength || chunks == 1 else {
      throw .malformed("the payload's final chunk is empty")
    }
    let plaintextCount = sealedCount - chunks * Sodium.tagLength
    var key = HKDF.derive(ikm: fileKey, salt: nonce, info: info)
    defer { Sodium.zero(&key) }
    var chunkNonce = [UInt8](repeating: 0, count: Sodium.nonceLength)
    var authentic = true
    let plaintext = [UInt8](unsafeUninitializedCapacity: max(plaintextCount, 1)) {
      buffer, initialized in
      let out = buffer.baseAddress.unsafelyUnwrapped
      file.withUnsafeBufferPointer { file in
        key.withUnsafeBufferPointer { key in
          for index in 0..<chunks {
            setNonce(&chunkNonce, counter: index, final: index == chunks - 1)
            let count = index == chunks - 1 ? lastCount : sealedChunkSize
            let opened = chunkNonce.withUnsafeBufferPointer { nonce in
              Sodium.open(
                key: key.baseAddress.unsafelyUnwrapped, nonce: nonce.baseAddress.unsafelyUnwrapped,
                ciphertext: file.baseAddress.unsafelyUnwrapped + sealedStart + index
                  * sealedChunkSize,
                count: count, into: out + index * chunkSize)
            }
            guard opened else {
              authentic = false
              break
            }
          }
        }
      }
      if !authentic {
        // What was released before the failure is not returned: wipe it.
        Sodium.zero(UnsafeMutableRawPointer(out), count: buffer.count)
      }
      initialized = authentic ? plaintextCount : 0
    }
    guard authentic else { throw .authenticationFailed }
    return plaintext
  }

  /// The chunk nonce: `counter` as 11 big-endian bytes, then the final flag.
  private static func setNonce(_ nonce: inout [UInt8], counter: Int, final: Bool) {
    var value = UInt64(counter)
    for index in stride(from: 10, through: 0, by: -1) {
      nonce[index] = UInt8(truncatingIfNeeded: value)
      value >>= 8
    }
    nonce[11] = final ? 1 : 0
  }
}
