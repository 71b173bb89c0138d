/// One command of an input line: its words after quote removal and the here-document it takes.
struct ParsedCommand: Equatable, Sendable {
  /// The words, the command name first; empty only for a line like `<<END` that names no command.
  var words: [String]
  /// The line that ends this command's here-document, or `nil` when it takes none.
  var hereDocumentDelimiter: String?
  /// The comment that ended the command's line, from its `#` (`#inline words`); `nil` when
  /// none did. Kept so that an error can say a `#` swallowed words meant as arguments.
  var comment: String?

  /// Makes a command from its words and, optionally, a here-document delimiter and the
  /// comment that ended it.
  init(words: [String], hereDocumentDelimiter: String? = nil, comment: String? = nil) {
    self.words = words
    self.hereDocumentDelimiter = hereDocumentDelimiter
    self.comment = comment
  }
}

/// Why a line could not be split into commands; columns count characters from 1.
enum TokenizerError: Error, Equatable, Sendable {
  /// A `'` opened at `column` has no closing `'`.
  case unterminatedSingleQuote(column: Int)
  /// A `"` opened at `column` has no closing `"`.
  case unterminatedDoubleQuote(column: Int)
  /// The line ends with a `\` that escapes nothing.
  case trailingBackslash
  /// A word or a command follows the here-document marker `<<delimiter`.
  case hereDocumentNotLast(delimiter: String)
  /// The `<<` at `column` is not followed by a delimiter word.
  case missingHereDocumentDelimiter(column: Int)
  /// The line holds a NUL byte at `column`.
  case nulByte(column: Int)
}

extension TokenizerError: CustomStringConvertible {
  /// One line of text for the user.
  var description: String {
    switch self {
    case .unterminatedSingleQuote(let column):
      "unterminated single quote (opened at column \(column))"
    case .unterminatedDoubleQuote(let column):
      "unterminated double quote (opened at column \(column))"
    case .trailingBackslash:
      "the line ends with a backslash that escapes nothing"
    case .hereDocumentNotLast(let delimiter):
      "the here-document <<\(delimiter) must be the last word of the line"
    case .missingHereDocumentDelimiter(let column):
      "<< at column \(column) is not followed by a delimiter word"
    case .nulByte:
      "the line contains a NUL byte"
    }
  }
}

/// Splits input lines into commands and words with the quoting rules of a small POSIX shell.
///
/// Words are separated by blanks (space, tab). `'…'` quotes literally; inside `"…"` a backslash
/// escapes only `"`, `\`, `$`, `` ` `` and newline; outside quotes a backslash escapes any
/// character. A backslash before a newline joins lines (both vanish). An unquoted `#` that
/// starts a word begins a comment running to the end of the line; an unquoted `;` or newline
/// ends a command; empty commands are skipped. An unquoted word starting with `<<` marks a
/// here-document: its delimiter is the rest of that word, or the next word when nothing follows
/// `<<`, quotes removed; it must be the last word of the last command of the line.
enum Tokenizer {
  /// Splits `line` into its non-empty commands.
  /// - Throws: ``TokenizerError`` for unbalanced quotes, a trailing backslash, a misplaced or
  ///   incomplete here-document marker, or a NUL byte.
  static func commands(in line: String) throws(TokenizerError) -> [ParsedCommand] {
    var line = line
    // Scanned in place: scripts of thousands of lines spend their time here.
    let scanned = line.withUTF8 { bytes in
      Result { () throws(TokenizerError) in try commands(inBytes: bytes) }
    }
    return try scanned.get()
  }

