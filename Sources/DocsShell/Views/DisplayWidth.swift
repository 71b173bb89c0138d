/// How many terminal columns text takes: `wcwidth` per scalar, from the table generated from
/// Unicode's data (``DisplayWidthTable``, by `scripts/generate-width-table.py`).
enum DisplayWidth {
  /// The columns `text` takes: East Asian wide and fullwidth characters (CJK, most emoji)
  /// count 2; combining marks, format characters such as the zero-width joiner, and
  /// controls 0; everything else 1. A character (grapheme cluster) counts its widest
  /// scalar, and 2 when it holds the emoji variation selector U+FE0F.
  static func of(_ text: String) -> Int {
    if isPrintableASCII(text) { return text.utf8.count }
    var width = 0
    for character in text {
      var widest = 0
      for scalar in character.unicodeScalars {
        if scalar.value == 0xFE0F {
          widest = 2
          break
        }
        widest = max(widest, of(scalar))
      }
      width += widest
    }
    return width
  }

  /// The columns one scalar takes on its own: what `wcwidth()` of the Python package says,
  /// with 0 for the C0 and C1 controls, for which it says -1.
  static func of(_ scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    if value >= 0x20 && value < 0x7F { return 1 }
    if value < 0xA0 && (value < 0x20 || value >= 0x7F) { return 0 }
    if isIn(value, DisplayWidthTable.zeroWidth) { return 0 }
    if isIn(value, DisplayWidthTable.wide) { return 2 }
    return 1
  }

  /// Whether `value` lies in one of the ranges of `bounds` (sorted pairs of first and last).
  private static func isIn(_ value: UInt32, _ bounds: [UInt32]) -> Bool {
    var low = 0
    var high = bounds.count / 2
    while low < high {
      let middle = (low + high) / 2
      if value < bounds[2 * middle] {
        high = middle
      } else if value > bounds[2 * middle + 1] {
        low = middle + 1
      } else {
        return true
      }
    }
    return false
  }

  /// Whether `text` is all printable ASCII, read as one run of bytes.
  static func isPrintableASCII(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      for byte in bytes where byte < 0x20 || byte >= 0x7F { return false }
      return true
    }
  }
}
