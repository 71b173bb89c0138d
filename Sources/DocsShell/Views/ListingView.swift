import DocsKit

/// The tables `ls` prints: categories with counts, sizes and dates; documents with sizes and
/// dates. Human sizes and short dates, or exact bytes and full timestamps with `-l`.
struct ListingView {
  let colors: Colors
  let dates: DateFormatting
  let now: Timestamp
  let long: Bool

  /// One line per category: `Work/  12 documents  24 kB  Nov 29 14:53`.
  func categoryTable(_ listings: [CategoryListing]) -> [String] {
    let renderer = TableRenderer(alignments: [.left, .right, .right, .left], colors: colors)
    return renderer.render(
      rows: listings.map { listing in
        let summary = listing.summary
        return [
          TableRenderer.Cell(listing.category.name.text + "/", style: .category),
          // "1 document " keeps the numbers of "12 documents" aligned.
          TableRenderer.Cell(
            "\(summary.documentCount) " + (summary.documentCount == 1 ? "document " : "documents")),
          TableRenderer.Cell(size(summary.totalSize), style: .size),
          TableRenderer.Cell(summary.latestModification.map(date) ?? "-", style: .dim),
        ]
      })
  }

  /// One line per document: `Plan  1.2 kB  Nov 29 14:53`.
  func documentTable(_ documents: [Document]) -> [String] {
    // `ls -l` shows tags in a fourth column, when a document listed holds any.
    let showsTags = long && documents.contains { !$0.tags.isEmpty }
    let renderer = TableRenderer(
      alignments: showsTags ? [.left, .right, .left, .left] : [.left, .right, .left],
      colors: colors)
    // Column by column: no array a row (`ls` of a large category lists thousands).
    var columns = [
      documents.map { TableRenderer.Cell($0.name.text) },
      documents.map { TableRenderer.Cell(size($0.size), style: .size) },
      documents.map { TableRenderer.Cell(date($0.modified), style: .dim) },
    ]
    if showsTags {
      columns.append(
        documents.map {
          TableRenderer.Cell($0.tags.map { "#" + $0.text }.joined(separator: " "))
        })
    }
    return renderer.render(columns: columns)
  }

  /// The tags with their counts: `TAG  N`.
  func tagTable(_ counts: [TagCount]) -> [String] {
    TableRenderer(alignments: [.left, .right], colors: colors).render(
      rows: counts.map { [TableRenderer.Cell($0.tag.text), TableRenderer.Cell(String($0.count))] })
  }

  /// `tags --json`: `[{"tag","documents"}]`.
  static func tagsJSON(_ counts: [TagCount]) -> JSONValue {
    .array(
      counts.map { .object([("tag", .string($0.tag.text)), ("documents", .integer($0.count))]) })
  }

  /// `("tags", [...])` for a document holding tags, nothing for one holding none (so that
  /// the JSON of untagged documents stays as it was).
  static func tagsField(_ document: Document) -> [(String, JSONValue)] {
    document.tags.isEmpty ? [] : [("tags", .array(document.tags.map { .string($0.text) }))]
  }

  /// The categories as JSON: `[{"name","documents","size","modified"}]`.
  static func categoriesJSON(_ listings: [CategoryListing]) -> JSONValue {
    .array(
      listings.map { listing in
        .object([
          ("name", .string(listing.category.name.text)),
          ("documents", .integer(listing.summary.documentCount)),
          ("size", .integer(listing.summary.totalSize)),
          ("modified", .date(listing.summary.latestModification)),
        ])
      })
  }

  /// The documents as JSON: `[{"name","size","modified"}]`.
  static func documentsJSON(_ documents: [Document]) -> JSONValue {
    .array(
      documents.map { document in
        .object(
          [
            ("name", .string(document.name.text)), ("size", .integer(document.size)),
            ("modified", .date(document.modified)),
          ] + tagsField(document))
      })
  }

  private func size(_ bytes: Int) -> String {
    long ? SizeFormatting.exactBytes(bytes) : SizeFormatting.humanReadable(bytes)
  }

  private func date(_ timestamp: Timestamp) -> String {
    long
      ? dates.full(timestamp.millisecondsSince1970)
      : dates.short(timestamp.millisecondsSince1970, now: now.millisecondsSince1970)
  }
}
