import DocsKit

/// `touch`: create empty documents, or give existing ones a new modification date.
struct TouchCommand: NamesCommand {
  static let configuration = CommandConfiguration(
    name: "touch",
    abstract: "create empty documents, or give existing ones the date now",
    discussion: """
      A document that exists keeps its name, content and category; only its modification
      date changes. undo takes it back.
      """,
    example: "touch Work/Plan",
    arguments: names(completing: .document, whenMissing: "name a document"))

  /// The documents' paths as typed.
  let names: [String]

  func run(in session: Session) throws -> CommandResult {
    for path in names {
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
