#if canImport(Glibc)
  import Glibc
#endif

/// The English stems the index's tokenizer found lately, by token: a document's words repeat,
/// and asking FTS5's Porter stemmer again (through two tokenizers and three callbacks) cost
/// several times a look-up here. A fixed table of slots and a fixed arena of bytes: when
/// either fills, it starts again empty, so it never grows past about 280 KB.
final class StemCache {
  /// What the cache knows of a token.
  enum Found {
    /// Nothing: ask the stemmer.
    case missing
    /// The token is its own stem (or has none).
    case same
    /// Its stem, valid until the next ``insert(_:stem:)``.
    case stem(UnsafeRawBufferPointer)
  }

  /// The longest token kept (FTS5's Porter stemmer leaves longer ones as they are).
  static let longestToken = 64

  private static let slotCount = 4096
  private static let arenaCapacity = 256 * 1024
  /// How many slots past a token's own one a look-up tries.
  private static let probes = 8

  /// Each slot's hash, 0 when the slot is empty (hashes are never 0).
  private let hashes: UnsafeMutablePointer<UInt32>
  /// Each slot's token, then its stem, in `arena`.
  private let offsets: UnsafeMutablePointer<Int32>
  private let tokenLengths: UnsafeMutablePointer<UInt8>
  /// The stem's length; ``sameStem`` when the token is its own.
  private let stemLengths: UnsafeMutablePointer<UInt8>
  private let arena: UnsafeMutablePointer<UInt8>
  private var arenaCount = 0
  private var entryCount = 0
  private static let sameStem: UInt8 = 0xFF

  /// Only the hashes start set: a slot's other fields are read once its hash is, and every
  /// tokenizer makes a cache, most of them (a query's) never used.
  init() {
    hashes = .allocate(capacity: StemCache.slotCount)
    hashes.initialize(repeating: 0, count: StemCache.slotCount)
    offsets = .allocate(capacity: StemCache.slotCount)
    tokenLengths = .allocate(capacity: StemCache.slotCount)
    stemLengths = .allocate(capacity: StemCache.slotCount)
    arena = .allocate(capacity: StemCache.arenaCapacity)
  }

  deinit {
    hashes.deallocate()
    offsets.deallocate()
    tokenLengths.deallocate()
    stemLengths.deallocate()
    arena.deallocate()
  }

  /// What the cache holds for `token`.
  func find(_ token: UnsafeRawBufferPointer) -> Found {
    guard token.count <= StemCache.longestToken, let base = token.baseAddress else {
      return .missing
    }
    let hash = StemCache.hash(token)
    let mask = StemCache.slotCount - 1
    var slot = Int(hash) & mask
    for _ in 0..<StemCache.probes {
      let held = hashes[slot]
      if held == 0 { return .missing }
      if held == hash, Int(tokenLengths[slot]) == token.count,
        StemCache.equal(arena + Int(offsets[slot]), base, count: token.count)
      {
        let stemLength = stemLengths[slot]
        if stemLength == StemCache.sameStem { return .same }
        return .stem(
          UnsafeRawBufferPointer(
            start: arena + Int(offsets[slot]) + token.count, count: Int(stemLength)))
      }
      slot = (slot + 1) & mask
    }
    return .missing
  }

  /// Keeps `token`'s stem (`nil` or empty: the token is its own stem, or has none).
  func insert(_ token: UnsafeRawBufferPointer, stem: UnsafeRawBufferPointer?) {
    guard token.count <= StemCache.longestToken, let base = token.baseAddress,
      (stem?.count ?? 0) <= StemCache.longestToken
    else { return }
    let needed = token.count + (stem?.count ?? 0)
    if arenaCount + needed > StemCache.arenaCapacity
      || entryCount >= StemCache.slotCount * 3 / 4
    {
      hashes.update(repeating: 0, count: StemCache.slotCount)
      arenaCount = 0
      entryCount = 0
    }
    let hash = StemCache.hash(token)
    let mask = StemCache.slotCount - 1
    let home = Int(hash) & mask
    var slot = home
    var probe = 0
    while probe < StemCache.probes, hashes[slot] != 0 {
      slot = (slot + 1) & mask
      probe += 1
    }
    if probe == StemCache.probes {
      slot = home
    } else {
      entryCount += 1
    }
    hashes[slot] = hash
    offsets[slot] = Int32(arenaCount)
    tokenLengths[slot] = UInt8(token.count)
    (arena + arenaCount).update(from: base.assumingMemoryBound(to: UInt8.self), count: token.count)
    arenaCount += token.count
    if let stem, stem.count > 0, let stemBase = stem.baseAddress {
      stemLengths[slot] = UInt8(stem.count)
      (arena + arenaCount).update(
        from: stemBase.assumingMemoryBound(to: UInt8.self), count: stem.count)
      arenaCount += stem.count
    } else {
      stemLengths[slot] = StemCache.sameStem
    }
  }

  /// FNV-1a of `bytes`, never 0.
  @inline(__always)
  private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 1 }
    var hash: UInt32 = 2_166_136_261
    for index in 0..<bytes.count {
      hash = (hash ^ UInt32(base[index])) &* 16_777_619
    }
    return hash == 0 ? 1 : hash
  }

  /// Whether `count` bytes at `held` and at `wanted` are the same (tokens are short: a
  /// loop here costs less than calling memcmp).
  @inline(__always)
  private static func equal(
    _ held: UnsafeMutablePointer<UInt8>, _ wanted: UnsafeRawPointer, count: Int
  ) -> Bool {
    let wanted = wanted.assumingMemoryBound(to: UInt8.self)
    for index in 0..<count where held[index] != wanted[index] { return false }
    return true
  }
}
