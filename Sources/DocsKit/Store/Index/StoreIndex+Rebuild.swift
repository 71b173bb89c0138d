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
        try insertDocument(
          document, category: rowID, position: position - first, base: placement.documents.offset)
        if position % 1024 == 0, document.location.file == .store {
          try progress(document.location.end)
        }
      }
    }
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
        "INSERT OR IGNORE INTO document_tags SELECT value, ? FROM json_each(?)",
        [.integer(inserted), StoreIndex.tagArray(document.tags.map(\.key.folded))])
    }
    return inserted
  }
}
