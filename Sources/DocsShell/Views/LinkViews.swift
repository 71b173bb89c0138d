import DocsKit

/// What `links`, `backlinks` and the link lines of `check` print.
enum LinkViews {
  /// `LINE: [[TARGET]] -> CATEGORY/NAME`, or `(missing)`.
  static func linkLines(_ links: [LocatedLink]) -> [String] {
    links.map { located in
      "\(located.link.line): [[\(located.link.target)]] -> \(located.target?.path ?? "(missing)")"
    }
  }

  /// `links --json`: `[{"line","target","text","category","name"}]`.
  static func linksJSON(_ links: [LocatedLink]) -> JSONValue {
    .array(
      links.map { located in
        .object([
          ("line", .integer(located.link.line)), ("target", .string(located.link.target)),
          ("text", located.link.shownText.map { .string($0) } ?? .null),
          ("category", located.target.map { .string($0.categoryName) } ?? .null),
          ("name", located.target.map { .string($0.document.name.text) } ?? .null),
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

  /// `check`'s lines for links to documents that do not exist.
  static func missingLines(_ missing: [LocatedBacklink]) -> [String] {
    guard !missing.isEmpty else { return [] }
    let count = missing.count == 1 ? "1 link names" : "\(missing.count) links name"
    return ["  links: \(count) no document"]
      + missing.map {
        "    \($0.source.path):\($0.backlink.link.line): [[\($0.backlink.link.target)]]"
      }
  }
}
