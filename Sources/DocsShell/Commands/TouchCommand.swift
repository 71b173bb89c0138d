import DocsKit

/// `touch`: create empty documents, or give existing ones a new modification date.
struct TouchCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "touch",
    abstract: "create empty documents, or give existing ones the date now",
    discussion: """
      A document that exists keeps its name, content and category; only its modification
      date changes. undo takes it back.
      """,
    example: "touch Work/Plan",
    arguments: ArgumentSpec(
      positionals: [PositionalSpec("NAME", .oneOrMore, completing: .document)],
      whenMissing: "name a document"))

  let paths: [String]

  init(_ arguments: ParsedArguments) {
    paths = arguments.positionals
  }

  func run(in session: Session) throws -> CommandResult {
    for path in paths {
      let (category, name) = try ShellPath(path).entry(
        in: session.context, from: session.currentCategory)
      if let document = try session.context.document(named: name, in: category.id) {
        try session.context.touchDocument(document.id)
      } else {
        try session.context.createDocument(named: name, in: category.id)
      }
    }
    return .nothing
  }
}
