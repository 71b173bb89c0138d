import DocsKit

/// `rmdir`: delete categories and, by cascade, their documents.
struct RemoveCategoryCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "rmdir",
    abstract: "delete categories and all of their documents",
    discussion: """
      A category that holds documents is deleted only after you confirm
      (Delete category "Work" and its 12 documents? [y/N]); an empty one goes without
      asking. -f does not ask. 'undo' brings the category and every document back.
      """,
    example: "rmdir -f Old",
    arguments: ArgumentSpec(
      options: [.force], positionals: [PositionalSpec("NAME", .oneOrMore, completing: .category)],
      whenMissing: "name the category to delete"))

  let deletion: CategoryDeletion

  init(_ arguments: ParsedArguments) {
    deletion = CategoryDeletion(
      paths: arguments.positionals, force: arguments.isSet(OptionSpec.force), command: "rmdir")
  }

  func run(in session: Session) throws -> CommandResult {
    try deletion.perform(in: session, documents: [])
  }
}

/// Deleting categories as `rmdir` and `rm -r` do: every name resolved first, so that a typo
/// deletes nothing; a category with documents only after a yes (unless forced).
struct CategoryDeletion: Sendable {
  /// The categories as typed.
  let paths: [String]
  /// Whether to delete without asking.
  let force: Bool
  /// The command's name, for the message when a category is kept.
  let command: String

  /// The categories named, resolved from the top.
  func categories(in session: Session) throws(ShellError) -> [Category] {
    var categories: [Category] = []
    for path in paths {
      let category = try ShellPath(path).category(in: session.context, from: nil)
      if !categories.contains(where: { $0.id == category.id }) { categories.append(category) }
    }
    return categories
  }

  /// Deletes `documents`, then the categories (asking for those that hold documents).
  /// - Returns: the messages for categories kept because the answer was no.
  func perform(in session: Session, documents: [Document]) throws -> CommandResult {
    let categories = try categories(in: session)
    for document in documents { try session.context.deleteDocument(document.id) }
    for category in categories {
      let count = session.context.summary(of: category.id).documentCount
      if count > 0 && !force {
        let what = count == 1 ? "its 1 document" : "its \(count) documents"
        guard try session.confirm("Delete category \"\(category.name)\" and \(what)?") else {
          session.tell("\(command): kept \"\(category.name)\"")
          continue
        }
      }
      try session.context.deleteCategory(category.id)
    }
    return .nothing
  }
}
