import DocsKit

/// `diff`: how a document changed since a saved version.
struct DiffCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "diff",
    abstract: "show how a document changed since a saved version, as a unified diff",
    discussion: """
      From the document's content at COMMIT (default: the last commit, HEAD) to its content
      now, unsaved changes included; colored as --color says. Prints nothing when they
      are the same. COMMIT is any git revision: a hash from 'log', HEAD~2, a tag.
      """,
    example: "diff Plan HEAD~3",
    arguments: ArgumentSpec(
      positionals: [
        PositionalSpec("NAME", completing: .document),
        PositionalSpec("COMMIT", .optional, completing: .text),
      ],
      whenMissing: "name a document (and a commit)", whenExtra: "name a document and a commit"),
    isUndoable: false,
    pagesOutput: true)

  let path: String
  let revision: String

  init(_ arguments: ParsedArguments) {
    path = arguments.positionals[0]
    revision = arguments.positionals.count > 1 ? arguments.positionals[1] : "HEAD"
  }

  func run(in session: Session) throws -> CommandResult {
    let repository = try session.repositoryForHistory()
    let subject = try HistorySubject(path, in: session)
    guard let document = subject.current else {
      throw ShellError.noSuchDocument(subject.name, in: subject.categoryName)
    }
    let commit = try repository.history.resolveCommit(revision)
    let old = try subject.saved(at: commit, in: repository)
    let now = try session.context.content(of: document.id)
    return .diff(
      DiffReport(
        path: subject.path, commit: commit, hunks: TextDiff.hunks(from: old.content, to: now)))
  }
}
