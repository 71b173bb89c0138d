import DocsKit

/// `undo`: take back the last command's changes.
struct UndoCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "undo", abstract: "take back the last command's changes", example: "undo",
    isUndoable: false)

  init(_ arguments: ParsedArguments) {}

  func run(in session: Session) throws -> CommandResult {
    .messages(["Undid \(try session.context.undo())."])
  }
}
