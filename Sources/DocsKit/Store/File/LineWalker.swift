#if canImport(Glibc)
  import Glibc
#endif

/// The lines of a content's bytes, walked forward once: where each line starts and ends,
/// without decoding what lies between. A content search finds candidates in the bytes, then
/// asks a walker which line each is on and decodes only the lines it reports.
///
/// Lines are split at line feeds; a carriage return right before one is not part of the
/// line; the piece after a final line feed is reported too (grep's search leaves it out when
/// it is empty, as grep reads a file). Lines count from 1.
protocol LineWalker {
  /// A walker at the start of `bytes`.
  init(_ bytes: UnsafeRawBufferPointer)
  /// The number of the line the walker is on.
  var lineNumber: Int { get }
  /// Where that line starts.
  var lineStart: Int { get }
  /// How the bytes spell `text`.
  static func spelling(of text: String) -> [UInt8]
  /// Whether each character of `bytes` has the one spelling ``spelling(of:)`` gives it, so
  /// that a search for a needle's spelling cannot miss it. When not, the bytes must be
  /// decoded and searched as plain text instead.
  static func spellsEachCharacterOneWay(_ bytes: UnsafeRawBufferPointer) -> Bool
  /// Whether `offset` is where a character or an escape starts, not inside an escape.
  func startsCharacter(at offset: Int) -> Bool
  /// Walks to `offset` (at or after where the walker is), onto the line that holds it;
  /// `false` when `offset` is inside an escape, which is then stepped over.
  mutating func advance(to offset: Int) -> Bool
  /// Walks to the end of the current line: its end (a carriage return before the break
  /// left out) and where the next line starts, `nil` for the last line. The walker stays on
  /// the line until ``startLine(at:)``.
  mutating func finishLine() -> (end: Int, next: Int?)
  /// Moves to the line starting at `offset`, as ``finishLine()`` reported it.
  mutating func startLine(at offset: Int)
  /// The text of `range`, part of a line.
  /// - Throws: ``JSONTextError`` when those bytes do not spell text.
  func text(of range: Range<Int>) throws(JSONTextError) -> String
  /// The text of `range` as UTF-8, appended to `bytes` (no string made for it).
  /// - Throws: ``JSONTextError`` when those bytes do not spell text.
  func appendText(of range: Range<Int>, to bytes: inout [UInt8]) throws(JSONTextError)
}

extension LineWalker {
  /// Walks to the line numbered `number` (at or after the current one) and reports where
  /// it starts and ends; `nil` when there are fewer lines.
  mutating func line(numbered number: Int) -> Range<Int>? {
    while true {
      let (end, next) = finishLine()
      if lineNumber == number { return lineStart..<end }
      guard let next, lineNumber < number else { return nil }
      startLine(at: next)
    }
  }
}

/// The lines of plain UTF-8 text: a String's bytes, or a content a store keeps decoded.
struct PlainTextLines: LineWalker {
  private let base: UnsafePointer<UInt8>?
  private let count: Int
  private var position = 0

  private(set) var lineNumber = 1
  private(set) var lineStart = 0
  static func spellsEachCharacterOneWay(_ bytes: UnsafeRawBufferPointer) -> Bool { true }

  func startsCharacter(at offset: Int) -> Bool { true }

  init(_ bytes: UnsafeRawBufferPointer) {
    base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
    count = bytes.count
  }

  static func spelling(of text: String) -> [UInt8] { Array(text.utf8) }

  mutating func advance(to offset: Int) -> Bool {
    guard let base, offset > position else { return true }
    while position < offset,
      let lineFeed = ByteScan.firstOffset(of: 0x0A, in: base, from: position, to: offset)
    {
      position = lineFeed + 1
      lineNumber += 1
      lineStart = position
    }
    position = offset
    return true
  }

  mutating func finishLine() -> (end: Int, next: Int?) {
    guard let base, position < count,
      let lineFeed = ByteScan.firstOffset(of: 0x0A, in: base, from: position, to: count)
    else {
      position = count
      return (count, nil)
    }
    position = lineFeed
    let end = lineFeed > lineStart && base[lineFeed - 1] == 0x0D ? lineFeed - 1 : lineFeed
    return (end, lineFeed + 1)
  }

  mutating func startLine(at offset: Int) {
    position = offset
    lineStart = offset
    lineNumber += 1
  }

  func text(of range: Range<Int>) throws(JSONTextError) -> String {
    let bytes = UnsafeBufferPointer(start: base.map { $0 + range.lowerBound }, count: range.count)
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw JSONTextError(offset: range.lowerBound, reason: JSONText.invalidUTF8)
    }
    return text
  }

  func appendText(of range: Range<Int>, to bytes: inout [UInt8]) throws(JSONTextError) {
    let line = UnsafeRawBufferPointer(
      start: base.map { UnsafeRawPointer($0 + range.lowerBound) }, count: range.count)
    // ASCII is text; anything else is checked as `text(of:)` checks it.
    guard JSONText.isASCII(line) else { return bytes.append(contentsOf: try text(of: range).utf8) }
    bytes.append(contentsOf: line)
  }
}
