import DocsKit

/// `log`: the saved versions of a document, or the store's commits.
struct LogCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "log",
    abstract: "list the saved versions of a document (or the store's commits), newest first",
    discussion: """
      With NAME: each version of the document in the store's git history — commit, date,
      size, and its category and name at that version, so a renamed or moved document
      keeps its history; a deleted one is found by its old path. Without NAME: the
      store's commits, one line each. -n shows the newest N; --json prints
      [{"commit", "date", "category", "name", "size"}] (without NAME:
      [{"commit", "date", "message"}]). Needs the store in a git repository ('sync REMOTE'
      makes one).
      """,
    example: "log -n 5 Work/Plan",
    arguments: ArgumentSpec(
      options: [.count, .json],
      positionals: [PositionalSpec("NAME", .optional, completing: .document)],
      whenExtra: "shows one document's history at a time"),
    isUndoable: false,
    pagesOutput: true)

  let path: String?
  let limit: Int?
  let format: OutputFormat

  init(_ arguments: ParsedArguments) throws(ShellError) {
    path = arguments.positionals.first
    format = arguments.outputFormat
    limit = try arguments.count(of: "versions", default: nil, for: Self.configuration)
  }

  func run(in session: Session) throws -> CommandResult {
    let repository = try session.repositoryForHistory()
    guard let path else { return .commits(try repository.history.commits(limit: limit), format) }
    let subject = try HistorySubject(path, in: session)
    return .versions(
      try repository.history.versions(ofDocument: subject.id(in: repository), limit: limit), format)
  }
}
