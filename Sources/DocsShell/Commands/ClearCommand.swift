import DocsKit

/// `clear`: clear the terminal's screen, as Ctrl-L does at the prompt.
struct ClearCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "clear", abstract: "clear the screen (as Ctrl-L)",
    discussion: "To a pipe or a file it writes nothing.",
    example: "clear", isUndoable: false)

  init(_ arguments: ParsedArguments) {}

  func run(in session: Session) -> CommandResult {
    .clearScreen
  }
}
