import DocsKit

/// `cat`: print contents.
struct CatCommand: ShellCommand {
  static let number = OptionSpec.flag("-n", help: "number the lines")
  static let configuration = CommandConfiguration(
    name: "cat",
    abstract: "print the content of documents",
    discussion: """
      To a terminal, control characters show escaped; to a pipe or file the content is
      written byte for byte. -n numbers the lines as coreutils' cat -n: the number
      right-aligned in six columns, then a tab, counting on across documents. A name with
      * ? [ ] prints every document it matches.
      """,
    example: "cat Plan Work/Notes",
    arguments: ArgumentSpec(
      options: [number],
      positionals: [PositionalSpec("NAME", .oneOrMore, completing: .document)],
      whenMissing: "name a document"),
    isUndoable: false,
    pagesOutput: true)

  let paths: [String]
  let numbersLines: Bool

  init(_ arguments: ParsedArguments) {
    paths = arguments.positionals
    numbersLines = arguments.isSet(Self.number)
  }

  func run(in session: Session) throws -> CommandResult {
    let contents = try session.documents(named: paths).map { named in
      try session.context.content(of: named.document.id)
    }
    return numbersLines ? .numberedContents(contents) : .contents(contents)
  }
}
