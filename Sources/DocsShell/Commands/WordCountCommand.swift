import DocsKit

/// `wc`: lines, words and bytes of documents.
struct WordCountCommand: ShellCommand {
  static let lines = OptionSpec.flag("-l", help: "newlines")
  static let words = OptionSpec.flag("-w", help: "words")
  static let bytes = OptionSpec.flag("-c", help: "bytes")
  static let configuration = CommandConfiguration(
    name: "wc",
    abstract: "count the lines, words and bytes of documents",
    discussion: """
      As coreutils' wc in a UTF-8 locale: -l counts newlines, -w words (runs of printable
      characters between white space, which takes in the no-break spaces), -c bytes of
      UTF-8; none of them shows all three. Several documents end with a total.
      """,
    example: "wc -l Plan Work/Notes",
    arguments: ArgumentSpec(
      options: [lines, words, bytes],
      positionals: [PositionalSpec("NAME", .oneOrMore, completing: .document)],
      whenMissing: "name a document"),
    isUndoable: false,
    pagesOutput: true)

  let paths: [String]
  let counted: Set<WordCountReport.Count>

  init(_ arguments: ParsedArguments) {
    paths = arguments.positionals
    var counted: Set<WordCountReport.Count> = []
    if arguments.isSet(Self.lines) { counted.insert(.lines) }
    if arguments.isSet(Self.words) { counted.insert(.words) }
    if arguments.isSet(Self.bytes) { counted.insert(.bytes) }
    self.counted = counted.isEmpty ? Set(WordCountReport.Count.allCases) : counted
  }

  func run(in session: Session) throws -> CommandResult {
    var rows: [WordCountReport.Row] = []
    for named in try session.documents(named: paths) {
      rows.append(
        WordCountReport.Row(
          name: named.shownName,
          counts: TextCounts(try session.context.content(of: named.document.id))))
    }
    return .wordCounts(WordCountReport(rows: rows, counted: counted))
  }
}

/// A text's newlines, words and bytes, counted as coreutils' `wc` counts them in a UTF-8
/// locale (glibc's `C.UTF-8`).
struct TextCounts: Equatable, Sendable {
  var lines = 0
  var words = 0
  var bytes = 0

  init(lines: Int = 0, words: Int = 0, bytes: Int = 0) {
    self.lines = lines
    self.words = words
    self.bytes = bytes
  }

  /// The counts of `text`. A word is a run of characters between separators — tab,
  /// newline, vertical tab, form feed, carriage return, space, the other printable white
  /// space of glibc's `iswspace`, and the no-break spaces U+00A0, U+2007, U+202F and
  /// U+2060 — that holds a printable one: controls, unassigned code points and the line
  /// and paragraph separators (white space to glibc, but not printable) neither start a
  /// word nor end one.
  init(_ text: String) {
    bytes = text.utf8.count
    var inWord = false
    for scalar in text.unicodeScalars {
      let value = scalar.value
      if value == 0x0A { lines += 1 }
      if TextCounts.separates(value) {
        if inWord { words += 1 }
        inWord = false
      } else if TextCounts.isPrintable(scalar) {
        inWord = true
      }
    }
    if inWord { words += 1 }
  }

  /// What ends a word in coreutils' `wc`: the ASCII white space, the printable white space
  /// of glibc's `iswspace` in `C.UTF-8`, and coreutils' no-break spaces.
  static func separates(_ value: UInt32) -> Bool {
    switch value {
    case 0x09...0x0D, 0x20, 0x1680, 0x2000...0x2006, 0x2008...0x200A, 0x205F, 0x3000:
      return true
    case 0xA0, 0x2007, 0x202F, 0x2060:
      return true
    default:
      return false
    }
  }

  /// glibc's `iswprint`: everything but controls, surrogates, unassigned code points and
  /// the line and paragraph separators (checked against glibc 2.36's `C.UTF-8`). What is
  /// unassigned follows Swift's Unicode data, which may know characters newer than the C
  /// library's: those start words here and not in coreutils.
  static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
    if scalar.value < 0x80 { return scalar.value >= 0x20 && scalar.value != 0x7F }
    switch scalar.properties.generalCategory {
    case .control, .surrogate, .unassigned, .lineSeparator, .paragraphSeparator: return false
    default: return true
    }
  }
}

/// What `wc` found: a row per document, in the order named, and which counts to show.
struct WordCountReport: Sendable {
  /// One of the counts `wc` can show, in the order it shows them.
  enum Count: CaseIterable, Sendable {
    case lines, words, bytes
  }

  /// A document's counts under the name it was given by.
  struct Row: Sendable {
    var name: String
    var counts: TextCounts
  }

  var rows: [Row]
  var counted: Set<Count>
}
