import DocsKit

/// What `links`, `backlinks` and the link lines of `check` print.
enum LinkViews {
  /// `LINE: [[TARGET]] -> CATEGORY/NAME`, `(missing)`, or `(ambiguous: CATEGORY/NAME, …)`.
  static func linkLines(_ links: [LocatedLink]) -> [String] {
    links.map { located in
      let resolved =
        located.target?.path
        ?? (located.candidates.isEmpty
          ? "(missing)" : "(ambiguous: \(located.candidates.map(\.path).joined(separator: ", ")))")
      return "\(located.link.line): \(written(located.link)) -> \(resolved)"
    }
  }

  /// The link as written, without its shown text: `[[TARGET]]` or `![[TARGET]]`.
  static func written(_ link: DocumentLink) -> String {
    (link.isEmbed ? "!" : "") + "[[" + link.target + "]]"
  }

  /// `links --json`: `[{"line","target","text","category","name","candidates"}]`.
  static func linksJSON(_ links: [LocatedLink]) -> JSONValue {
    .array(
      links.map { located in
        .object([
          ("line", .integer(located.link.line)), ("target", .string(located.link.target)),
          ("text", located.link.shownText.map { .string($0) } ?? .null),
          ("category", located.target.map { .string($0.categoryName) } ?? .null),
          ("name", located.target.map { .string($0.document.name.text) } ?? .null),
          ("candidates", .array(located.candidates.map { .string($0.path) })),
        ])
      })
  }

  /// `CATEGORY/NAME:LINE: text`.
  static func backlinkLines(_ backlinks: [LocatedBacklink]) -> [String] {
    backlinks.map { "\($0.source.path):\($0.backlink.link.line): \($0.backlink.lineText)" }
  }

  /// `backlinks --json`: `[{"category","name","line","text"}]`.
  static func backlinksJSON(_ backlinks: [LocatedBacklink]) -> JSONValue {
    .array(
      backlinks.map { located in
        .object([
          ("category", .string(located.source.categoryName)),
          ("name", .string(located.source.document.name.text)),
          ("line", .integer(located.backlink.link.line)),
          ("text", .string(located.backlink.lineText)),
        ])
      })
  }

  /// `check`'s lines for links to documents that do not exist, then for bare names that
  /// name more than one, each with its candidates.
  static func missingLines(_ unresolved: [LocatedBacklink]) -> [String] {
    let missing = unresolved.filter { $0.candidates.isEmpty }
    let ambiguous = unresolved.filter { !$0.candidates.isEmpty }
    var lines: [String] = []
    if !missing.isEmpty {
      let count = missing.count == 1 ? "1 link names" : "\(missing.count) links name"
      lines.append("  links: \(count) no document")
      lines += missing.map {
        "    \($0.source.path):\($0.backlink.link.line): \(written($0.backlink.link))"
      }
    }
    if !ambiguous.isEmpty {
      let count =
        ambiguous.count == 1
        ? "1 link names more than one document"
        : "\(ambiguous.count) links name more than one document"
      lines.append("  links: \(count) (write Category/Name)")
      lines += ambiguous.map {
        "    \($0.source.path):\($0.backlink.link.line): \(written($0.backlink.link)): "
          + $0.candidates.map(\.path).joined(separator: ", ")
      }
    }
    return lines
  }
}
