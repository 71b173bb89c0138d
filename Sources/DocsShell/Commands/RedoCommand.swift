import DocsKit

/// `redo`: do the last undone command again.
struct RedoCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "redo", abstract: "redo what undo took back", example: "redo", isUndoable: false)

  init(_ arguments: ParsedArguments) {}

  func run(in session: Session) throws -> CommandResult {
    .messages(["Redid \(try session.context.redo())."])
  }
}
