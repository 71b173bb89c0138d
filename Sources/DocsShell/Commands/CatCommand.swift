import DocsKit

/// `cat`: print contents.
struct CatCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "cat",
    abstract: "print the content of documents",
    discussion: """
      To a terminal, control characters show escaped; to a pipe or file the content is
      written byte for byte.
      """,
    example: "cat Plan Work/Notes",
    arguments: ArgumentSpec(
      positionals: [PositionalSpec("NAME", .oneOrMore, completing: .document)],
      whenMissing: "name a document"),
    isUndoable: false,
    pagesOutput: true)

  let paths: [String]

  init(_ arguments: ParsedArguments) {
    paths = arguments.positionals
  }

  func run(in session: Session) throws -> CommandResult {
    var documents: [Document] = []
    for path in paths {
      documents.append(
        try ShellPath(path).document(in: session.context, from: session.currentCategory))
    }
    return .contents(try documents.map { document in try session.context.content(of: document.id) })
  }
}
