import DocsKit

/// `restore`: a document as it was at a commit, as an ordinary change.
struct RestoreCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "restore",
    abstract: "put back a document's content and name as they were at a commit",
    discussion: """
      An ordinary change: undo takes it back, save keeps it (and commits it). A document
      deleted since is restored by its old path from a COMMIT where it existed, with its
      id, content and date; its category is made again if it is gone.
      """,
    example: "restore Plan abc1234",
    arguments: .pair(
      PositionalSpec("NAME", completing: .document), PositionalSpec("COMMIT", completing: .text),
      wrongCount: "name a document and a commit"))

  let (path, revision): (String, String)

  init(_ arguments: ParsedArguments) {
    (path, revision) = arguments.pair
  }

  func run(in session: Session) throws -> CommandResult {
    let repository = try session.repositoryForHistory()
    let subject = try HistorySubject(path, in: session)
    let commit = try repository.history.resolveCommit(revision)
    let saved = try subject.saved(at: commit, in: repository)
    let restored = try session.context.restoreDocument(saved)
    guard session.settings.isInteractive else { return .nothing }
    return .messages(["Restored \(session.located(restored).path) as at \(commit.short)."])
  }
}