  private static func commands(
    inBytes bytes: UnsafeBufferPointer<UInt8>
  ) throws(TokenizerError) -> [ParsedCommand] {
    if let nul = bytes.firstIndex(of: 0) {
      throw .nulByte(column: column(ofByteOffset: nul, in: bytes))
    }
    var scanner = CommandScanner()
    // Room for a typical line up front: growing these word by word cost more than the scan.
    scanner.words.reserveCapacity(min(bytes.count / 2 + 1, 64))
    scanner.word.reserveCapacity(min(bytes.count, 256))
    var index = 0
    let count = bytes.count
    func append(_ range: Range<Int>) {
      scanner.word.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
    }
    while index < count {
      let byte = bytes[index]
      switch byte {
      case .space, .tab:
        try scanner.finishWord()
        index += 1
      case .newline, .semicolon:
        try scanner.finishCommand()
        index += 1
      case .hash where !scanner.inWord:
        let start = index
        while index < count, bytes[index] != .newline { index += 1 }
        scanner.comment = String(
          decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
      case .singleQuote:
        var close = index + 1
        while close < count && bytes[close] != .singleQuote { close += 1 }
        guard close < count else {
          throw .unterminatedSingleQuote(column: column(ofByteOffset: index, in: bytes))
        }
        scanner.inWord = true
        append((index + 1)..<close)
        index = close + 1
      case .doubleQuote:
        scanner.inWord = true
        index = try scanDoubleQuoted(bytes, openedAt: index, into: &scanner)
      case .backslash:
        guard index + 1 < count else { throw .trailingBackslash }
        let escaped = bytes[index + 1]
        if escaped != .newline {
          scanner.inWord = true
          scanner.word.append(escaped)
        }
        index += 2
      case .lessThan
      where !scanner.inWord && !scanner.expectingDelimiter && index + 1 < count
        && bytes[index + 1] == .lessThan:
        try scanner.startHereDocument(column: column(ofByteOffset: index, in: bytes))
        index += 2
      default:
        let end = endOfOrdinaryRun(in: bytes, from: index + 1)
        if !scanner.inWord, end == count || endsWord(bytes[end]) {
          // A word that is one run of ordinary bytes (most words) is made from the line's
          // bytes at once, not copied into the word first.
          try scanner.finish(
            String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self))
        } else {
          // A run of ordinary bytes goes into the word in one piece.
          scanner.inWord = true
          append(index..<end)
        }
        index = end
      }
    }
    try scanner.finishCommand()
    return scanner.commands
  }

