/// The front matter that opens a document file and makes up a category record: a line `---`,
/// `key: value` lines, a line `---` (the convention of Jekyll, Hugo and most note apps).
///
/// Only the lines of the header are looked at; the bytes after the closing line are the
/// caller's, untouched. Header lines may end in `\n` or `\r\n`.
struct FrontMatter {
  /// One line between the opening and the closing line, its line end (and a `\r`) dropped.
  struct Line {
    /// The line's bytes.
    var bytes: ArraySlice<UInt8>
    /// Its number in the file, counting the opening `---` as line 1.
    var number: Int
    /// Where it lies in the file, its line end included.
    var range: Range<Int> = 0..<0

    /// The text before the first `:`; `nil` when the line has no `:` or nothing before it.
    var key: ArraySlice<UInt8>? {
      guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > bytes.startIndex
      else { return nil }
      return bytes[..<colon]
    }

    /// The text after the first `:`, without the spaces and tabs around it.
    var value: String {
      guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return "" }
      var rest = bytes[(colon + 1)...]
      while let first = rest.first, FrontMatter.isBlank(first) { rest.removeFirst() }
      while let last = rest.last, FrontMatter.isBlank(last) { rest.removeLast() }
      return String(decoding: rest, as: UTF8.self)
    }
  }

  /// The lines between the opening and the closing line; all lines to the end of the file
  /// when there is no closing line.
  var lines: [Line]
  /// Whether a closing `---` line ends the header.
  var isClosed: Bool
  /// Where the closing line starts (the end of the file when not closed).
  var closingLineStart: Int
  /// Where the bytes after the closing line start (the end of the file when not closed).
  var end: Int

  /// The UTF-8 byte order mark, which some Windows editors write before the first line.
  static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

  /// The header at `start` of `bytes`; `nil` when no line `---` opens it there.
  init?(scanning bytes: [UInt8], from start: Int) {
    guard let first = FrontMatter.lineEnd(in: bytes, from: start),
      FrontMatter.isDelimiter(bytes[start..<first.contentEnd]), first.next > first.contentEnd
    else { return nil }
    var lines: [Line] = []
    var position = first.next
    var number = 2
    while position < bytes.count, let line = FrontMatter.lineEnd(in: bytes, from: position) {
      let text = bytes[position..<line.contentEnd]
      if FrontMatter.isDelimiter(text) {
        self.lines = lines
        isClosed = true
        closingLineStart = position
        end = line.next
        return
      }
      lines.append(Line(bytes: text, number: number, range: position..<line.next))
      number += 1
      position = line.next
    }
    self.lines = lines
    isClosed = false
    closingLineStart = bytes.count
    end = bytes.count
  }

  /// Whether any line's key is `key`: an `id:` line is what makes a header docsh's.
  func hasKey(_ key: String) -> Bool {
    lines.contains { $0.key.map { $0.elementsEqual(key.utf8) } ?? false }
  }

  /// The value of each of `keys`, in the order given (`nil` for one that is missing).
  ///
  /// Every line must be `key: value` with one of `keys`, each key at most once.
  func values(of keys: [String]) -> Result<[(value: String, line: Int)?], FrontMatterProblem> {
    var found: [(value: String, line: Int)?] = Array(repeating: nil, count: keys.count)
    for line in lines {
      guard let key = line.key else { return .failure(.malformedLine(line: line.number)) }
      let name = String(decoding: key, as: UTF8.self)
      guard let index = keys.firstIndex(of: name) else {
        return .failure(.unknownKey(name, line: line.number))
      }
      guard found[index] == nil else { return .failure(.duplicateKey(name, line: line.number)) }
      found[index] = (line.value, line.number)
    }
    return .success(found)
  }

  /// The line from `start`: where its text ends (before `\r\n` or `\n`) and where the next
  /// one starts; the last line of a file may have no line end. `nil` at the end of the file.
  private static func lineEnd(in bytes: [UInt8], from start: Int) -> (contentEnd: Int, next: Int)? {
    guard start < bytes.count else { return nil }
    guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
      return (bytes.count, bytes.count)
    }
    let contentEnd =
      newline > start && bytes[newline - 1] == UInt8(ascii: "\r") ? newline - 1 : newline
    return (contentEnd, newline + 1)
  }

  private static func isDelimiter(_ line: ArraySlice<UInt8>) -> Bool {
    line.elementsEqual("---".utf8)
  }

  fileprivate static func isBlank(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
  }
}

/// Why a document file or a category record was not read.
public enum FrontMatterProblem: Error, Equatable, Sendable {
  /// The file is not valid UTF-8.
  case notUTF8
  /// A category record that does not open with a front-matter header.
  case noHeader
  /// The opening `---` has no closing `---`, and an `id:` line follows it.
  case unclosedHeader
  /// A header line that is not `key: value`.
  case malformedLine(line: Int)
  /// A key docsh does not write, in a header with an `id:`.
  case unknownKey(String, line: Int)
  /// A key given twice.
  case duplicateKey(String, line: Int)
  /// A key docsh needs that the header lacks.
  case missingKey(String)
  /// An `id:` that is not a UUID.
  case malformedID(String, line: Int)
  /// A `modified:` that is not an ISO 8601 time docsh can write back.
  case malformedTimestamp(String, line: Int)
  /// A word of the `tags:` line is not a tag.
  case malformedTags(String, TagError, line: Int)
  /// A category record's `name:` that is not a valid name.
  case invalidName(String, NameError, line: Int)
  /// Text after a category record's closing line.
  case contentAfterHeader(line: Int)
}

extension FrontMatterProblem: CustomStringConvertible {
  public var description: String {
    switch self {
    case .notUTF8:
      return "the file is not UTF-8 text"
    case .noHeader:
      return "the file does not start with a \"---\" header"
    case .unclosedHeader:
      return "the header that starts on line 1 has no closing \"---\" line"
    case .malformedLine(let line):
      return "line \(line) of the header is not \"key: value\""
    case .unknownKey(let key, let line):
      return "line \(line): unknown key \"\(key)\""
    case .duplicateKey(let key, let line):
      return "line \(line): \"\(key)\" is given twice"
    case .missingKey(let key):
      return "the header has no \"\(key):\" line"
    case .malformedID(let value, let line):
      return "line \(line): \"\(value)\" is not a UUID"
    case .malformedTimestamp(let value, let line):
      return "line \(line): \"\(value)\" is not a time like 2026-12-01T23:29:00.123Z"
    case .malformedTags(_, let error, let line):
      return "line \(line): \(error)"
    case .invalidName(_, let error, let line):
      return "line \(line): \(error)"
    case .contentAfterHeader(let line):
      return "line \(line): a category record holds only its header"
    }
  }
}
