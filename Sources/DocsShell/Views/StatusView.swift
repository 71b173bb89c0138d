import DocsKit

/// What `status` shows: the unsaved changes, like `git status`.
struct StatusView {
  let report: StatusReport

  /// The lines of the report. Paths are escaped as table cells; the labels' colors are
  /// the view's own and never escaped.
  func lines(colors: Colors) -> [String] {
    changeLines(colors: colors) + savedElsewhereLines + unpushedLines
  }

  /// `2 saves by other sessions came in since your changes began; 'save' merges them.`
  private var savedElsewhereLines: [String] {
    switch report.savedElsewhere {
    case .none: return []
    case .saves(let count):
      return [
        "\(count == 1 ? "1 save" : "\(count) saves") by other sessions came in since your changes began; 'save' merges them."
      ]
    case .replaced:
      return [
        "Another session rewrote the store since your changes began; 'save' merges what it saved."
      ]
    }
  }

  /// `2 commits not pushed yet ('sync' sends them).`, when there are any.
  private var unpushedLines: [String] {
    guard let count = report.unpushedCommits, count > 0 else { return [] }
    return ["\(count) commit\(count == 1 ? "" : "s") not pushed yet ('sync' sends them)."]
  }

  private func changeLines(colors: Colors) -> [String] {
    guard report.count > 0 else { return ["No unsaved changes."] }
    let rows = report.entries.map { entry -> [TableRenderer.Cell] in
      let (label, style) = StatusView.label(of: entry.change)
      let names = entry.properties.map(\.rawValue).joined(separator: ", ")
      let path = entry.properties.isEmpty ? entry.path : "\(entry.path) (\(names))"
      return [TableRenderer.Cell(label, style: style), TableRenderer.Cell(path)]
    }
    let count = report.count
    let header =
      "\(count) unsaved change\(count == 1 ? "" : "s") (save to keep, revert to discard):"
    return [header] + TableRenderer(colors: colors).render(rows: rows).map { "  " + $0 }
  }

  /// The report as JSON: `{"changes": N, "categories": {…}, "documents": {…}}`.
  func json() -> JSONValue {
    func paths(_ change: StatusEntry.Change) -> JSONValue {
      .array(
        report.entries.filter { $0.change == change }.map {
          .string($0.documentName == nil ? $0.categoryName : $0.path)
        })
    }
    return .object([
      ("changes", .integer(report.count)),
      (
        "categories",
        .object([
          ("new", paths(.newCategory)), ("renamed", paths(.renamedCategory)),
          ("deleted", paths(.deletedCategory)),
        ])
      ),
      (
        "documents",
        .object([
          ("new", paths(.newDocument)),
          (
            "changed",
            .array(
              report.entries.filter { $0.change == .changedDocument }.map { entry in
                .object([
                  ("path", .string(entry.path)),
                  ("properties", .array(entry.properties.map { .string($0.rawValue) })),
                ])
              })
          ),
          ("deleted", paths(.deletedDocument)),
        ])
      ),
      ("unpushed", report.unpushedCommits.map { .integer($0) } ?? .null),
      ("savedElsewhere", StatusView.savedElsewhereJSON(report.savedElsewhere)),
    ])
  }

  /// How many saves came in from other sessions: a number, `true` when the file was
  /// rewritten (a count not known), `0` when none.
  private static func savedElsewhereJSON(_ movement: StoreMovement) -> JSONValue {
    switch movement {
    case .none: .integer(0)
    case .saves(let count): .integer(count)
    case .replaced: .bool(true)
    }
  }

  private static func label(of change: StatusEntry.Change) -> (String, TerminalStyle) {
    switch change {
    case .newCategory: ("new category:", .size)
    case .renamedCategory: ("renamed category:", .warning)
    case .deletedCategory: ("deleted category:", .error)
    case .newDocument: ("new:", .size)
    case .changedDocument: ("changed:", .warning)
    case .deletedDocument: ("deleted:", .error)
    }
  }
}