  /// Adds the text of the `"…"` opened at `open` to the scanner's word, escapes applied.
  /// - Returns: the offset after the closing quote.
  /// - Throws: ``TokenizerError/unterminatedDoubleQuote(column:)`` when it is not closed.
  @inline(__always)
  private static func scanDoubleQuoted(
    _ bytes: UnsafeBufferPointer<UInt8>, openedAt open: Int, into scanner: inout CommandScanner
  ) throws(TokenizerError) -> Int {
    let count = bytes.count
    var cursor = open + 1
    while cursor < count {
      // A run up to the next quote or backslash goes in at once.
      var end = cursor
      while end < count && bytes[end] != .doubleQuote && bytes[end] != .backslash { end += 1 }
      scanner.word.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[cursor..<end]))
      cursor = end
      guard cursor < count else { break }
      if bytes[cursor] == .doubleQuote { return cursor + 1 }
      if cursor + 1 < count, Self.escapableInDoubleQuotes(bytes[cursor + 1]) {
        if bytes[cursor + 1] != .newline { scanner.word.append(bytes[cursor + 1]) }
        cursor += 2
      } else {
        scanner.word.append(.backslash)
        cursor += 1
      }
    }
    throw .unterminatedDoubleQuote(column: column(ofByteOffset: open, in: bytes))
  }

  /// The offset of the first byte from `start` on that ends a run of ordinary bytes: a
  /// blank, a command separator, a quote or a backslash (or the end).
  @inline(__always)
  private static func endOfOrdinaryRun(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int
  {
    var end = start
    while end < bytes.count {
      switch bytes[end] {
      case .space, .tab, .newline, .semicolon, .singleQuote, .doubleQuote, .backslash:
        return end
      default:
        end += 1
      }
    }
    return end
  }

  /// Whether `byte` ends the word before it: a blank or a command separator.
  @inline(__always)
  private static func endsWord(_ byte: UInt8) -> Bool {
    byte == .space || byte == .tab || byte == .newline || byte == .semicolon
  }

  /// `word` written so that the tokenizer reads it back as one word: specials and blanks are
  /// backslash-escaped (`Meeting Notes` → `Meeting\ Notes`); an empty word becomes `''`, and a
  /// word holding a newline is single-quoted, since a backslash-newline joins lines.
  static func escapeWord(_ word: String) -> String {
    if word.isEmpty { return "''" }
    if word.utf8.contains(.newline) { return singleQuoted(word) }
    guard word.utf8.contains(where: needsEscaping) else { return word }
    var escaped = ""
    escaped.reserveCapacity(word.utf8.count + 8)
    for scalar in word.unicodeScalars {
      if scalar.isASCII, needsEscaping(UInt8(scalar.value)) { escaped.unicodeScalars.append("\\") }
      escaped.unicodeScalars.append(scalar)
    }
    return escaped
  }

  /// The text a half-typed word denotes so far: quotes removed (an unclosed quote is taken as
  /// still open), escapes applied, and a final lone backslash dropped.
  /// `"alpha d` and `alpha\ d` both give `alpha d`.
  static func unescapePartialWord(_ text: String) -> String {
    scanPartialWord(Array(text.utf8)[...]).text
  }

  // MARK: - Internals shared with completion

  /// The quoting in force at the end of a partial word.
  enum OpenQuote: Equatable, Sendable {
    /// Not inside quotes.
    case unquoted
    /// Inside `'…'`.
    case single
    /// Inside `"…"`.
    case double
  }

  /// Removes quotes and escapes from a partial word, reporting the quote still open at its end.
  static func scanPartialWord(_ bytes: ArraySlice<UInt8>) -> (text: String, openQuote: OpenQuote) {
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var quote = OpenQuote.unquoted
    var index = bytes.startIndex
    while index < bytes.endIndex {
      let byte = bytes[index]
      switch quote {
      case .single:
        if byte == .singleQuote { quote = .unquoted } else { result.append(byte) }
        index += 1
      case .double:
        if byte == .doubleQuote {
          quote = .unquoted
          index += 1
        } else if byte == .backslash, index + 1 < bytes.endIndex,
          escapableInDoubleQuotes(bytes[index + 1])
        {
          if bytes[index + 1] != .newline { result.append(bytes[index + 1]) }
          index += 2
        } else if byte == .backslash, index + 1 == bytes.endIndex {
          index += 1
        } else {
          result.append(byte)
          index += 1
        }
      case .unquoted:
        switch byte {
        case .singleQuote: quote = .single
        case .doubleQuote: quote = .double
        case .backslash:
          if index + 1 < bytes.endIndex, bytes[index + 1] != .newline {
            result.append(bytes[index + 1])
          }
          index += 1
        default: result.append(byte)
        }
        index += 1
      }
    }
    return (String(decoding: result, as: UTF8.self), quote)
  }

  /// Whether a backslash before `byte` inside double quotes escapes it.
  static func escapableInDoubleQuotes(_ byte: UInt8) -> Bool {
    byte == .doubleQuote || byte == .backslash || byte == .dollar || byte == .backtick
      || byte == .newline
  }

  /// Whether `escapeWord(_:)` puts a backslash before this ASCII byte.
  static func needsEscaping(_ byte: UInt8) -> Bool {
    switch byte {
    case .space, .tab, .singleQuote, .doubleQuote, .backslash, .semicolon, .hash, .dollar,
      .ampersand, .pipe, .openParenthesis, .closeParenthesis, .lessThan, .greaterThan, .asterisk,
      .questionMark, .openBracket, .closeBracket, .tilde, .backtick:
      true
    default:
      false
    }
  }

  /// `text` in single quotes, each `'` written as `'\''`.
  static func singleQuoted(_ text: String) -> String {
    "'" + text.replacing("'", with: "'\\''") + "'"
  }

  /// The 1-based character column of the byte at `offset`, which starts a character.
  private static func column(ofByteOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>)
    -> Int
  {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[..<offset]), as: UTF8.self).count + 1
  }
}

