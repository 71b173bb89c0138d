import DocsKit

/// `import`: text files become documents; at the top level, folders become categories.
struct ImportCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "import",
    usage: "import [--replace] PATH…",
    abstract: "make documents of text files (in a category) or categories of folders (at the top)",
    discussion: """
      In a category, each FILE becomes a document of it: the file's name, its bytes, its
      modification time. At the top, each FOLDER becomes a category holding its regular
      files; subfolders, symbolic links and special files inside it are skipped and
      reported. A name that exists already is an error unless --replace. Files must be
      UTF-8 text named as documents may be. All or nothing: one bad file imports nothing,
      and undo takes the whole import back. A leading ~/ is your home folder.
      """,
    example: "import ~/notes/plan.txt ~/notes/ideas.md",
    arguments: [.file])

  let paths: [String]
  let replacing: Bool

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    let parsed = try ParsedArguments.parse(arguments, flags: ["replace"], for: Self.configuration)
    guard !parsed.positionals.isEmpty else {
      throw Self.usageError("name the files or folders to import")
    }
    paths = parsed.positionals
    replacing = parsed.flags.contains("replace")
  }

  func run(in session: Session) throws(ShellError) {
    if let category = session.currentCategory {
      var files: [ImportedFile] = []
      for path in paths.map(session.filePath) {
        if try FileImport.kind(of: path) == .folder {
          throw .input(
            "import: \(path) is a folder; folders become categories at the top (cd / first)")
        }
        files.append(try FileImport.readFile(at: path))
      }
      try add(files, to: category, in: session)
      report("\(count(files.count, "document"))", in: session)
      return
    }
    var folders: [ImportedFolder] = []
    for path in paths.map(session.filePath) {
      if try FileImport.kind(of: path) == .file {
        throw .input(
          "import: \(path) is a file; documents live in categories: cd into one first (or import a folder)"
        )
      }
      folders.append(try FileImport.readFolder(at: path))
    }
    try checkDistinct(folders.map { ($0.name, $0.path) }, what: "category")
    for folder in folders {
      let category: Category
      if let existing = session.context.category(named: folder.name) {
        guard replacing else {
          throw .input(
            "import: \(folder.path): a category named \"\(existing.name)\" exists (use --replace to import into it)"
          )
        }
        category = existing
      } else {
        category = try ShellError.catching { () throws(ContextError) in
          try session.context.createCategory(named: folder.name)
        }
      }
      try add(folder.files, to: category, in: session)
    }
    for line in folders.flatMap(\.skipped) { session.errors.writeLine(session.displayed(line)) }
    let documents = folders.reduce(0) { $0 + $1.files.count }
    report(
      "\(count(documents, "document")) in \(count(folders.count, "category", plural: "categories"))",
      in: session)
  }

  /// Creates (or, with `--replace`, rewrites) a document for each file.
  private func add(_ files: [ImportedFile], to category: Category, in session: Session)
    throws(ShellError)
  {
    try checkDistinct(files.map { ($0.name, $0.path) }, what: "document")
    for file in files {
      if let existing = session.context.document(named: file.name, in: category.id) {
        guard replacing else {
          throw .input(
            "import: \(file.path): \"\(category.name)/\(existing.name)\" exists (use --replace to replace it)"
          )
        }
        _ = try ShellError.catching { () throws(ContextError) in
          try session.context.setContent(file.content, of: existing.id, modified: file.modified)
        }
      } else {
        _ = try ShellError.catching { () throws(ContextError) in
          try session.context.createDocument(
            named: file.name, in: category.id, content: file.content, modified: file.modified)
        }
      }
    }
  }

  /// Refuses two paths that would give one name (ignoring case, as names do).
  private func checkDistinct(_ names: [(name: String, path: String)], what: String)
    throws(ShellError)
  {
    var seen: [NameKey: String] = [:]
    for (name, path) in names {
      if let other = seen[NameKey(name)] {
        throw .input("import: \(other) and \(path) would both be the \(what) \"\(name)\"")
      }
      seen[NameKey(name)] = path
    }
  }

  private func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
    "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
  }

  private func report(_ what: String, in session: Session) {
    if session.settings.isInteractive { session.errors.writeLine("Imported \(what).") }
  }
}
