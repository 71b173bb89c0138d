import DocsKit

/// `tree`: categories and their documents as an indented tree, like tree(1).
struct TreeCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "tree",
    abstract: "show categories and their documents as a tree, with the counts at the end",
    discussion: """
      At the top (or with /): every category and its documents; in a category, or with
      CATEGORY: that one. Sorted by name, as ls sorts them.
      """,
    example: "tree Work",
    arguments: ArgumentSpec(
      positionals: [PositionalSpec("CATEGORY", .optional, completing: .category)],
      whenExtra: "shows one category at a time"),
    isUndoable: false,
    pagesOutput: true)

  let path: String?

  init(_ arguments: ParsedArguments) {
    path = arguments.positionals.first
  }

  func run(in session: Session) throws -> CommandResult {
    var root = session.currentCategory
    if let path {
      // Paths read as everywhere: `/` and `..` are the top, a plain name in a category
      // would be a document's.
      if case .top = try session.resolve(path) {
        root = nil
      } else {
        root = try ShellPath(path).category(in: session.context, from: session.currentCategory)
      }
    }
    let categories = root.map { [$0] } ?? session.context.categories()
    let branches = try categories.map { category throws(ContextError) in
      TreeReport.Branch(
        categoryName: category.name.text,
        documentNames: try session.context.documents(in: category.id).map(\.name.text))
    }
    return .tree(TreeReport(rootCategory: root?.name.text, branches: branches))
  }
}
