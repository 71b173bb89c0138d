import DocsKit

/// `info`: a document's metadata.
struct InfoCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "info",
    abstract: "show a document's name, category, exact size and modification date",
    example: "info --json Plan",
    arguments: DocumentQuery.arguments(whenMissing: "name one document"),
    isUndoable: false)

  let query: DocumentQuery

  init(_ arguments: ParsedArguments) {
    query = DocumentQuery(arguments)
  }

  func run(in session: Session) throws -> CommandResult {
    let document = try session.document(named: query.path)
    return .documentInfo(session.located(document), query.format)
  }
}
