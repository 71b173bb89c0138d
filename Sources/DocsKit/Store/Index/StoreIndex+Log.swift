// Bringing the index in step with records of the save log: the rows of what a save put or
// deleted, and of their categories, in one transaction. A save applies its own record; a
// session that finds records the index has not seen (a save whose process died before its
// index update) applies those. Either way it costs what the records changed.

extension StoreIndex {
  // MARK: - Applying records of the log

  /// Applies `records` (each the save after the one before) to an index that holds
  /// `before`, and records `after`; `oldContent` reads a content of the store (for the
  /// full text, which must delete a row with the text it was made from). Whether it was
  /// applied: not when the index holds another record (another process got there first).
  /// - Throws: ``SQLiteError`` or ``StoreError``; the index is then as it was.
  @discardableResult
  func apply(
    _ records: [SaveLogRecord], to before: IndexIdentity, making after: IndexIdentity,
    oldContent: (StoredLocation) throws(StoreError) -> String
  ) throws -> Bool {
    try database.execute("BEGIN IMMEDIATE")
    do {
      guard let record = try record(), record.identity == before else {
        try database.execute("ROLLBACK")
        return false
      }
      var changes = RecordChanges(hasFullText: record.hasFullText)
      for logged in records {
        try applyCategories(of: logged, &changes)
        for entry in logged.documents {
          switch entry {
          case .put(let document): try put(document, &changes, oldContent)
          case .deleted(let id): try delete(id, &changes, oldContent)
          }
        }
        for id in logged.deletedCategories { try deleteCategory(id, &changes, oldContent) }
      }
      try resummarize(changes.touched)
      try writeRecord(after, fullText: record.hasFullText)
      try database.execute("COMMIT")
      return true
    } catch {
      database.rollBack(after: error)
      throw error
    }
  }

  /// What applying records has done so far: the categories whose totals must be counted
  /// again, and whether there is full text to keep in step.
  private struct RecordChanges {
    var hasFullText: Bool
    /// Category row ids by uuid, as found or made.
    var categoryRows: [ObjectID: Int64] = [:]
    var touched: Set<Int64> = []
  }

  /// A document's row as the index holds it.
  private struct OldRow {
    var rowID: Int64
    var category: Int64
    var position: Int
    var document: StoredDocument
  }

  private func applyCategories(
    of record: SaveLogRecord, _ changes: inout RecordChanges
  ) throws(SQLiteError) {
    for (id, name) in record.categories {
      if let row = try categoryRow(id, &changes) {
        try database.run(
          "UPDATE categories SET name = ?, in_log = 1 WHERE id = ?",
          [.text(name.text), .integer(row)])
        continue
      }
      let ordinal = try database.integer("SELECT coalesce(max(ordinal), -1) + 1 FROM categories")
      changes.categoryRows[id] = try insertCategory(
        id: id, name: name.text, ordinal: Int(ordinal ?? 0),
        placement: CategoryPlacement(start: 0, documents: StoredLocation(offset: 0, length: 0)),
        summary: .empty, touchedByLog: true)
    }
  }

  /// The row id of the category `id`, if it has a row.
  private func categoryRow(
    _ id: ObjectID, _ changes: inout RecordChanges
  ) throws(SQLiteError) -> Int64? {
    if let row = changes.categoryRows[id] { return row }
    let row = try database.integer(
      "SELECT id FROM categories WHERE uuid = ?", [.blob(StoreIndex.bytes(of: id))])
    if let row { changes.categoryRows[id] = row }
    return row
  }

