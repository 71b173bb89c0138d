import DocsKit

/// `cd`: enter a category, go up, go back.
struct ChangeCategoryCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "cd",
    abstract: "enter a category; alone (or ~), go to the top; - goes back",
    example: "cd Work",
    arguments: ArgumentSpec(
      positionals: [PositionalSpec("CATEGORY | .. | / | ~ | -", .optional, completing: .category)],
      placement: .none, whenExtra: "takes one category"),
    isUndoable: false,
    runsWithoutCategoryList: true)

  let path: String?

  init(_ arguments: ParsedArguments) throws(ShellError) {
    path = arguments.positionals.first
  }

  func run(in session: Session) throws -> CommandResult {
    guard let path else {
      session.changeCategory(to: nil)
      return .nothing
    }
    if path == "-" {
      switch session.previousLocation {
      case nil: throw ShellError.noPreviousCategory
      case .top?: session.changeCategory(to: nil)
      case .category(let category)?: session.changeCategory(to: category)
      }
      return .location(session.location)
    }
    switch try session.resolve(path) {
    case .top: session.changeCategory(to: nil)
    case .category(let category): session.changeCategory(to: category)
    case .entry(let category, let name):
      if try session.context.document(named: name, in: category.id) != nil {
        throw ShellError.wrongKind(path, expected: "a category")
      }
      throw ShellError.noSuchCategory(path)
    }
    return .nothing
  }
}
