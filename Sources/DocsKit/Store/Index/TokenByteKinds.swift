/// What each of the 256 bytes is to a word of the `docsh` tokenizer, looked up once a byte:
/// ``separator``, ``wordByte``, ``uppercase`` or ``nonASCII``. Their bits are chosen so
/// that the kinds of a word's bytes or-ed together say which kinds it holds.
final class TokenByteKinds {
  /// An ASCII byte that is not a letter or a digit.
  static let separator: UInt8 = 0
  /// A lower-case ASCII letter or a digit.
  static let wordByte: UInt8 = 1
  /// An upper-case ASCII letter.
  static let uppercase: UInt8 = 3
  /// A byte of a character beyond ASCII.
  static let nonASCII: UInt8 = 5

  /// The kind of each byte, by its value.
  let table: UnsafeMutablePointer<UInt8>

  init() {
    table = .allocate(capacity: 256)
    for byte in 0..<256 {
      table[byte] =
        switch UInt8(byte) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
          TokenByteKinds.wordByte
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): TokenByteKinds.uppercase
        case 0x80...: TokenByteKinds.nonASCII
        default: TokenByteKinds.separator
        }
    }
  }

  deinit {
    table.deallocate()
  }
}
