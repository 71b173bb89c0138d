// The identity row, and the reads a session answers from: categories, their documents, a
// document's category, documents by name.

extension StoreIndex {
  // MARK: - The identity

  /// The identity row; `nil` when the index describes nothing yet.
  func record() throws(SQLiteError) -> IndexRecord? {
    var found: IndexRecord?
    try database.query(
      """
      SELECT store_path, device, inode, size, mtime_ns, ctime_ns, generation, recorded_ns,
        full_text, log_end, log_last, log_checksum, log_generation FROM identity
      WHERE singleton = 1
      """
    ) { row throws(SQLiteError) in
      let last: (start: Int, checksum: UInt32)? =
        row.isNull("log_last")
        ? nil
        : (row.int("log_last"), UInt32(truncatingIfNeeded: row.integer("log_checksum")))
      found = IndexRecord(
        identity: IndexIdentity(
          storePath: row.text("store_path"), device: row.integer("device"),
          inode: row.integer("inode"), size: row.integer("size"),
          modificationNanoseconds: row.integer("mtime_ns"),
          changeNanoseconds: row.integer("ctime_ns"), generation: row.int("generation"),
          log: LogPosition(
            end: row.int("log_end"), last: last, generation: row.int("log_generation"))),
        recordedNanoseconds: row.integer("recorded_ns"), hasFullText: row.integer("full_text") != 0)
    }
    return found
  }

  /// Records `identity` as what the index describes, now, with full text or not.
  func writeRecord(_ identity: IndexIdentity, fullText: Bool) throws(SQLiteError) {
    try database.run(
      """
      INSERT OR REPLACE INTO identity(singleton, store_path, device, inode, size, mtime_ns,
        ctime_ns, generation, recorded_ns, full_text, log_end, log_last, log_checksum,
        log_generation) VALUES(1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """,
      [
        .text(identity.storePath), .integer(identity.device), .integer(identity.inode),
        .integer(identity.size), .integer(identity.modificationNanoseconds),
        .integer(identity.changeNanoseconds), .integer(Int64(identity.generation)),
        .integer(now()), .integer(fullText ? 1 : 0), .integer(Int64(identity.log.end)),
        identity.log.last.map { .integer(Int64($0.start)) } ?? .null,
        identity.log.last.map { .integer(Int64($0.checksum)) } ?? .null,
        .integer(Int64(identity.log.generation)),
      ])
  }

  /// Runs `body` in a read transaction, only when the index describes `identity`: `nil`
  /// (and `body` not run) when it describes anything else. Readers see a whole save or none.
  /// - Throws: ``SQLiteError``.
  func reading<Result>(
    _ identity: IndexIdentity, _ body: (IndexRecord) throws(SQLiteError) -> Result
  ) throws(SQLiteError) -> Result? {
    try database.transaction(writing: false) { () throws(SQLiteError) -> Result? in
      guard let record = try record(), record.identity == identity else { return nil }
      return try body(record)
    }
  }

  // MARK: - Reading

  /// Every category, in file order.
  func categories() throws(SQLiteError) -> [IndexedCategory] {
    var categories: [IndexedCategory] = []
    try database.query(
      "SELECT \(StoreIndex.categoryColumns) FROM categories ORDER BY ordinal"
    ) { row throws(SQLiteError) in categories.append(try StoreIndex.category(row)) }
    return categories
  }

  /// The documents of the category `id` in file order, their ranges made absolute from
  /// `base` (where the category's documents start); `nil` when a row is not well-formed.
  func documents(of id: ObjectID, base: Int) throws(SQLiteError) -> [StoredDocument]? {
    // Built straight, not mapped from ``rows(of:base:)``: one array of documents, and no
    // array of tuples, whose type is made at run time.
    var documents: [StoredDocument] = []
    let wellFormed = try forEachRow(of: id, base: base) { _, document in
      documents.append(document)
    }
    return wellFormed ? documents : nil
  }

