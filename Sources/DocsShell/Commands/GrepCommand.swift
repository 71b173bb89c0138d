import DocsKit

/// `grep`: content lines matching a pattern.
struct GrepCommand: ShellCommand {
  static let ignoringCase = OptionSpec.flag("-i")
  static let fixed = OptionSpec.flag("-F")
  /// Accepted and changes nothing: a pattern is an extended expression already.
  static let extended = OptionSpec.flag("-E")
  static let invert = OptionSpec.flag("-v")
  static let wholeWords = OptionSpec.flag("-w")
  /// Accepted and changes nothing: line numbers are always shown.
  static let lineNumbers = OptionSpec.flag("-n")
  static let documentsOnly = OptionSpec.flag("-l")
  static let counts = OptionSpec.flag("-c")
  static let configuration = CommandConfiguration(
    name: "grep",
    abstract: "print content lines matching PATTERN, as CATEGORY/NAME:LINE: text",
    discussion: """
      PATTERN is an extended regular expression (as grep -E; RE2 syntax, which adds Perl's
      \\d, \\w, \\s, \\b, ASCII only, and has no back-references), matched in time linear in
      the text; -E says so and changes nothing; -F takes it as plain text; -i ignores case;
      -w keeps only matches that are whole words; -v prints the lines that do not match; -n
      is accepted (line numbers are always shown). Searches the current category, the one
      named, or at the top every category. -l prints each matching document once
      (CATEGORY/NAME); -c each matching document with its number of matching lines
      (CATEGORY/NAME:2). --tag TAG searches only documents holding the tag (repeatable:
      all of them).
      """,
    example: "grep -i 'todo|fixme' Work",
    arguments: ArgumentSpec(
      options: [
        ignoringCase, fixed, extended, invert, wholeWords, lineNumbers, documentsOnly, counts,
        ValueOption<String>.tag.spec, .json,
      ],
      positionals: [
        PositionalSpec("PATTERN", completing: .text),
        PositionalSpec("CATEGORY", .optional, completing: .category),
      ],
      placement: .beforePositionals, whenMissing: "give a pattern and at most one category",
      whenExtra: "give a pattern and at most one category"),
    isUndoable: false,
    pagesOutput: true)

  /// What `grep` reports.
  enum Mode: Sendable {
    case lines, documents, counts
  }

  let pattern: ContentPattern
  let mode: Mode
  let format: OutputFormat
  let category: String?
  let tags: [Tag]

  init(_ arguments: ParsedArguments) throws(ShellError) {
    let text = arguments.positionals[0]
    let fixed = arguments.isSet(Self.fixed)
    guard !(fixed && arguments.isSet(Self.extended)) else {
      throw Self.usageError("give -E or -F, not both")
    }
    pattern = ContentPattern(
      text, syntax: fixed || !Self.hasRegexSyntax(text) ? .text : .regularExpression,
      ignoringCase: arguments.isSet(Self.ignoringCase),
      wholeWords: arguments.isSet(Self.wholeWords),
      nonMatchingLines: arguments.isSet(Self.invert))
    let documentsOnly = arguments.isSet(Self.documentsOnly)
    let counts = arguments.isSet(Self.counts)
    guard !(documentsOnly && counts) else { throw Self.usageError("give -l or -c, not both") }
    mode = documentsOnly ? .documents : counts ? .counts : .lines
    category = arguments.positionals.count == 2 ? arguments.positionals[1] : nil
    format = arguments.outputFormat
    tags = try arguments.tags()
  }

  func run(in session: Session) throws -> CommandResult {
    // `/` searches every category, as at the top.
    let scope: Category? =
      try category.map { path throws(ShellError) in
        path == "/"
          ? nil : try ShellPath(path).category(in: session.context, from: session.currentCategory)
      } ?? session.currentCategory
    var categoryNames: [ObjectID: String] = [:]
    func categoryName(_ id: ObjectID) -> String {
      if let name = categoryNames[id] { return name }
      let name = session.context.category(withID: id)?.name.text ?? "?"
      categoryNames[id] = name
      return name
    }
    func located(_ document: Document) -> LocatedDocument {
      LocatedDocument(categoryName: categoryName(document.categoryID), document: document)
    }
    let context = session.context
    switch mode {
    case .lines:
      let matches = try context.matchingLines(for: pattern, in: scope?.id, taggedWith: tags)
      for match in matches { _ = categoryName(match.document.categoryID) }
      return .matches(
        .lines(LocatedLines(documents: matches, categoryNames: categoryNames)), format)
    case .documents:
      // Each document is read only up to its first matching line.
      let documents = try context.documents(
        withContentMatching: pattern, in: scope?.id, taggedWith: tags)
      return .matches(.documents(documents.map(located)), format)
    case .counts:
      let counts = try context.countMatchingLines(for: pattern, in: scope?.id, taggedWith: tags)
      return .matches(.counts(counts.map { (located($0.document), $0.lineCount) }), format)
    }
  }

  /// Whether `pattern` uses any regular-expression syntax; plain words search faster as text.
  static func hasRegexSyntax(_ pattern: String) -> Bool {
    pattern.utf8.contains { byte in
      switch byte {
      case UInt8(ascii: "\\"), UInt8(ascii: "."), UInt8(ascii: "*"), UInt8(ascii: "+"),
        UInt8(ascii: "?"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["),
        UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "|"),
        UInt8(ascii: "^"), UInt8(ascii: "$"):
        return true
      default:
        return false
      }
    }
  }
}
