import DocsKit

/// `exit` / `quit`: leave docsh.
struct ExitCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "exit", aliases: ["quit"], abstract: "leave docsh (asks to save unsaved changes)",
    example: "exit", isUndoable: false)

  init(_ arguments: ParsedArguments) {}

  func run(in session: Session) -> CommandResult {
    .exit
  }
}