  private func oldRow(of id: ObjectID) throws(SQLiteError) -> OldRow? {
    var found: OldRow?
    try database.query(
      """
      SELECT \(DocumentColumn.selecting(DocumentColumn.read + [.id, .category, .position], from: "d")),
        c.uuid AS category_uuid, c.documents_offset AS base
      FROM documents d JOIN categories c ON d.category = c.id WHERE d.uuid = ?
      """, [.blob(StoreIndex.bytes(of: id))]
    ) { row throws(SQLiteError) in
      guard let category = row.objectID("category_uuid"),
        let document = StoreIndex.document(row, category: category, base: row.int("base"))
      else {
        throw SQLiteError(operation: "read", code: SQLiteError.corrupt, message: "a row")
      }
      found = OldRow(
        rowID: row.integer(DocumentColumn.id.rawValue),
        category: row.integer(DocumentColumn.category.rawValue),
        position: row.int(DocumentColumn.position.rawValue), document: document)
    }
    return found
  }

  private func put(
    _ document: StoredDocument, _ changes: inout RecordChanges,
    _ oldContent: (StoredLocation) throws(StoreError) -> String
  ) throws {
    guard let category = try categoryRow(document.categoryID, &changes) else {
      throw StoreIndex.brokenInvariant("a record puts a document into no category")
    }
    changes.touched.insert(category)
    let old = try oldRow(of: document.id)
    var position: Int
    if let old, old.category == category {
      position = old.position
    } else {
      position = Int(
        try database.integer(
          "SELECT coalesce(max(position), -1) + 1 FROM documents WHERE category = ?",
          [.integer(category)]) ?? 0)
    }
    let rowID: Int64
    if let old {
      changes.touched.insert(old.category)
      rowID = old.rowID
      if changes.hasFullText {
        try deleteFullText(
          rowID: rowID, name: old.document.name.text,
          content: try oldContent(old.document.contentLocation))
      }
      try database.run(
        StoreIndex.updateDocumentSQL,
        StoreIndex.documentValues(
          document, category: category, position: position, base: 0,
          columns: DocumentColumn.rewritten) + [.integer(rowID)])
    } else {
      rowID = try insertDocument(document, category: category, position: position, base: 0)
    }
    if changes.hasFullText {
      try insertFullText(
        rowID: rowID, name: document.name.text, content: try oldContent(document.contentLocation))
    }
  }

  private func delete(
    _ id: ObjectID, _ changes: inout RecordChanges,
    _ oldContent: (StoredLocation) throws(StoreError) -> String
  ) throws {
    guard let old = try oldRow(of: id) else { return }
    changes.touched.insert(old.category)
    if changes.hasFullText {
      try deleteFullText(
        rowID: old.rowID, name: old.document.name.text,
        content: try oldContent(old.document.contentLocation))
    }
    try database.run("DELETE FROM documents WHERE id = ?", [.integer(old.rowID)])
  }

  private func deleteCategory(
    _ id: ObjectID, _ changes: inout RecordChanges,
    _ oldContent: (StoredLocation) throws(StoreError) -> String
  ) throws {
    guard let row = try categoryRow(id, &changes) else { return }
    if changes.hasFullText {
      var members: [ObjectID] = []
      try database.query(
        "SELECT uuid FROM documents WHERE category = ?", [.integer(row)]
      ) { member throws(SQLiteError) in
        if let id = member.objectID("uuid") { members.append(id) }
      }
      for member in members { try delete(member, &changes, oldContent) }
    }
    try database.run("DELETE FROM documents WHERE category = ?", [.integer(row)])
    try database.run("DELETE FROM categories WHERE id = ?", [.integer(row)])
    changes.categoryRows[id] = nil
    changes.touched.remove(row)
  }

  /// Counts the totals of the categories `rows` again from their documents' rows.
  private func resummarize(_ rows: Set<Int64>) throws(SQLiteError) {
    for row in rows {
      try database.run(
        """
        UPDATE categories SET
          document_count = (SELECT count(*) FROM documents WHERE category = ?1),
          total_size = (SELECT coalesce(sum(size), 0) FROM documents WHERE category = ?1),
          latest_modified = (SELECT max(modified) FROM documents WHERE category = ?1),
          in_log = 1
        WHERE id = ?1
        """, [.integer(row)])
    }
  }
}
