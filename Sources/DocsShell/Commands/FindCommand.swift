import DocsKit

/// `find`: documents by name, or by tag.
struct FindCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "find",
    abstract: "list documents in every category whose name contains TEXT, ignoring case",
    discussion: """
      --tag TAG keeps only documents holding the tag (ignoring case and accents); given
      more than once, documents holding every one of them. With --tag, TEXT may be left out.
      """,
    example: "find --tag project/docsh plan",
    arguments: ArgumentSpec(
      options: [ValueOption<String>.tag.spec, .json],
      positionals: [PositionalSpec("TEXT", .zeroOrMore, completing: .text)],
      placement: .beforePositionals, whenMissing: "give the text to look for"),
    isUndoable: false,
    pagesOutput: true)

  let text: String
  let tags: [Tag]
  let format: OutputFormat

  init(_ arguments: ParsedArguments) throws(ShellError) {
    text = arguments.positionals.joined(separator: " ")
    tags = try arguments.tags()
    format = arguments.outputFormat
    if text.isEmpty && tags.isEmpty { throw Self.usageError("give the text to look for") }
  }

  func run(in session: Session) throws -> CommandResult {
    let context = session.context
    let found: [Document]
    if tags.isEmpty {
      found = try context.documents(nameContaining: text)
    } else {
      found = try context.documents(taggedWith: tags, nameContaining: text)
    }
    return .foundDocuments(found.map(session.located), format)
  }
}
