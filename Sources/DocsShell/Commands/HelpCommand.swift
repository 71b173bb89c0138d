import DocsKit

/// `help`: the commands, or one command in full.
struct HelpCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "help",
    abstract: "list the commands, or show one command's usage and an example",
    example: "help mv",
    arguments: ArgumentSpec(
      positionals: [PositionalSpec("COMMAND", .optional, completing: .command)], placement: .none,
      whenExtra: "takes one command name"),
    isUndoable: false, pagesOutput: true)

  let topic: String?

  init(_ arguments: ParsedArguments) {
    topic = arguments.positionals.first
  }

  func run(in session: Session) throws -> CommandResult {
    guard let topic else { return .commandList(CommandRegistry.commands.map { $0.configuration }) }
    guard let command = CommandRegistry.command(named: topic) else {
      throw ShellError.unknownCommand(topic)
    }
    return .commandHelp(command.configuration)
  }
}
