import DocsKit

/// `export`: every document (or those of the categories named) as `DEST/CATEGORY/NAME.md`.
struct ExportCommand: ShellCommand {
  static let force = OptionSpec.flag("--force", "-f")

  static let configuration = CommandConfiguration(
    name: "export",
    abstract: "write documents as files DEST/CATEGORY/NAME.md, keeping their dates",
    discussion: """
      Writes every category (or only those named) as a folder of DEST and each document as
      a file NAME.md in it (.md added to every name: notes.txt is notes.txt.md), so that
      DEST opens as an Obsidian vault: the content byte for byte after a YAML header of its
      tags, if any; the file's modification time the document's. DEST is created when
      missing. Existing files are an error unless --force,
      which replaces them (a symbolic link is replaced, never followed); nothing is written
      outside DEST. Unsaved changes are exported as they are. A leading ~/ is your home
      folder.
      """,
    example: "export ~/notes-backup Work",
    arguments: ArgumentSpec(
      options: [force],
      positionals: [
        PositionalSpec("DEST", completing: .file),
        PositionalSpec("CATEGORY", .zeroOrMore, completing: .category),
      ],
      whenMissing: "name the folder to export to"),
    isUndoable: false)

  let destination: String
  let categoryPaths: [String]
  let replacing: Bool

  init(_ arguments: ParsedArguments) throws(ShellError) {
    destination = arguments.positionals[0]
    guard !destination.isEmpty else {
      throw Self.usageError("the folder to export to cannot be empty")
    }
    categoryPaths = Array(arguments.positionals.dropFirst())
    replacing = arguments.isSet(Self.force)
  }

  func run(in session: Session) throws -> CommandResult {
    var categories: [Category] = []
    if categoryPaths.isEmpty {
      categories = session.context.categories()
    } else {
      for path in categoryPaths {
        let category = try ShellPath(path).category(
          in: session.context, from: session.currentCategory)
        if !categories.contains(where: { $0.id == category.id }) { categories.append(category) }
      }
    }
    let folders = try categories.map { category throws(ContextError) in
      FileExport.Folder(
        name: category.name.text, documents: try session.context.documents(in: category.id))
    }
    let documents = folders.reduce(0) { $0 + $1.documents.count }
    let export = FileExport(destination: session.filePath(destination), replacing: replacing)
    try session.collaborators.reportingProgress(
      "exporting", total: documents, unit: .items("documents")
    ) { advance in
      // Ctrl-C stops it before any document: the files it made are removed again.
      try export.write(
        folders,
        content: { document in
          try session.stopIfInterrupted(.exporting)
          return try session.context.content(of: document.id)
        }, progress: advance)
    }
    guard session.settings.isInteractive else { return .nothing }
    return .messages([
      "Exported \(documents) document\(documents == 1 ? "" : "s") in \(folders.count) "
        + "categor\(folders.count == 1 ? "y" : "ies") to \(destination)."
    ])
  }
}
