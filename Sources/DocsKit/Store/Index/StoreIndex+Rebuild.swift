// Rebuilding the index from a graph read from the store file, and the row inserts a rebuild
// and an update share.

extension StoreIndex {
  // MARK: - Rebuilding

  /// Replaces everything with `graph`, read from the file `identity` describes, when
  /// `shouldRebuild`, asked with the record found under the write lock, says so (another
  /// process may have rebuilt it, or saved, since the caller looked); the full text is left
  /// to be built when first searched. `progress` hears how far through the file it is, now
  /// and then; what it throws stops the rebuild. Whether it rebuilt.
  /// - Throws: ``SQLiteError``; the index is then as it was. Also when the rebuild was
  ///   written but `synchronous` could not be set back to NORMAL: the connection is then
  ///   not to be used on.
  @discardableResult
  func rebuild(
    from graph: LoadedGraph, identity: IndexIdentity,
    when shouldRebuild: (IndexRecord?) -> Bool = { _ in true },
    progress: (Int) throws(SQLiteError) -> Void
  ) throws(SQLiteError) -> Bool {
    try database.withSynchronousOff { () throws(SQLiteError) -> Bool in
      try database.transaction(writing: true) { () throws(SQLiteError) -> Bool in
        guard shouldRebuild(try record()) else { return false }
        try database.execute(
          """
          DELETE FROM identity; DELETE FROM links; DELETE FROM document_tags;
          DELETE FROM documents; DELETE FROM categories;
          INSERT INTO full_text(full_text) VALUES('delete-all');
          DROP INDEX documents_by_name;
          """)
        try insertRows(of: graph, progress: progress)
        try database.execute(StoreIndex.documentsByNameSQL)
        try writeRecord(identity, fullText: false)
        return true
      }
    }
  }

  /// Inserts a row for every category and document of `graph`.
  private func insertRows(
    of graph: LoadedGraph, progress: (Int) throws(SQLiteError) -> Void
  ) throws(SQLiteError) {
    var documentIndex = 0
    var batch = try beginDocumentBatch()
    for (ordinal, category) in graph.categories.enumerated() {
      let placement =
        category.placement
        ?? CategoryPlacement(start: 0, documents: StoredLocation(offset: 0, length: 0))
      let first = documentIndex
      while documentIndex < graph.documents.count,
        graph.documents[documentIndex].categoryID == category.id
      {
        documentIndex += 1
      }
      let documents = graph.documents[first..<documentIndex]
      let rowID = try insertCategory(
        id: category.id, name: category.name.text, ordinal: ordinal, placement: placement,
        summary: CategorySummary(summing: documents), touchedByLog: category.touchedByLog)
      for (position, document) in zip(documents.indices, documents) {
        try insert(
          document, category: rowID, position: position - first, base: placement.documents.offset,
          into: &batch)
        if position % 1024 == 0, document.location.file == .store {
          try progress(document.location.end)
        }
      }
    }
    try flush(&batch)
  }

  /// Inserts the category's row; its row id.
  func insertCategory(
    id: ObjectID, name: String, ordinal: Int, placement: CategoryPlacement,
    summary: CategorySummary, touchedByLog: Bool = false
  ) throws(SQLiteError) -> Int64 {
    try database.run(
      StoreIndex.insertCategorySQL,
      StoreIndex.categoryValues(
        id: id, name: name, ordinal: ordinal, placement: placement, summary: summary,
        touchedByLog: touchedByLog, columns: CategoryColumn.allCases.filter { $0 != .id }))
    return database.lastInsertedRowID
  }

  /// Inserts the document's row (with row id `rowID`, or one SQLite picks) and the rows of
  /// its tags; its row id.
  @discardableResult
  func insertDocument(
    _ document: StoredDocument, category: Int64, position: Int, base: Int, rowID: Int64? = nil
  ) throws(SQLiteError) -> Int64 {
    try database.run(
      StoreIndex.insertDocumentSQL,
      StoreIndex.documentValues(
        document, category: category, position: position, base: base, rowID: rowID))
    let inserted = database.lastInsertedRowID
    if !document.tags.isEmpty {
      try database.run(
        StoreIndex.insertTagsSQL,
        [.integer(inserted), StoreIndex.tagArray(document.tags.map(\.key.folded))])
    }
    return inserted
  }

