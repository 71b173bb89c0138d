import DocsKit

/// `find`: documents by name.
struct FindCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "find",
    usage: "find [--json] TEXT",
    abstract: "list documents in every category whose name contains TEXT, ignoring case",
    example: "find plan",
    arguments: [.text],
    isUndoable: false)

  let text: String
  let json: Bool

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    let parsed = try ParsedArguments.parse(
      arguments, flags: ["json"], optionsFirst: true, for: Self.configuration)
    guard !parsed.positionals.isEmpty else { throw Self.usageError("give the text to look for") }
    text = parsed.positionals.joined(separator: " ")
    json = parsed.flags.contains("json")
  }

  func run(in session: Session) throws(ShellError) {
    let documents = session.context.documents(nameContaining: text)
    let categoryName = { (document: Document) in
      session.context.category(withID: document.categoryID)?.name.text ?? "?"
    }
    if json {
      let values = documents.map { document in
        JSONValue.object([
          ("category", .string(categoryName(document))), ("name", .string(document.name.text)),
          ("size", .integer(document.size)), ("modified", .date(document.modified)),
        ])
      }
      session.output.writeLine(JSONValue.array(values).rendered)
      return
    }
    for document in documents {
      session.output.writeLine(session.displayed("\(categoryName(document))/\(document.name)"))
    }
  }
}

/// `grep`: content lines matching a regular expression.
struct GrepCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "grep",
    usage: "grep [-i] [-F] [--json] PATTERN [CATEGORY]",
    abstract: "print content lines matching PATTERN, as CATEGORY/NAME:LINE: text",
    discussion: """
      PATTERN is a regular expression (Swift Regex syntax, like Perl's); -F takes it as
      plain text; -i ignores case. Searches the current category, the one named, or at the
      top every category.
      """,
    example: "grep -i 'todo|fixme' Work",
    arguments: [.text, .category],
    isUndoable: false,
    pagesOutput: true)

  let pattern: String
  let ignoringCase: Bool
  let literal: Bool
  let json: Bool
  let category: String?

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    let parsed = try ParsedArguments.parse(
      arguments, flags: ["i", "F", "json"], optionsFirst: true, for: Self.configuration)
    guard (1...2).contains(parsed.positionals.count) else {
      throw Self.usageError("give a pattern and at most one category")
    }
    pattern = parsed.positionals[0]
    category = parsed.positionals.count == 2 ? parsed.positionals[1] : nil
    ignoringCase = parsed.flags.contains("i")
    literal = parsed.flags.contains("F")
    json = parsed.flags.contains("json")
  }

  func run(in session: Session) throws(ShellError) {
    let scope: Category? =
      try category.map { path throws(ShellError) in
        try ShellPath(path).category(in: session.context, from: session.currentCategory)
      } ?? session.currentCategory
    let searched: ContentPattern =
      literal || !Self.hasRegexSyntax(pattern)
      ? .text(pattern, ignoringCase: ignoringCase)
      : .regularExpression(pattern, ignoringCase: ignoringCase)
    let matches = try ShellError.catching { () throws(ContextError) in
      try session.context.searchContents(for: searched, in: scope?.id)
    }
    var categoryNames: [ObjectID: String] = [:]
    func categoryName(_ id: ObjectID) -> String {
      if let name = categoryNames[id] { return name }
      let name = session.context.category(withID: id)?.name.text ?? "?"
      categoryNames[id] = name
      return name
    }
    if json {
      let values = matches.map { match in
        JSONValue.object([
          ("category", .string(categoryName(match.document.categoryID))),
          ("name", .string(match.document.name.text)), ("line", .integer(match.lineNumber)),
          ("text", .string(String(match.line))),
        ])
      }
      session.output.writeLine(JSONValue.array(values).rendered)
      return
    }
    for match in matches {
      let place =
        "\(categoryName(match.document.categoryID))/\(match.document.name):\(match.lineNumber):"
      session.output.writeLine(session.displayed(place + " " + match.line))
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
