import DocsKit

/// `cd`: enter a category, go up, go back.
struct ChangeCategoryCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "cd",
    usage: "cd [CATEGORY | .. | / | -]",
    abstract: "enter a category; alone, go to the top; - goes back",
    example: "cd Work",
    arguments: [.category],
    isUndoable: false)

  let path: String?

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    guard arguments.count <= 1 else { throw Self.usageError("takes one category") }
    path = arguments.first
  }

  func run(in session: Session) throws(ShellError) {
    guard let path else {
      session.changeCategory(to: nil)
      return
    }
    if path == "-" {
      guard let previous = session.previousCategory else {
        throw .input("cd: no previous category")
      }
      session.changeCategory(to: previous)
      session.output.writeLine(session.location)
      return
    }
    switch try session.resolve(path) {
    case .top: session.changeCategory(to: nil)
    case .category(let category): session.changeCategory(to: category)
    case .entry(let category, let name):
      if session.context.document(named: name, in: category.id) != nil {
        throw .wrongKind(path, expected: "a category")
      }
      throw .noSuchCategory(path)
    }
  }
}

/// `pwd`: where the user is.
struct PrintLocationCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "pwd", usage: "pwd", abstract: "print the current category",
    example: "pwd", isUndoable: false)

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseArguments(arguments, hereDocument)
  }

  func run(in session: Session) throws(ShellError) {
    session.output.writeLine(session.displayed(session.location))
  }
}

/// `mkdir`: create categories.
struct MakeCategoryCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "mkdir", usage: "mkdir NAME…", abstract: "create categories",
    example: "mkdir Work \"Reading list\"", arguments: [.text])

  let names: [String]

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    let parsed = try ParsedArguments.parse(arguments, for: Self.configuration)
    guard !parsed.positionals.isEmpty else { throw Self.usageError("name the category to create") }
    names = parsed.positionals
  }

  func run(in session: Session) throws(ShellError) {
    for name in names {
      // `/Work` and `Work/` name a category as well as `Work` does.
      var bare = Substring(name)
      if bare.hasPrefix("/") { bare = bare.dropFirst() }
      if bare.hasSuffix("/") { bare = bare.dropLast() }
      _ = try ShellError.catching { () throws(ContextError) in
        try session.context.createCategory(named: String(bare))
      }
    }
  }
}

/// `rmdir`: delete categories and, by cascade, their documents.
struct RemoveCategoryCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "rmdir",
    usage: "rmdir [-f] NAME…",
    abstract: "delete categories and all of their documents",
    discussion: """
      A category that holds documents is deleted only after you confirm
      (Delete category "Work" and its 12 documents? [y/N]); an empty one goes without
      asking. -f does not ask. 'undo' brings the category and every document back.
      """,
    example: "rmdir -f Old",
    arguments: [.category])

  let force: Bool
  let paths: [String]

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    let parsed = try ParsedArguments.parse(
      arguments, flags: ["f", "force"], for: Self.configuration)
    guard !parsed.positionals.isEmpty else { throw Self.usageError("name the category to delete") }
    force = parsed.flags.contains("f") || parsed.flags.contains("force")
    paths = parsed.positionals
  }

  func run(in session: Session) throws(ShellError) {
    // Resolve every name first, so that a typo deletes nothing.
    var categories: [Category] = []
    for path in paths {
      let category = try ShellPath(path).category(in: session.context, from: nil)
      if !categories.contains(where: { $0.id == category.id }) { categories.append(category) }
    }
    for category in categories {
      let count = session.context.summary(of: category.id).documentCount
      if count > 0 && !force {
        let documents = count == 1 ? "its 1 document" : "its \(count) documents"
        guard try session.confirm("Delete category \"\(category.name)\" and \(documents)?") else {
          session.errors.writeLine("rmdir: kept \"\(category.name)\"")
          continue
        }
      }
      _ = try ShellError.catching { () throws(ContextError) in
        try session.context.deleteCategory(category.id)
      }
    }
  }
}
