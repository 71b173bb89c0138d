// Checking the index row by row against a graph read from the store file.

extension StoreIndex {
  // MARK: - Checking

  /// What comparing the index with the store found.
  enum Comparison: Equatable {
    /// Every row agrees.
    case agrees
    /// The first way the index disagrees, in words.
    case disagrees(String)
  }

  /// How the index compares with `graph` (read from the file `identity` names), row by row;
  /// `nil` when the index describes another file.
  func comparison(with graph: LoadedGraph, identity: IndexIdentity) throws(SQLiteError)
    -> Comparison?
  {
    try reading(identity) { record throws(SQLiteError) -> Comparison in
      try firstDisagreement(with: graph, record: record).map(Comparison.disagrees) ?? .agrees
    }
  }

  /// The first way the index disagrees with `graph`; `nil` when it agrees in every row.
  private func firstDisagreement(with graph: LoadedGraph, record: IndexRecord)
    throws(SQLiteError) -> String?
  {
    let categories = try self.categories()
    guard categories.count == graph.categories.count else {
      return "it lists \(categories.count) categories, the store \(graph.categories.count)"
    }
    var documentIndex = 0
    for (indexed, stored) in zip(categories, graph.categories) {
      guard indexed.id == stored.id, indexed.name == stored.name.text,
        indexed.placement == stored.placement
      else { return "category \"\(stored.name)\" differs" }
      guard let rows = try documents(of: indexed.id, base: indexed.placement.documents.offset)
      else { return "a row of \"\(stored.name)\" is damaged" }
      var summary = CategorySummary.empty
      for row in rows {
        guard documentIndex < graph.documents.count else {
          return "it holds more documents than the store"
        }
        let document = graph.documents[documentIndex]
        documentIndex += 1
        guard row.id == document.id, row.name.text == document.name.text,
          row.categoryID == document.categoryID, row.size == document.size,
          row.modified == document.modified, row.location == document.location,
          row.contentLocation == document.contentLocation
        else { return "document \"\(stored.name)/\(document.name)\" differs" }
        summary.count(size: row.size, modified: row.modified)
      }
      guard summary == indexed.summary else {
        return "the totals of \"\(stored.name)\" disagree with its documents"
      }
    }
    guard documentIndex == graph.documents.count else {
      return "it holds fewer documents than the store"
    }
    if record.hasFullText {
      let rows = try database.integer("SELECT count(*) FROM full_text") ?? -1
      guard rows == Int64(graph.documents.count) else {
        return "its full text holds \(rows) documents, the store \(graph.documents.count)"
      }
      do throws(SQLiteError) {
        try database.execute("INSERT INTO full_text(full_text) VALUES('integrity-check')")
      } catch {
        // FTS5 reports what it found as SQLITE_CORRUPT_VTAB: that is the answer. Any
        // other failure (I/O, a lock) is the index failing, thrown as such.
        guard error.isDamage else { throw error }
        return "its full text is damaged"
      }
    }
    return nil
  }
}