  // MARK: - Documents many to a statement

  /// New documents' rows waiting to be written many to a statement: SQLite's cost of a
  /// statement (running it, closing it, its cursors) is then paid once for `size` rows, not
  /// for each (about 5 K instructions a row, of 31 K, at 10,000 new documents). Each row's id
  /// is given when it is added, so that its full text, links and tags can be written before
  /// the row is; ``StoreIndex/flush(_:)`` writes what waits, and must before the
  /// transaction commits.
  struct DocumentBatch {
    /// The rows of a full batch.
    static let size = 64
    /// The next row id to give: past every row the table holds.
    var nextRowID: Int64
    /// The values of the waiting rows, one after the other.
    var values: [SQLiteValue] = []
    var count = 0
    /// The row id and tag keys (a JSON array) of each waiting row with tags.
    var tags: [(rowID: Int64, keys: SQLiteValue)] = []
  }

  /// `INSERT OR FAIL INTO documents(…) VALUES(?, …), …` of `rows` rows. `OR FAIL`: a
  /// failing row does not undo the rows before it in the statement, so SQLite keeps no
  /// statement journal (with the default `ABORT` it did, and spilled it to a temporary file:
  /// 13,000 writes for 10,000 documents); the caller rolls the whole transaction back.
  static func insertDocumentsSQL(rows: Int) -> String {
    let row =
      "(" + Array(repeating: "?", count: DocumentColumn.allCases.count).joined(separator: ", ")
      + ")"
    return
      "INSERT OR FAIL INTO documents(\(DocumentColumn.allCases.map(\.rawValue).joined(separator: ", ")))"
      + " VALUES" + Array(repeating: row, count: rows).joined(separator: ", ")
  }

  /// The statement of a full batch, made once.
  static let insertDocumentBatchSQL = insertDocumentsSQL(rows: DocumentBatch.size)

  /// A batch whose rows get the ids after every row's in the table (inside a write
  /// transaction, no other process adds one meanwhile).
  func beginDocumentBatch() throws(SQLiteError) -> DocumentBatch {
    var batch = DocumentBatch(
      nextRowID: (try database.integer("SELECT max(id) FROM documents") ?? 0) + 1)
    batch.values.reserveCapacity(DocumentBatch.size * DocumentColumn.allCases.count)
    return batch
  }

  /// Adds the document's row to `batch`, writing the batch when it is full; the row's id.
  @discardableResult
  func insert(
    _ document: StoredDocument, category: Int64, position: Int, base: Int,
    into batch: inout DocumentBatch
  ) throws(SQLiteError) -> Int64 {
    let rowID = batch.nextRowID
    batch.nextRowID += 1
    StoreIndex.appendDocumentValues(
      document, category: category, position: position, base: base, rowID: rowID,
      to: &batch.values)
    batch.count += 1
    if !document.tags.isEmpty {
      batch.tags.append((rowID, StoreIndex.tagArray(document.tags.map(\.key.folded))))
    }
    if batch.count == DocumentBatch.size { try flush(&batch) }
    return rowID
  }

  /// Writes the rows waiting in `batch`, and the rows of their tags.
  func flush(_ batch: inout DocumentBatch) throws(SQLiteError) {
    guard batch.count > 0 else { return }
    try database.run(
      batch.count == DocumentBatch.size
        ? StoreIndex.insertDocumentBatchSQL : StoreIndex.insertDocumentsSQL(rows: batch.count),
      batch.values)
    for (rowID, keys) in batch.tags {
      try database.run(StoreIndex.insertTagsSQL, [.integer(rowID), keys])
    }
    batch.values.removeAll(keepingCapacity: true)
    batch.count = 0
    batch.tags.removeAll(keepingCapacity: true)
  }

  /// The rows of a document's tags, from the JSON array of their keys.
  static let insertTagsSQL =
    "INSERT OR IGNORE INTO document_tags SELECT value, ? FROM json_each(?)"
}
