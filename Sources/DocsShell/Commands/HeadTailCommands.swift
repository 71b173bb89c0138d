import DocsKit

/// Which lines of a text `head` and `tail` keep, from `-n` as coreutils reads it.
enum LineSelection: Equatable, Sendable {
  /// The first N lines (`head -n N`).
  case first(Int)
  /// All but the last N lines (`head -n -N`).
  case allButLast(Int)
  /// The last N lines (`tail -n N`, `tail -n -N`).
  case last(Int)
  /// From line N on, counting from 1 (`tail -n +N`).
  case from(Int)

  /// `-n N`: how many lines, with the ten of coreutils when not given.
  static let option = ValueOption<String>("-n", valueName: "N")

  /// The selection `-n` asks of `head` (`tail` when `fromEnd`): `N` or `+N` counts from the
  /// start, `-N` from the other end; `tail`'s `+N` is the line to start at.
  /// - Throws: a usage error of `command` for anything else.
  init(_ arguments: ParsedArguments, fromEnd: Bool, for command: CommandConfiguration)
    throws(ShellError)
  {
    guard let value = arguments.value(of: Self.option) else {
      self = fromEnd ? .last(10) : .first(10)
      return
    }
    let sign = value.first.flatMap { $0 == "+" || $0 == "-" ? $0 : nil }
    let digits = sign == nil ? Substring(value) : value.dropFirst()
    guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let count = Int(digits), count >= 0
    else {
      throw command.usageError("-n takes a number of lines (N, -N or +N), not \"\(value)\"")
    }
    switch (fromEnd, sign) {
    case (false, "-"): self = .allButLast(count)
    case (false, _): self = .first(count)
    case (true, "+"): self = .from(count)
    case (true, _): self = .last(count)
    }
  }

  /// The lines of `text` this selection keeps, as they are: a line is what ends in a
  /// newline, and the piece after the last newline, when there is one, is a line too.
  func lines(of text: String) -> Substring {
    let utf8 = text.utf8
    // Where each line starts; the text's end is no start.
    var starts = [utf8.startIndex]
    for index in utf8.indices where utf8[index] == UInt8(ascii: "\n") {
      starts.append(utf8.index(after: index))
    }
    if starts.last == utf8.endIndex { starts.removeLast() }
    let count = starts.count
    func start(ofLine number: Int) -> String.Index {
      number < count ? starts[number] : utf8.endIndex
    }
    switch self {
    case .first(let lines): return text[..<start(ofLine: lines)]
    case .allButLast(let lines): return text[..<start(ofLine: max(count - lines, 0))]
    case .last(let lines): return text[start(ofLine: max(count - lines, 0))...]
    case .from(let line): return text[start(ofLine: max(line - 1, 0))...]
    }
  }
}

/// `head` and `tail`: the first or last lines of documents.
protocol ExcerptCommand: ShellCommand {
  /// Whether `-n` counts from the end, as `tail`'s does, rather than from the start.
  static var countsFromEnd: Bool { get }
  /// The paths as typed.
  var paths: [String] { get }
  /// Which lines to keep.
  var selection: LineSelection { get }
  /// The command keeping `selection` of the documents at `paths`.
  init(paths: [String], selection: LineSelection)
}

extension ExcerptCommand {
  /// The arguments of `head` and `tail`: `-n N` and documents.
  static func arguments() -> ArgumentSpec {
    ArgumentSpec(
      options: [LineSelection.option.spec],
      positionals: [PositionalSpec("NAME", .oneOrMore, completing: .document)],
      whenMissing: "name a document", numericShorthand: LineSelection.option.spec)
  }

  /// The configuration of `head` or `tail`: its help, ``arguments()``, no undo, paged.
  static func excerptConfiguration(
    name: String, abstract: String, discussion: String, example: String
  ) -> CommandConfiguration {
    CommandConfiguration(
      name: name, abstract: abstract, discussion: discussion, example: example,
      arguments: arguments(), isUndoable: false, pagesOutput: true)
  }

  init(_ arguments: ParsedArguments) throws(ShellError) {
    let selection = try LineSelection(
      arguments, fromEnd: Self.countsFromEnd, for: Self.configuration)
    self.init(paths: arguments.positionals, selection: selection)
  }

  func run(in session: Session) throws -> CommandResult {
    var excerpts: [Excerpt] = []
    for named in try session.documents(named: paths) {
      let content = try session.context.content(of: named.document.id)
      excerpts.append(Excerpt(name: named.shownName, text: String(selection.lines(of: content))))
    }
    // coreutils' tail reads nothing when it is to print no line, and prints no headers.
    return .excerpts(selection == .last(0) ? [] : excerpts)
  }
}

/// `head`: the first lines of documents.
struct HeadCommand: ExcerptCommand {
  static let configuration = excerptConfiguration(
    name: "head",
    abstract: "print the first ten lines (-n N) of documents",
    discussion: """
      As coreutils' head: -n -N prints all but the last N lines; -N is -n N. With several
      documents, each starts with a line ==> NAME <==.
      """,
    example: "head -n 3 Plan Work/Notes")
  static let countsFromEnd = false

  let paths: [String]
  let selection: LineSelection
}

/// `tail`: the last lines of documents.
struct TailCommand: ExcerptCommand {
  static let configuration = excerptConfiguration(
    name: "tail",
    abstract: "print the last ten lines (-n N) of documents",
    discussion: """
      As coreutils' tail: -n +N prints from line N on; -N is -n N. With several documents,
      each starts with a line ==> NAME <== (none for -n 0, which prints nothing).
      """,
    example: "tail -n 3 Journal")
  static let countsFromEnd = true

  let paths: [String]
  let selection: LineSelection
}
