/// `echo`: print words, for scripts.
struct EchoCommand: ShellCommand {
  static let noNewline = OptionSpec.flag("-n", help: "no newline at the end")
  static let configuration = CommandConfiguration(
    name: "echo",
    abstract: "print the words, joined by spaces, and a newline",
    discussion: """
      As bash's echo: -n leaves the newline out; any other word, even one starting with a
      dash, is printed.
      """,
    example: "echo Saved the plan",
    arguments: ArgumentSpec(
      options: [noNewline],
      positionals: [PositionalSpec("WORDS", .zeroOrMore, completing: .text)],
      placement: .leadingFlags),
    isUndoable: false)

  let text: String

  init(_ arguments: ParsedArguments) {
    text =
      arguments.positionals.joined(separator: " ") + (arguments.isSet(Self.noNewline) ? "" : "\n")
  }

  func run(in session: Session) throws -> CommandResult {
    .contents([text])
  }
}
