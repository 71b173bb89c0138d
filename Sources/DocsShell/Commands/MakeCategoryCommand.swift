import DocsKit

/// `mkdir`: create categories.
struct MakeCategoryCommand: NamesCommand {
  static let configuration = CommandConfiguration(
    name: "mkdir", abstract: "create categories", example: "mkdir Work \"Reading list\"",
    arguments: names(completing: .text, whenMissing: "name the category to create"))

  let names: [String]

  func run(in session: Session) throws -> CommandResult {
    for name in names {
      // `/Work` and `Work/` name a category as well as `Work` does.
      var bare = Substring(name)
      if bare.hasPrefix("/") { bare = bare.dropFirst() }
      if bare.hasSuffix("/") { bare = bare.dropLast() }
      try session.context.createCategory(named: String(bare))
    }
    return .nothing
  }
}