  /// ``documents(of:base:)`` with each document's row id.
  func rows(of id: ObjectID, base: Int) throws(SQLiteError)
    -> [(rowID: Int64, document: StoredDocument)]?
  {
    var rows: [(rowID: Int64, document: StoredDocument)] = []
    let wellFormed = try forEachRow(of: id, base: base) { rowID, document in
      rows.append((rowID, document))
    }
    return wellFormed ? rows : nil
  }

  /// Hands `body` each row id and document of the category `id` in file order, until a row
  /// is not well-formed; whether every row was.
  private func forEachRow(
    of id: ObjectID, base: Int, _ body: (Int64, StoredDocument) -> Void
  ) throws(SQLiteError) -> Bool {
    var wellFormed = true
    var lastPosition = -1
    try database.query(
      """
      SELECT \(DocumentColumn.selecting(DocumentColumn.read + [.position, .id], from: "d"))
      FROM documents d JOIN categories c ON d.category = c.id
      WHERE c.uuid = ? ORDER BY d.position
      """, [.blob(StoreIndex.bytes(of: id))]
    ) { row throws(SQLiteError) in
      // Positions only increase: a save to the log leaves the gap of a document it moved
      // out, until the next fold numbers the category's documents again.
      let position = row.int(DocumentColumn.position.rawValue)
      guard wellFormed, let document = StoreIndex.document(row, category: id, base: base),
        position > lastPosition
      else {
        wellFormed = false
        return
      }
      lastPosition = position
      body(row.integer(DocumentColumn.id.rawValue), document)
    }
    return wellFormed
  }

  /// The uuid of the category holding document `id`, if any.
  func category(holding id: ObjectID) throws(SQLiteError) -> ObjectID? {
    var found: ObjectID?
    try database.query(
      """
      SELECT c.uuid AS category_uuid FROM documents d JOIN categories c ON d.category = c.id
      WHERE d.uuid = ?
      """, [.blob(StoreIndex.bytes(of: id))]
    ) { row throws(SQLiteError) in found = row.objectID("category_uuid") }
    return found
  }

  /// Documents whose name key holds `needle` (a superset for non-ASCII needles: the caller
  /// filters), with their category's uuid and base.
  func documents(nameContaining needle: String) throws(SQLiteError) -> [StoredDocument] {
    let isASCII = needle.utf8.allSatisfy { $0 < 0x80 }
    guard !needle.isEmpty, isASCII else { return try documentRows(where: nil) }
    return try documentRows(where: "instr(d.name_key, ?) > 0", [.text(needle)])
  }

  /// Documents whose name key is `key` byte for byte (the caller knows no other spelling of
  /// it can be equal), in the category `category` when given: found through
  /// `documents_by_name`, reading no other row.
  func documents(namedKey key: String, in category: ObjectID?) throws(SQLiteError)
    -> [StoredDocument]
  {
    guard let category else { return try documentRows(where: "d.name_key = ?", [.text(key)]) }
    return try documentRows(
      where: "d.name_key = ? AND c.uuid = ?", [.text(key), .blob(StoreIndex.bytes(of: category))])
  }

  /// The category of each document whose name key is `key` byte for byte, through
  /// `documents_by_name`, reading no document.
  func categories(ofDocumentsNamedKey key: String) throws(SQLiteError) -> [ObjectID] {
    var found: [ObjectID] = []
    try database.query(
      """
      SELECT c.uuid AS category_uuid FROM documents d JOIN categories c ON d.category = c.id
      WHERE d.name_key = ?
      """, [.text(key)]
    ) { row throws(SQLiteError) in
      guard let id = row.objectID("category_uuid") else {
        throw SQLiteError(operation: "read", code: SQLiteError.corrupt, message: "bad uuid")
      }
      found.append(id)
    }
    return found
  }

  /// The document `id`, when a row holds it.
  func document(withID id: ObjectID) throws(SQLiteError) -> StoredDocument? {
    try documentRows(where: "d.uuid = ?", [.blob(StoreIndex.bytes(of: id))]).first
  }

