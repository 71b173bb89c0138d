import DocsKit

/// `pwd`: where the user is.
struct PrintLocationCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "pwd", abstract: "print the current category", example: "pwd", isUndoable: false,
    runsWithoutCategoryList: true)

  init(_ arguments: ParsedArguments) {}

  func run(in session: Session) -> CommandResult {
    .location(session.location)
  }
}
