import DocsKit

/// `source`: run the commands of a file in this session.
struct SourceCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "source",
    abstract: "run the commands of a .docsh file in this session",
    example: "source examples/tour.docsh",
    arguments: ArgumentSpec(
      positionals: [PositionalSpec("FILE", completing: .file)], placement: .none,
      whenMissing: "name one file", whenExtra: "name one file"),
    isUndoable: false)

  let path: String

  init(_ arguments: ParsedArguments) {
    path = arguments.positionals[0]
  }

  /// Asks the interpreter to run the file: running lines is its job, not a command's.
  func run(in session: Session) -> CommandResult {
    .runFile(path)
  }
}