  /// Documents holding the tag `key` (through the `document_tags` table), or every document
  /// holding a tag when `key` is `nil` (through it too: the cost is the tags' rows, not
  /// every document's), with their category's uuid and base.
  func documents(taggedWith key: TagKey?) throws(SQLiteError) -> [StoredDocument] {
    guard let key else {
      return try documentRows(where: "d.id IN (SELECT document FROM document_tags)")
    }
    return try documentRows(
      from: "document_tags t JOIN documents d ON d.id = t.document", where: "t.tag_key = ?",
      [.text(key.folded)])
  }

  /// The documents of the rows `tables` (which name the documents `d`) yield where
  /// `condition` holds, each with its category's uuid and base: the one query every read
  /// of documents across categories makes. A row that is not well-formed is left out.
  func documentRows(
    distinct: Bool = false, from tables: String = "documents d", where condition: String?,
    _ values: [SQLiteValue] = []
  ) throws(SQLiteError) -> [StoredDocument] {
    var documents: [StoredDocument] = []
    try forEachDocumentRow(distinct: distinct, from: tables, where: condition, values) {
      document, _ throws(SQLiteError) in documents.append(document)
    }
    return documents
  }

  /// ``documentRows(distinct:from:where:_:)``, handing `body` each document with its row,
  /// which holds the columns `extra` too (`l.line AS line, …`).
  func forEachDocumentRow(
    distinct: Bool = false, adding extra: String? = nil, from tables: String,
    where condition: String?, _ values: [SQLiteValue],
    _ body: (StoredDocument, SQLiteRow) throws(SQLiteError) -> Void
  ) throws(SQLiteError) {
    try database.query(
      """
      SELECT \(distinct ? "DISTINCT " : "")\(DocumentColumn.selecting(DocumentColumn.read, from: "d")),
        c.uuid AS category_uuid, c.documents_offset AS base\(extra.map { ", " + $0 } ?? "")
      FROM \(tables) JOIN categories c ON d.category = c.id
      \(condition.map { "WHERE " + $0 } ?? "")
      """, values
    ) { row throws(SQLiteError) in
      guard let category = row.objectID("category_uuid"),
        let document = StoreIndex.document(row, category: category, base: row.int("base"))
      else { return }
      try body(document, row)
    }
  }

  /// The document of a row holding the ``DocumentColumn/read`` columns, its ranges made
  /// absolute from `base`; `nil` when the row is not well-formed (a damaged index: the
  /// caller rebuilds it, so an invalid name is dropped here, not reported).
  static func document(_ row: SQLiteRow, category: ObjectID, base: Int) -> StoredDocument? {
    func column(_ column: DocumentColumn) -> Int { row.int(column.rawValue) }
    let text = row.text(DocumentColumn.name.rawValue)
    guard let id = row.objectID(DocumentColumn.uuid.rawValue),
      let name = try? Name(text), name.text == text
    else { return nil }
    let size = column(.size)
    let objectOffset = column(.objectOffset)
    let objectLength = column(.objectLength)
    let contentOffset = column(.contentOffset)
    let contentLength = column(.contentLength)
    guard size >= 0, objectOffset >= 0, objectLength > 0, contentLength >= 2,
      contentOffset >= objectOffset, contentOffset + contentLength <= objectOffset + objectLength
    else { return nil }
    // A document of the log is placed by the log's own offsets, not its category's run.
    let file: StoredLocation.File = column(.inLog) == 0 ? .store : .log
    let from = file == .log ? 0 : base
    let tagColumn = DocumentColumn.tags.rawValue
    guard let tags = tags(fromArray: row.isNull(tagColumn) ? nil : row.text(tagColumn)) else {
      return nil
    }
    return StoredDocument(
      id: id, name: name, categoryID: category, size: size,
      modified: Timestamp(millisecondsSince1970: row.integer(DocumentColumn.modified.rawValue)),
      tags: tags,
      contentLocation: StoredLocation(
        offset: from + contentOffset, length: contentLength, in: file),
      location: StoredLocation(offset: from + objectOffset, length: objectLength, in: file))
  }
}
