import DocsKit

/// `find`: documents by name.
struct FindCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "find",
    abstract: "list documents in every category whose name contains TEXT, ignoring case",
    example: "find plan",
    arguments: ArgumentSpec(
      options: [.json], positionals: [PositionalSpec("TEXT", .words, completing: .text)],
      placement: .beforePositionals, whenMissing: "give the text to look for"),
    isUndoable: false)

  let text: String
  let format: OutputFormat

  init(_ arguments: ParsedArguments) {
    text = arguments.positionals.joined(separator: " ")
    format = arguments.outputFormat
  }

  func run(in session: Session) throws -> CommandResult {
    .foundDocuments(
      try session.context.documents(nameContaining: text).map(session.located), format)
  }
}
