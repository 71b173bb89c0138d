#if canImport(Glibc)
  import Glibc
#endif

/// Scans of bytes sixteen at a time, for JSON text and content search.
enum ByteScan {
  /// The lanes of `mask` as two words of eight bits a lane, all ones where set; lane 0 is
  /// the lowest byte of `low`. Cheaper than asking each lane, or `any(_:)`, which Swift does
  /// not turn into one instruction.
  @inline(__always)
  static func lanes(_ mask: SIMDMask<SIMD16<Int8>>) -> (low: UInt64, high: UInt64) {
    let flags = SIMD16<UInt8>(repeating: 0).replacing(with: 0xFF, where: mask)
    let words = unsafeBitCast(flags, to: SIMD2<UInt64>.self)
    return (UInt64(littleEndian: words[0]), UInt64(littleEndian: words[1]))
  }

  /// The first lane set in `lanes`, or `nil`.
  @inline(__always)
  static func firstLane(_ lanes: (low: UInt64, high: UInt64)) -> Int? {
    if lanes.low != 0 { return lanes.low.trailingZeroBitCount >> 3 }
    if lanes.high != 0 { return 8 + lanes.high.trailingZeroBitCount >> 3 }
    return nil
  }

  /// `lanes` without its first lane set.
  @inline(__always)
  static func droppingFirstLane(_ lanes: (low: UInt64, high: UInt64)) -> (low: UInt64, high: UInt64)
  {
    if lanes.low != 0 {
      return (lanes.low & ~(0xFF << UInt64(lanes.low.trailingZeroBitCount & ~7)), lanes.high)
    }
    return (0, lanes.high & ~(0xFF << UInt64(lanes.high.trailingZeroBitCount & ~7)))
  }

  /// The offset of the first `byte` in `base[from..<end]`, or `nil`. Bytes near `from` are
  /// looked at sixteen at a time in line; far ones through `memchr`, faster on long runs.
  @inline(__always)
  static func firstOffset(
    of byte: UInt8, in base: UnsafePointer<UInt8>, from: Int, to end: Int
  ) -> Int? {
    let raw = UnsafeRawPointer(base)
    let wanted = SIMD16<UInt8>(repeating: byte)
    var offset = from
    let nearEnd = min(end, from + 64)
    while offset + 16 <= nearEnd {
      let chunk = raw.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
      if let lane = firstLane(lanes(chunk .== wanted)) { return offset + lane }
      offset += 16
    }
    guard offset < end, let found = memchr(raw + offset, Int32(byte), end - offset) else {
      return nil
    }
    return raw.distance(to: UnsafeRawPointer(found))
  }

  /// Whether `needle` occurs in `haystack` (an empty needle occurs everywhere).
  static func contains(_ needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer)
    -> Bool
  {
    firstIndex(of: needle, in: haystack) != nil
  }

  /// Where `needle` first starts in `haystack` (0 for an empty needle), or `nil`.
  static func firstIndex(of needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer)
    -> Int?
  {
    guard let first = needle.first, let needleBase = needle.baseAddress else { return 0 }
    guard let base = haystack.baseAddress, needle.count <= haystack.count else { return nil }
    // `memchr` for the first byte, `memcmp` for the rest (Glibc's `memmem` is not exported).
    var position = 0
    let last = haystack.count - needle.count
    while position <= last {
      guard let found = memchr(base + position, Int32(first), last - position + 1) else {
        return nil
      }
      let index = base.distance(to: UnsafeRawPointer(found))
      if memcmp(base + index, needleBase, needle.count) == 0 { return index }
      position = index + 1
    }
    return nil
  }
}
