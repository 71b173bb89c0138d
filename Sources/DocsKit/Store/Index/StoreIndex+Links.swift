// The links of saved contents (``DocumentLink``), kept with the full text: derived from each
// content, written and deleted with its full-text row (a content's links change only with
// it), and read to answer backlinks (each link with the text of its line, so that no
// linking content is read) and the links into a category.

/// A link of a saved content as the index keeps it.
struct LinkRow: Equatable {
  /// The line it is on, from 1.
  var line: Int
  /// The folded key of the category it names, when it names one.
  var categoryKey: String?
  /// The folded key of the document it names; `nil` for `[[#Heading]]`, which names the
  /// document holding it.
  var nameKey: String?
  /// Where its innermost `[[` is in the content (bytes).
  var start: Int
  /// Where its line starts in the content (bytes).
  var lineStart: Int
  /// The text of its line, as ``DocumentLink/line(around:inUTF8:)`` cuts it.
  var lineText: String

  /// The rows of the links in the UTF-8 text `content`, in order.
  static func rows(inUTF8 content: UnsafeRawBufferPointer) -> [LinkRow] {
    DocumentLink.links(inUTF8: content).map { link in
      let line = DocumentLink.line(around: link.range.lowerBound, inUTF8: content)
      return LinkRow(
        line: link.line, categoryKey: link.category?.key.folded, nameKey: link.name?.key.folded,
        start: link.range.lowerBound, lineStart: line.start, lineText: line.text)
    }
  }

  /// The rows of the links in `content`, in order.
  static func rows(in content: String) -> [LinkRow] {
    var content = content
    return content.withUTF8 { rows(inUTF8: UnsafeRawBufferPointer($0)) }
  }
}

/// A link of a saved document, as the store answers it: the document holding it, the link
/// (its ranges in that document's content) and the text of its line.
public struct IndexedLink: Sendable {
  /// The document holding the link, as saved.
  var source: StoredDocument
  /// The link.
  var link: DocumentLink
  /// The text of its line.
  var lineText: String
}

extension StoreIndex {
  // MARK: - Links

  /// Writes the rows of a content's links, that of row `rowID`.
  func insertLinks(of rowID: Int64, _ rows: [LinkRow]) throws(SQLiteError) {
    for row in rows {
      try database.run(
        """
        INSERT INTO links(source, line, category_key, name_key, start, line_start, line_text)
        VALUES(?, ?, ?, ?, ?, ?, ?)
        """,
        [
          .integer(rowID), .integer(Int64(row.line)), row.categoryKey.map { .text($0) } ?? .null,
          row.nameKey.map { .text($0) } ?? .null, .integer(Int64(row.start)),
          .integer(Int64(row.lineStart)), .text(row.lineText),
        ])
    }
  }

  /// The links of saved contents that name `target` (``LinkedDocument``), each with its line,
  /// in no order; `nil` when the links are not built (they are built with the full text).
  /// Found by the bytes of the keys when no other spelling equals them, else among every
  /// link (the keys are compared as names compare). One statement: each costs its
  /// preparing (about 270 K instructions for one like this) once a process.
  /// - Throws: ``SQLiteError``; `SQLITE_CORRUPT` when a row's line does not hold the link
  ///   the row says it does (a damaged index).
  func links(to target: LinkedDocument) throws(SQLiteError) -> [IndexedLink]? {
    guard let record = try record(), record.hasFullText else { return nil }
    var found: [IndexedLink] = []
    func collect(_ source: StoredDocument, _ row: SQLiteRow) throws(SQLiteError) {
      let link = try StoreIndex.link(of: row)
      guard target.isNamed(by: link.link, from: source.id, in: source.categoryID) else { return }
      found.append(IndexedLink(source: source, link: link.link, lineText: link.lineText))
    }
    let linkColumns = """
      l.line AS line, l.start AS start, l.line_start AS line_start, l.line_text AS line_text,
        l.name_key AS name_key, l.category_key AS category_key
      """
    // `[[#Heading]]` rows (no name key) are the document's own; the others are found by
    // `links_by_target`, and those through `links_by_source` (SQLite's MULTI-INDEX OR).
    let named =
      target.isFoundByBytes
      ? "l.name_key = ?1 AND (l.category_key = ?2 OR (l.category_key IS NULL AND (?4 OR c.uuid = ?3)))"
      : "l.name_key IS NOT NULL"
    try forEachDocumentRow(
      adding: linkColumns, from: "links l JOIN documents d ON d.id = l.source",
      where: """
        (\(named))
          OR (l.name_key IS NULL AND l.source = (SELECT id FROM documents WHERE uuid = ?5))
        """,
      [
        .text(target.name.key.folded), .text(target.categoryName.key.folded),
        .blob(StoreIndex.bytes(of: target.categoryID)), .integer(target.isUnique ? 1 : 0),
        .blob(StoreIndex.bytes(of: target.id)),
      ], collect)
    return found
  }

  /// The link a row of `links` holds, with its line's text.
  /// - Throws: ``SQLiteError`` (`SQLITE_CORRUPT`) when its line holds no such link.
  private static func link(of row: SQLiteRow) throws(SQLiteError)
    -> (link: DocumentLink, lineText: String)
  {
    var lineText = row.text("line_text")
    let line = row.int("line")
    let lineStart = row.int("line_start")
    let start = row.int("start")
    let link = lineText.withUTF8 {
      DocumentLink.link(at: start - lineStart, inUTF8: UnsafeRawBufferPointer($0), line: line)
    }
    // A NULL key reads as "", which no key is.
    guard let link, line >= 1, lineStart >= 0,
      link.name?.key.folded ?? "" == row.text("name_key"),
      link.category?.key.folded ?? "" == row.text("category_key")
    else {
      throw SQLiteError(
        operation: "read", code: SQLiteError.corrupt, message: "a link's line holds no such link")
    }
    return (link.shifted(by: lineStart), lineText)
  }

  /// The documents whose saved contents hold a `[[Category/Name]]` link naming `category`;
  /// `nil` when the links are not built.
  func documents(linkingInto category: Name) throws(SQLiteError) -> [StoredDocument]? {
    guard let record = try record(), record.hasFullText else { return nil }
    return try documentRows(
      where: "d.id IN (SELECT source FROM links WHERE category_key = ?)",
      [.text(category.key.folded)])
  }
}