// MARK: - Completion

/// What the user is completing: the command's finished words and the word under the cursor.
///
/// libedit ignores quotes and hands the completer only the text after the last unescaped
/// break character (`d` for `cd "alpha d`). This reads the whole line before the cursor with
/// the tokenizer's rules and turns full candidate words into replacements for libedit's word.
struct CompletionContext: Equatable, Sendable {
  /// The finished words of the command the cursor is in, after quote removal.
  var precedingWords: [String]
  /// What the word under the cursor denotes so far; empty at the start of a new word.
  var partialWord: String
  /// Whether the cursor is in a comment, where nothing should be completed.
  var isInComment: Bool
  /// The word under the cursor as typed, quotes and backslashes included.
  private var typedWord: [UInt8]
  /// The text libedit replaces: a suffix of ``typedWord`` in all but odd cases.
  private var editorWord: [UInt8]

  /// Reads the line before the cursor; `wordBeingCompleted` is the word libedit hands over.
  init(lineBeforeCursor: String, wordBeingCompleted: String) {
    let bytes = Array(lineBeforeCursor.utf8)
    var words: [String] = []
    var wordStart: Int?
    var quote = Tokenizer.OpenQuote.unquoted
    var inComment = false
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if inComment {
        if byte == .newline {
          inComment = false
          words.removeAll()
        }
        index += 1
        continue
      }
      switch quote {
      case .single:
        if byte == .singleQuote { quote = .unquoted }
        index += 1
      case .double:
        if byte == .doubleQuote { quote = .unquoted }
        index += byte == .backslash ? 2 : 1
      case .unquoted:
        switch byte {
        case .space, .tab:
          if let start = wordStart {
            words.append(Tokenizer.scanPartialWord(bytes[start..<index]).text)
            wordStart = nil
          }
        case .newline, .semicolon:
          words.removeAll()
          wordStart = nil
        case .hash where wordStart == nil:
          inComment = true
        case .backslash where index + 1 < bytes.count && bytes[index + 1] == .newline:
          // A line continuation vanishes, as the tokenizer drops it: it starts no word.
          index += 1
        default:
          if wordStart == nil { wordStart = index }
          if byte == .singleQuote { quote = .single }
          if byte == .doubleQuote { quote = .double }
          if byte == .backslash { index += 1 }
        }
        index += 1
      }
    }
    typedWord = wordStart.map { Array(bytes[$0...]) } ?? []
    precedingWords = words
    partialWord = Tokenizer.scanPartialWord(typedWord[...]).text
    isInComment = inComment
    editorWord = Array(wordBeingCompleted.utf8)
  }

  /// The texts that replace libedit's word so that the typed word becomes each candidate.
  ///
  /// `candidates` are full words as they should read after quote removal (`Meeting Notes`);
  /// the replacements keep the user's quoting (`Meeting\ Notes`, or `Notes"` after
  /// `"Meeting `). A lone candidate not ending in `/` also closes an open quote, unless
  /// `closingQuote` is false (a link completed inside a quoted sentence).
  func replacements(for candidates: [String], closingQuote: Bool = true) -> [String] {
    let closes = closingQuote && candidates.count == 1
    guard editorWord.count <= typedWord.count,
      typedWord[(typedWord.count - editorWord.count)...].elementsEqual(editorWord)
    else {
      return candidates.map(Tokenizer.escapeWord)
    }
    let kept = Tokenizer.scanPartialWord(typedWord[..<(typedWord.count - editorWord.count)])
    return candidates.map { candidate in
      let rest: Substring
      if candidate.utf8.starts(with: kept.text.utf8) {
        rest = Substring(candidate.utf8.dropFirst(kept.text.utf8.count))
      } else {
        let scalars = candidate.unicodeScalars
        rest = Substring(scalars.dropFirst(kept.text.unicodeScalars.count))
      }
      let closing = closes && !candidate.hasSuffix("/")
      switch kept.openQuote {
      case .unquoted:
        return rest.isEmpty ? "" : Tokenizer.escapeWord(String(rest))
      case .single:
        return rest.replacing("'", with: "'\\''") + (closing ? "'" : "")
      case .double:
        var text = ""
        for scalar in rest.unicodeScalars {
          if scalar.isASCII, Tokenizer.escapableInDoubleQuotes(UInt8(scalar.value)) {
            text.unicodeScalars.append("\\")
          }
          text.unicodeScalars.append(scalar)
        }
        return text + (closing ? "\"" : "")
      }
    }
  }
}

