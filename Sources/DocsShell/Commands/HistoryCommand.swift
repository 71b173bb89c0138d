import DocsKit

/// `history`: the lines typed, numbered.
struct HistoryCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "history", abstract: "list the command history", example: "history",
    isUndoable: false, pagesOutput: true)

  init(_ arguments: ParsedArguments) {}

  func run(in session: Session) -> CommandResult {
    .history(session.collaborators.history.historyEntries())
  }
}
