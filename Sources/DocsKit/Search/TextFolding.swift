/// Folding for search: letters that Unicode decomposes into a base letter and combining
/// marks fold to the base letter, in every script (`é` → `e`, Greek `ά` → `α`, `ϊ` → `ι`,
/// Cyrillic `й` → `и`, Swedish `å` → `a`), and Greek final `ς` to `σ`; combining
/// diacritical marks typed on their own are dropped. Kana keep their voiced-sound marks
/// (`が` is not `か`), and CJK, Hangul and letters without a decomposition (`ø`, `ł`) are
/// left as they are. The search index's tokenizer applies it to every token after
/// unicode61 has folded case, so the index and a query fold alike.
enum TextFolding {
  /// The letter `value` folds to, when it is one that folds: a binary search of
  /// ``foldingLetters``.
  static func base(of value: UInt32) -> UInt32? {
    var low = 0
    var high = foldingLetters.count
    while low < high {
      let middle = (low + high) / 2
      let letter = foldingLetters[middle]
      if letter == value { return foldedLetters[middle] }
      if letter < value { low = middle + 1 } else { high = middle }
    }
    return nil
  }

  /// Whether `scalar` is a combining diacritical mark that folding drops.
  static func isDiacriticalMark(_ value: UInt32) -> Bool {
    (0x300...0x36F).contains(value) || (0x1AB0...0x1AFF).contains(value)
      || (0x1DC0...0x1DFF).contains(value) || (0x20D0...0x20FF).contains(value)
      || (0xFE20...0xFE2F).contains(value)
  }

  /// Whether `value` may be in ``foldingLetters`` (CJK and most of the planes are not).
  @inline(__always)
  static func mayFold(_ value: UInt32) -> Bool {
    value < 0x2200 || (0xFB1D...0xFB4F).contains(value) || (0x11000...0x111FF).contains(value)
  }

  /// `token` (UTF-8) folded into `output`; `false` when folding changes nothing (`output`
  /// then holds no meaning) or `token` is not UTF-8. An all-ASCII token never changes:
  /// callers check that first. Scalars that stay are copied as their bytes, so that nothing
  /// is decoded and encoded again but what folds.
  static func fold(_ token: UnsafeRawBufferPointer, into output: inout [UInt8]) -> Bool {
    output.removeAll(keepingCapacity: true)
    guard let bytes = token.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
    let count = token.count
    var changed = false
    var position = 0
    while position < count {
      let lead = bytes[position]
      guard lead >= 0x80 else {
        output.append(lead)
        position += 1
        continue
      }
      let width: Int
      var value: UInt32
      switch lead {
      case 0xC2...0xDF: (width, value) = (2, UInt32(lead & 0x1F))
      case 0xE0...0xEF: (width, value) = (3, UInt32(lead & 0x0F))
      case 0xF0...0xF4: (width, value) = (4, UInt32(lead & 0x07))
      default: return false
      }
      guard position + width <= count else { return false }
      for offset in 1..<width {
        let byte = bytes[position + offset]
        guard byte & 0xC0 == 0x80 else { return false }
        value = value << 6 | UInt32(byte & 0x3F)
      }
      if !mayFold(value) {
        output.append(contentsOf: UnsafeBufferPointer(start: bytes + position, count: width))
      } else if isDiacriticalMark(value) {
        changed = true
      } else if let base = base(of: value), let folded = Unicode.Scalar(base) {
        UTF8.encode(folded) { output.append($0) }
        changed = true
      } else {
        output.append(contentsOf: UnsafeBufferPointer(start: bytes + position, count: width))
      }
      position += width
    }
    return changed
  }

  /// `text` folded as the index folds a token (for tests and callers holding a `String`).
  static func fold(_ text: String) -> String {
    var text = text
    var output: [UInt8] = []
    let changed = text.withUTF8 { fold(UnsafeRawBufferPointer($0), into: &output) }
    return changed ? String(decoding: output, as: UTF8.self) : text
  }
}
