/// How many terminal columns text takes, approximating `wcwidth` with the main ranges.
enum DisplayWidth {
  /// The columns `text` takes: East Asian wide and fullwidth characters and emoji count 2;
  /// combining marks, zero-width joiners and spaces, variation selectors and controls 0;
  /// everything else 1. A character (grapheme cluster) counts its widest scalar, and 2 when
  /// it holds the emoji variation selector U+FE0F.
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

  /// The columns one scalar takes on its own.
  static func of(_ scalar: Unicode.Scalar) -> Int {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: 0
    case 0x0300...0x036F, 0x1AB0...0x1AFF, 0x1DC0...0x1DFF, 0x200B...0x200F, 0x2060...0x2064,
      0x20D0...0x20FF, 0xFE00...0xFE0F, 0xFE20...0xFE2F, 0x1F3FB...0x1F3FF, 0xE0100...0xE01EF:
      0
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3040...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF,
      0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F1E6...0x1F1FF, 0x1F300...0x1F64F,
      0x1F680...0x1F6FF, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
      2
    default: 1
    }
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
