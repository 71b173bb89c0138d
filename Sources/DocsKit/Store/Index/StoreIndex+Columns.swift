// The columns of the index's tables, declared once: the INSERT, UPDATE and SELECT lists are
// made from these declarations and rows are read back by these names, never by position.
// The schema (StoreIndex.schema) creates them; a test holds the two together.

/// A column of the `documents` table, in the schema's order.
enum DocumentColumn: String, CaseIterable {
  case id, uuid, category, position, name
  case nameKey = "name_key"
  case size, modified
  case objectOffset = "object_offset"
  case objectLength = "object_length"
  case contentOffset = "content_offset"
  case contentLength = "content_length"
  /// 1 when the document's last save is in the save log: its ranges are then offsets of the
  /// log, not relative to its category's run in the store file.
  case inLog = "in_log"
  /// The document's tags as written, a JSON array of strings; `NULL` for none.
  case tags
  /// Their keys, a JSON array in the same order, that the `document_tags` table follows.
  case tagKeys = "tag_keys"

  /// What a document is read from: ``StoreIndex/document(_:category:base:)`` reads these.
  static let read: [DocumentColumn] = [
    .uuid, .name, .size, .modified, .objectOffset, .objectLength, .contentOffset, .contentLength,
    .inLog, .tags,
  ]

  /// The columns a save rewrites when a document moved: all but the row id and uuid.
  static let rewritten = allCases.filter { $0 != .id && $0 != .uuid }

  /// `d.uuid AS uuid, …` for the columns `columns` of the table named `table` in a query.
  static func selecting(_ columns: [DocumentColumn], from table: String) -> String {
    columns.map { "\(table).\($0.rawValue) AS \($0.rawValue)" }.joined(separator: ", ")
  }
}

/// A column of the `categories` table, in the schema's order.
enum CategoryColumn: String, CaseIterable {
  case id, uuid, name, ordinal, start
  case documentsOffset = "documents_offset"
  case documentsLength = "documents_length"
  case documentCount = "document_count"
  case totalSize = "total_size"
  case latestModified = "latest_modified"
  /// 1 when a record of the save log made, renamed or changed the category: its run in the
  /// store file is then not (or not only) its documents.
  case inLog = "in_log"

  /// The columns a save rewrites when a category changed: all but the row id and uuid.
  static let rewritten = allCases.filter { $0 != .id && $0 != .uuid }
}

extension StoreIndex {
  // MARK: - Statements made from the columns

  /// `INSERT INTO documents(…every column…) VALUES(?, …)`, bound with ``documentValues``.
  static let insertDocumentSQL = insertSQL(
    "documents", DocumentColumn.allCases.map(\.rawValue))

  /// `UPDATE documents SET …` of the rewritten columns, by row id, only when one differs (the
  /// folded name key follows the name): bound with the rewritten values, then the row id.
  static let updateDocumentSQL: String = {
    let columns = DocumentColumn.rewritten
    let number = Dictionary(
      uniqueKeysWithValues: columns.enumerated().map { ($1, "?\($0 + 1)") })
    let compared = columns.filter { $0 != .nameKey }
    return """
      UPDATE documents SET \(columns.map { "\($0.rawValue) = \(number[$0] ?? "")" }.joined(separator: ", "))
      WHERE id = ?\(columns.count + 1)
        AND (\(compared.map(\.rawValue).joined(separator: ", ")))
        IS NOT (\(compared.map { number[$0] ?? "" }.joined(separator: ", ")))
      """
  }()

  /// `INSERT INTO categories(…every column but the row id…) VALUES(?, …)`.
  static let insertCategorySQL = insertSQL(
    "categories", CategoryColumn.allCases.filter { $0 != .id }.map(\.rawValue))

  /// `UPDATE categories SET …` of the rewritten columns, by row id.
  static let updateCategorySQL = """
    UPDATE categories SET \(CategoryColumn.rewritten.map { "\($0.rawValue) = ?" }.joined(separator: ", "))
    WHERE id = ?
    """

  private static func insertSQL(_ table: String, _ columns: [String]) -> String {
    let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
    return "INSERT INTO \(table)(\(columns.joined(separator: ", "))) VALUES(\(marks))"
  }

  // MARK: - Values of a row

  /// The value of each column of `columns` for `document` at `position` in the category row
  /// `category`, its ranges made relative to `base` (unless it is in the log); the row id is
  /// `rowID` (`nil`: SQLite picks one).
  static func documentValues(
    _ document: StoredDocument, category: Int64, position: Int, base: Int, rowID: Int64? = nil,
    columns: [DocumentColumn] = DocumentColumn.allCases
  ) -> [SQLiteValue] {
    var values: [SQLiteValue] = []
    values.reserveCapacity(columns.count)
    appendDocumentValues(
      document, category: category, position: position, base: base, rowID: rowID,
      columns: columns, to: &values)
    return values
  }

