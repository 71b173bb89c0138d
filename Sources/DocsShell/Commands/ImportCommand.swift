import DocsKit

/// `import`: text files become documents; at the top level, folders become categories.
struct ImportCommand: ShellCommand {
  static let replace = OptionSpec.flag("--replace")

  static let configuration = CommandConfiguration(
    name: "import",
    abstract: "make documents of text files (in a category) or categories of folders (at the top)",
    discussion: """
      In a category, each FILE becomes a document of it: the file's name (without one .md
      at its end: ideas.md is ideas, as export writes it), its bytes, its modification
      time. A YAML header's tags (a list, or words on one line) become the document's tags;
      its other keys stay in the content. At the top, each FOLDER becomes a category holding its regular
      files; subfolders, symbolic links and special files inside it are skipped and
      reported. A name that exists already is an error unless --replace. Files must be
      UTF-8 text named as documents may be. All or nothing: one bad file imports nothing,
      and undo takes the whole import back. A leading ~/ is your home folder.
      """,
    example: "import ~/notes/plan.txt ~/notes/ideas.md",
    arguments: ArgumentSpec(
      options: [replace], positionals: [PositionalSpec("PATH", .oneOrMore, completing: .file)],
      whenMissing: "name the files or folders to import"))

  let paths: [String]
  let replacing: Bool

  init(_ arguments: ParsedArguments) {
    paths = arguments.positionals
    replacing = arguments.isSet(Self.replace)
  }

  func run(in session: Session) throws -> CommandResult {
    if let category = session.currentCategory {
      var files: [ImportedFile] = []
      for path in paths.map(session.filePath) {
        try session.stopIfInterrupted(.readingFiles)
        if try FileImport.kind(of: path) == .folder {
          throw ImportError.folderInCategory(path: path)
        }
        files.append(try FileImport.readFile(at: path))
      }
      try add(files, to: category, in: session)
      return .messages(imported("\(count(files.count, "document"))", in: session))
    }
    var folders: [ImportedFolder] = []
    for path in paths.map(session.filePath) {
      if try FileImport.kind(of: path) == .file { throw ImportError.fileAtTop(path: path) }
      folders.append(try readFolder(at: path, in: session))
    }
    try checkDistinct(folders.map { ($0.name, $0.path) }, what: "category")
    for folder in folders {
      let category: Category
      if let existing = session.context.category(named: folder.name) {
        guard replacing else {
          throw ImportError.categoryExists(path: folder.path, name: existing.name.text)
        }
        category = existing
      } else {
        category = try session.context.createCategory(named: folder.name)
      }
      try add(folder.files, to: category, in: session)
    }
    let documents = folders.reduce(0) { $0 + $1.files.count }
    let what =
      "\(count(documents, "document")) in \(count(folders.count, "category", plural: "categories"))"
    return .messages(folders.flatMap(\.skipped) + imported(what, in: session))
  }

  /// Creates (or, with `--replace`, rewrites) a document for each file; Ctrl-C stops it
  /// after any of them (the command's undo group then takes them all back).
  private func add(_ files: [ImportedFile], to category: Category, in session: Session) throws {
    try checkDistinct(files.map { ($0.name, $0.path) }, what: "document")
    for file in files {
      // A header's tags (as export writes them) are the document's; its other keys stay.
      let (tags, content) = TagsHeader.split(file.content)
      let document: Document
      if let existing = try session.context.document(named: file.name, in: category.id) {
        guard replacing else {
          throw ImportError.documentExists(
            path: file.path, document: "\(category.name)/\(existing.name)")
        }
        document = try session.context.setContent(content, of: existing.id, modified: file.modified)
      } else {
        document = try session.context.createDocument(
          named: file.name, in: category.id, content: content, modified: file.modified)
      }
      if !tags.isEmpty { try session.context.tag([document.id], with: tags) }
      try session.stopIfInterrupted(.importing)
    }
  }

  /// Refuses two paths that would give one name (ignoring case, as names do).
  private func checkDistinct(_ names: [(name: String, path: String)], what: String)
    throws(ImportError)
  {
    var seen: [NameKey: String] = [:]
    for (name, path) in names {
      if let other = seen[NameKey(name)] {
        throw .sameName(other, path, kind: what, name: name)
      }
      seen[NameKey(name)] = path
    }
  }

  private func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
    "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
  }

  /// Reads the folder at `path`, its files counted on the progress line: the count is known
  /// once the folder is listed. Ctrl-C stops it between two files.
  private func readFolder(at path: String, in session: Session) throws -> ImportedFolder {
    let progress = session.collaborators.progress
    var began = false
    defer { if began { progress?.end() } }
    return try FileImport.readFolder(at: path) { done, total in
      try session.stopIfInterrupted(.readingFiles)
      guard let progress else { return }
      if !began {
        progress.begin(
          "importing \(FileImport.lastComponent(of: path))", total: total, unit: .items("files"))
        began = true
      }
      progress.advance(to: done)
    }
  }

  /// `Imported 3 documents.`, for the person at the terminal only.
  private func imported(_ what: String, in session: Session) -> [String] {
    session.settings.isInteractive ? ["Imported \(what)."] : []
  }
}
