import DocsKit

/// `info`: a document's metadata.
struct InfoCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "info",
    abstract: "show a document's name, category, exact size and modification date",
    example: "info --json Plan",
    arguments: ArgumentSpec(
      options: [.json], positionals: [PositionalSpec("NAME", completing: .document)],
      whenMissing: "name one document", whenExtra: "name one document"),
    isUndoable: false)

  let path: String
  let format: OutputFormat

  init(_ arguments: ParsedArguments) {
    path = arguments.positionals[0]
    format = arguments.outputFormat
  }

  func run(in session: Session) throws -> CommandResult {
    let document = try session.document(named: path)
    return .documentInfo(session.located(document), format)
  }
}
