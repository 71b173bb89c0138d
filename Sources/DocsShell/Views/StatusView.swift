import DocsKit

/// What `status` shows: the unsaved changes, like `git status`.
struct StatusView {
  let context: Context
  let changes: ChangeSummary
  private let deletedCategoryNames: [ObjectID: String]

  init(context: Context) {
    self.context = context
    changes = context.changes()
    deletedCategoryNames = Dictionary(
      changes.deletedCategories.map { ($0.id, $0.name.text) },
      uniquingKeysWith: { first, _ in first })
  }

  /// The lines of the report.
  func lines(colors: Colors) -> [String] {
    guard !changes.isEmpty else { return ["No unsaved changes."] }
    let count = changes.count
    var rows: [[TableRenderer.Cell]] = []
    func row(_ label: String, _ path: String, _ style: TerminalStyle) {
      rows.append([TableRenderer.Cell(label, style: style), TableRenderer.Cell(path)])
    }
    for category in changes.insertedCategories {
      row("new category:", category.name.text + "/", .size)
    }
    for update in changes.updatedCategories {
      row("renamed category:", update.object.name.text + "/", .warning)
    }
    for category in changes.deletedCategories {
      row("deleted category:", category.name.text + "/", .error)
    }
    for document in changes.insertedDocuments { row("new:", path(of: document), .size) }
    for update in changes.updatedDocuments {
      let properties = DocumentProperty.allCases.filter { update.properties.contains($0) }
        .map(\.rawValue).joined(separator: ", ")
      row("changed:", "\(path(of: update.object)) (\(properties))", .warning)
    }
    for document in changes.deletedDocuments { row("deleted:", path(of: document), .error) }
    let header =
      "\(count) unsaved change\(count == 1 ? "" : "s") (save to keep, revert to discard):"
    return [header] + TableRenderer(colors: colors).render(rows: rows).map { "  " + $0 }
  }

  /// The report as JSON: `{"changes": N, "categories": {…}, "documents": {…}}`.
  func json() -> JSONValue {
    func documents(_ list: [Document]) -> JSONValue {
      .array(list.map { .string(path(of: $0)) })
    }
    return .object([
      ("changes", .integer(changes.count)),
      (
        "categories",
        .object([
          ("new", .array(changes.insertedCategories.map { .string($0.name.text) })),
          ("renamed", .array(changes.updatedCategories.map { .string($0.object.name.text) })),
          ("deleted", .array(changes.deletedCategories.map { .string($0.name.text) })),
        ])
      ),
      (
        "documents",
        .object([
          ("new", documents(changes.insertedDocuments)),
          (
            "changed",
            .array(
              changes.updatedDocuments.map { update in
                .object([
                  ("path", .string(path(of: update.object))),
                  (
                    "properties",
                    .array(
                      DocumentProperty.allCases.filter { update.properties.contains($0) }.map {
                        .string($0.rawValue)
                      })
                  ),
                ])
              })
          ),
          ("deleted", documents(changes.deletedDocuments)),
        ])
      ),
    ])
  }

  /// `CATEGORY/NAME`, with the category as it was when it is gone.
  private func path(of document: Document) -> String {
    let category =
      context.category(withID: document.categoryID)?.name.text
      ?? deletedCategoryNames[document.categoryID]
      ?? "?"
    return "\(category)/\(document.name)"
  }
}