  /// Appends ``documentValues(_:category:position:base:rowID:columns:)`` to `values`: a
  /// batch of rows is filled in place, not through an array a row.
  static func appendDocumentValues(
    _ document: StoredDocument, category: Int64, position: Int, base: Int, rowID: Int64? = nil,
    columns: [DocumentColumn] = DocumentColumn.allCases, to values: inout [SQLiteValue]
  ) {
    // A document in the log is placed by the log's own offsets.
    let inLog = document.location.file == .log
    let from = inLog ? 0 : base
    for column in columns {
      let value: SQLiteValue
      switch column {
      case .id: value = rowID.map { .integer($0) } ?? .null
      case .uuid: value = .blob(bytes(of: document.id))
      case .category: value = .integer(category)
      case .position: value = .integer(Int64(position))
      case .name: value = .text(document.name.text)
      case .nameKey: value = .text(document.name.key.folded)
      case .size: value = .integer(Int64(document.size))
      case .modified: value = .integer(document.modified.millisecondsSince1970)
      case .objectOffset: value = .integer(Int64(document.location.offset - from))
      case .objectLength: value = .integer(Int64(document.location.length))
      case .contentOffset: value = .integer(Int64(document.contentLocation.offset - from))
      case .contentLength: value = .integer(Int64(document.contentLocation.length))
      case .inLog: value = .integer(inLog ? 1 : 0)
      case .tags: value = tagArray(document.tags.map(\.text))
      case .tagKeys: value = tagArray(document.tags.map(\.key.folded))
      }
      values.append(value)
    }
  }

  /// A JSON array of `texts` (tags and their keys need no escapes), `NULL` when empty.
  static func tagArray(_ texts: [String]) -> SQLiteValue {
    texts.isEmpty ? .null : .text("[" + texts.map { "\"\($0)\"" }.joined(separator: ",") + "]")
  }

  /// The tags of a `tags` column, `nil` when it is not what ``tagArray(_:)`` writes.
  static func tags(fromArray text: String?) -> [Tag]? {
    guard let text else { return [] }
    let bytes = text.utf8
    guard bytes.count >= 4, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]")
    else { return nil }
    var tags: [Tag] = []
    // `["a","b"]`: a tag holds no quote or comma, so the commas split it.
    for part in bytes.dropFirst().dropLast().split(
      separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
    {
      guard part.count >= 3, part.first == UInt8(ascii: "\""), part.last == UInt8(ascii: "\"")
      else { return nil }
      let word = String(decoding: part.dropFirst().dropLast(), as: UTF8.self)
      guard let tag = try? Tag(word), tag.text == word else { return nil }
      tags.append(tag)
    }
    return tags
  }

  /// The value of each column of `columns` for the category `id`.
  static func categoryValues(
    id: ObjectID, name: String, ordinal: Int, placement: CategoryPlacement,
    summary: CategorySummary, touchedByLog: Bool = false, columns: [CategoryColumn]
  ) -> [SQLiteValue] {
    columns.map { column in
      switch column {
      case .id: return .null
      case .uuid: return .blob(bytes(of: id))
      case .name: return .text(name)
      case .ordinal: return .integer(Int64(ordinal))
      case .start: return .integer(Int64(placement.start))
      case .documentsOffset: return .integer(Int64(placement.documents.offset))
      case .documentsLength: return .integer(Int64(placement.documents.length))
      case .documentCount: return .integer(Int64(summary.documentCount))
      case .totalSize: return .integer(Int64(summary.totalSize))
      case .latestModified:
        return summary.latestModification.map { .integer($0.millisecondsSince1970) } ?? .null
      case .inLog: return .integer(touchedByLog ? 1 : 0)
      }
    }
  }

  // MARK: - The UUID codec

  /// The 16 bytes an object id is stored as (big-endian, as its text reads).
  static func bytes(of id: ObjectID) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(16)
    for shift in stride(from: 56, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: id.high >> UInt64(shift)))
    }
    for shift in stride(from: 56, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: id.low >> UInt64(shift)))
    }
    return bytes
  }

  /// The object id stored as `bytes`; `nil` when they are not 16.
  static func objectID(_ bytes: some RandomAccessCollection<UInt8>) -> ObjectID? {
    guard bytes.count == 16 else { return nil }
    var high: UInt64 = 0
    var low: UInt64 = 0
    for (offset, byte) in bytes.enumerated() {
      if offset < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
    }
    return ObjectID(high: high, low: low)
  }
}
