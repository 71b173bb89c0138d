// The lines a content search keeps of one document, for `grep` to print as they are.

/// Lines of text held as their UTF-8 bytes one after the other, with each one's number: no
/// string per line (a search of a common word finds hundreds of thousands).
struct LineBuffer: Sendable {
  /// The lines' bytes, without line breaks.
  var bytes: [UInt8] = []
  /// Each line's number, counting from 1.
  var numbers: [Int] = []
  /// Where each line's bytes end in `bytes`.
  var ends: [Int] = []

  /// How many lines it holds.
  var count: Int { numbers.count }

  /// Whether it holds no line.
  var isEmpty: Bool { numbers.isEmpty }

  /// Each line's number and text, a string each (tests read them so).
  var pairs: [(number: Int, text: String)] {
    var pairs: [(number: Int, text: String)] = []
    forEach { pairs.append(($0, String(decoding: $1, as: UTF8.self))) }
    return pairs
  }

  /// Adds line `number`, whose bytes `write` appends.
  mutating func append(
    number: Int, _ write: (inout [UInt8]) throws(JSONTextError) -> Void
  ) throws(JSONTextError) {
    try write(&bytes)
    numbers.append(number)
    ends.append(bytes.count)
  }

  /// Calls `body` with each line's number and bytes, in order.
  func forEach(_ body: (Int, UnsafeRawBufferPointer) throws -> Void) rethrows {
    try bytes.withUnsafeBytes { all in
      var start = 0
      for index in numbers.indices {
        let end = ends[index]
        try body(numbers[index], UnsafeRawBufferPointer(rebasing: all[start..<end]))
        start = end
      }
    }
  }
}