/// The words and commands gathered so far while scanning one line.
private struct CommandScanner {
  var commands: [ParsedCommand] = []
  var words: [String] = []
  var word: [UInt8] = []
  var inWord = false
  var expectingDelimiter = false
  var delimiterColumn = 0
  var delimiter: String?
  /// The delimiter of an earlier command's here-document: no command may follow it.
  var earlierDelimiter: String?
  /// The comment read since the last command ended.
  var comment: String?

  mutating func startHereDocument(column: Int) throws(TokenizerError) {
    if let delimiter { throw .hereDocumentNotLast(delimiter: delimiter) }
    expectingDelimiter = true
    delimiterColumn = column
  }

  mutating func finishWord() throws(TokenizerError) {
    guard inWord else { return }
    let text = String(decoding: word, as: UTF8.self)
    word.removeAll(keepingCapacity: true)
    inWord = false
    try finish(text)
  }

  /// Ends a word made whole already: a here-document's delimiter, or the command's next word.
  mutating func finish(_ text: String) throws(TokenizerError) {
    if expectingDelimiter {
      delimiter = text
      expectingDelimiter = false
    } else if let delimiter {
      throw .hereDocumentNotLast(delimiter: delimiter)
    } else {
      words.append(text)
    }
  }

  mutating func finishCommand() throws(TokenizerError) {
    try finishWord()
    if expectingDelimiter { throw .missingHereDocumentDelimiter(column: delimiterColumn) }
    defer { comment = nil }
    guard !words.isEmpty || delimiter != nil else { return }
    if let earlierDelimiter { throw .hereDocumentNotLast(delimiter: earlierDelimiter) }
    commands.append(
      ParsedCommand(words: words, hereDocumentDelimiter: delimiter, comment: comment))
    earlierDelimiter = delimiter
    words.removeAll()
    delimiter = nil
  }
}

extension UInt8 {
  fileprivate static let tab = UInt8(ascii: "\t")
  fileprivate static let newline = UInt8(ascii: "\n")
  fileprivate static let space = UInt8(ascii: " ")
  fileprivate static let doubleQuote = UInt8(ascii: "\"")
  fileprivate static let hash = UInt8(ascii: "#")
  fileprivate static let dollar = UInt8(ascii: "$")
  fileprivate static let ampersand = UInt8(ascii: "&")
  fileprivate static let singleQuote = UInt8(ascii: "'")
  fileprivate static let openParenthesis = UInt8(ascii: "(")
  fileprivate static let closeParenthesis = UInt8(ascii: ")")
  fileprivate static let asterisk = UInt8(ascii: "*")
  fileprivate static let semicolon = UInt8(ascii: ";")
  fileprivate static let lessThan = UInt8(ascii: "<")
  fileprivate static let greaterThan = UInt8(ascii: ">")
  fileprivate static let questionMark = UInt8(ascii: "?")
  fileprivate static let openBracket = UInt8(ascii: "[")
  fileprivate static let backslash = UInt8(ascii: "\\")
  fileprivate static let closeBracket = UInt8(ascii: "]")
  fileprivate static let backtick = UInt8(ascii: "`")
  fileprivate static let pipe = UInt8(ascii: "|")
  fileprivate static let tilde = UInt8(ascii: "~")
}
