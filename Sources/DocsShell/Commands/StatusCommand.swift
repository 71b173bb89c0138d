import DocsKit

/// `status`: the unsaved changes, like `git status`.
struct StatusCommand: FlagsCommand {
  static let configuration = CommandConfiguration(
    name: "status",
    abstract: "show the unsaved changes: new, changed (which properties), deleted",
    example: "status",
    arguments: ArgumentSpec(options: [.json], whenExtra: "takes no names"),
    isUndoable: false,
    pagesOutput: true)

  let arguments: ParsedArguments

  func run(in session: Session) throws -> CommandResult {
    var report = StatusReport(try session.context.changes(), in: session.context)
    if report.count > 0 { report.savedElsewhere = session.context.storeMovement }
    // Counted from what was last fetched: status never touches the network.
    if let repository = try? session.collaborators.repository?.repository() {
      report.unpushedCommits = try? repository.unpushedCommitCount()
    }
    return .status(report, arguments.outputFormat)
  }
}

extension StatusReport {
  /// The report of `changes`, with every path spelled out: a document's category as it is
  /// now, or as it was when it was deleted too.
  init(_ changes: ChangeSummary, in context: Context) {
    self.init(changes) { context.category(withID: $0)?.name.text }
  }

  /// The report of `changes`, with a document's category named by `categoryName` (or as it
  /// was when it was deleted too).
  init(_ changes: ChangeSummary, categoryName name: (ObjectID) -> String?) {
    let deletedCategoryNames = Dictionary(
      changes.deletedCategories.map { ($0.id, $0.name.text) },
      uniquingKeysWith: { first, _ in first })
    func categoryName(of document: Document) -> String {
      name(document.categoryID) ?? deletedCategoryNames[document.categoryID] ?? "?"
    }
    func entry(_ change: StatusEntry.Change, _ document: Document) -> StatusEntry {
      StatusEntry(
        change: change, categoryName: categoryName(of: document),
        documentName: document.name.text)
    }
    var entries: [StatusEntry] = []
    entries += changes.insertedCategories.map {
      StatusEntry(change: .newCategory, categoryName: $0.name.text)
    }
    entries += changes.updatedCategories.map {
      StatusEntry(change: .renamedCategory, categoryName: $0.object.name.text)
    }
    entries += changes.deletedCategories.map {
      StatusEntry(change: .deletedCategory, categoryName: $0.name.text)
    }
    entries += changes.insertedDocuments.map { entry(.newDocument, $0) }
    entries += changes.updatedDocuments.map { update in
      var changed = entry(.changedDocument, update.object)
      changed.properties = DocumentProperty.allCases.filter { update.properties.contains($0) }
      return changed
    }
    entries += changes.deletedDocuments.map { entry(.deletedDocument, $0) }
    self.init(count: changes.count, entries: entries)
  }
}
