// The full-text index: building it on the first search, and searching it (moved here whole
// from StoreIndex.swift).

extension StoreIndex {
  // MARK: - Full text

  /// Every document's row id, name and content range, in file order.
  func documentsInFileOrder() throws(SQLiteError) -> [(
    rowID: Int64, name: String, content: StoredLocation
  )] {
    var rows: [(rowID: Int64, name: String, content: StoredLocation)] = []
    try database.query(
      """
      SELECT d.id, d.name,
        CASE d.in_log WHEN 0 THEN c.documents_offset + d.content_offset ELSE d.content_offset END,
        d.content_length, d.in_log
      FROM documents d JOIN categories c ON d.category = c.id ORDER BY c.ordinal, d.position
      """
    ) { row throws(SQLiteError) in
      let file: StoredLocation.File = row.integer(4) == 0 ? .store : .log
      rows.append(
        (
          row.integer(0), row.text(1),
          StoredLocation(offset: row.int(2), length: row.int(3), in: file)
        ))
    }
    return rows
  }

  /// What a full-text search of the index found.
  enum FullTextAnswer {
    /// The ranked hits.
    case found(IndexSearchResult)
    /// The index holds no full text yet: it must be built first.
    case noFullText
  }

  /// The bytes of terms FTS5 keeps in memory before writing a segment, while it builds.
  static let buildHashSize = 32 * 1024 * 1024

  /// Fills the full-text table: `contents` hands over each document's decoded content in
  /// the order of ``documentsInFileOrder()``, calling its argument once per document.
  /// - Throws: ``SQLiteError``, or ``StoreError`` from `contents`; nothing is kept then.
  func buildFullText(
    identity: IndexIdentity,
    contents: ((Int64, String, UnsafeRawBufferPointer) throws(SQLiteError) -> Void) throws -> Void
  ) throws {
    // Derived data: a power cut costs a rebuild. A build that fails lets go of the
    // connection (the pragma belongs to it); one that succeeds must set NORMAL again.
    try database.execute("PRAGMA synchronous = OFF")
    try database.execute("BEGIN IMMEDIATE")
    do {
      guard let record = try record(), record.identity == identity else {
        try database.execute("ROLLBACK")
        return
      }
      if !record.hasFullText {
        try database.execute("INSERT INTO full_text(full_text) VALUES('delete-all')")
        try database.execute("DELETE FROM links")
        // FTS5 writes its in-memory terms out as a segment whenever they pass `hashsize`
        // (1 MB by default), then merges the segments again and again: building the large
        // store's full text, the merging was over a third of the time. With 32 MB it writes
        // a few large segments; the memory is given back when the build commits.
        try database.execute(
          "INSERT INTO full_text(full_text, rank) VALUES('hashsize', \(StoreIndex.buildHashSize))")
        try contents { rowID, name, content throws(SQLiteError) in
          try database.run(
            "INSERT INTO full_text(rowid, name, content) VALUES(?, ?, ?)",
            [.integer(rowID), .text(name)], texts: [content])
          try insertLinks(of: rowID, LinkRow.rows(inUTF8: content))
        }
        try database.run("UPDATE identity SET full_text = 1")
      }
      try database.execute("COMMIT")
    } catch {
      database.rollBack(after: error)
      throw error
    }
    try database.execute("PRAGMA synchronous = NORMAL")
    // The full text's pages go into the database file now (no process checkpoints when it
    // closes), not into every later open's -wal.
    _ = try? database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
  }

  /// Runs a full-text search; `nil` when the index describes another file than `identity`.
  func search(_ request: IndexSearchRequest, identity: IndexIdentity) throws(SQLiteError)
    -> FullTextAnswer?
  {
    try reading(identity) { record throws(SQLiteError) -> FullTextAnswer in
      guard record.hasFullText else { return .noFullText }
      let text = FullTextQuery(request.query)
      let counts = try groupDocumentCounts(text.counting)
      let plan = request.query.ranking.completed(
        with: SearchStatistics(
          documentCount: 0, nameTokenCount: 0, contentTokenCount: 0, groupDocumentCounts: counts)
      ).inExpressionOrder(text.phraseOrder)
      let hits = try rankedHits(request, expression: text.expression, plan: plan)
      var statistics: SearchStatistics?
      if request.wantsStatistics {
        let documents = Int(try database.integer("SELECT count(*) FROM documents") ?? 0)
        let tokens = try columnTokenCounts()
        statistics = SearchStatistics(
          documentCount: documents, nameTokenCount: tokens.name, contentTokenCount: tokens.content,
          groupDocumentCounts: counts)
      }
      return .found(IndexSearchResult(hits: hits, statistics: statistics))
    }
  }

  /// How many tokens the names and the contents of the full text hold: from a vocabulary
  /// of columns this connection makes for itself (in `temp`, not in the index file).
  private func columnTokenCounts() throws(SQLiteError) -> (name: Int, content: Int) {
    try database.execute(
      "CREATE VIRTUAL TABLE IF NOT EXISTS temp.full_text_columns USING fts5vocab(main, full_text, col)"
    )
    var counts = (name: 0, content: 0)
    // Stems (marked with U+0001) share their token's position: not counted twice.
    try database.query(
      """
      SELECT col, sum(cnt) FROM temp.full_text_columns
      WHERE term < char(1) OR term >= char(2) GROUP BY col
      """
    ) { row throws(SQLiteError) in
      if row.text(0) == "name" { counts.name = row.int(1) } else { counts.content = row.int(1) }
    }
    return counts
  }

  /// The documents of each ranking group, from the vocabulary when it is one token
  /// (docsh_rank takes the number of rows from FTS5 itself).
  private func groupDocumentCounts(_ counting: [IndexCountingTerm]) throws(SQLiteError) -> [Int] {
    var counts: [Int] = []
    for term in counting {
      switch term {
      case .terms(let tokens):
        var count = 0
        for token in tokens {
          count += Int(
            try database.integer(
              "SELECT doc FROM full_text_vocabulary WHERE term = ?", [.text(token)]) ?? 0)
        }
        counts.append(count)
      case .expression(let expression):
        counts.append(
          Int(
            try database.integer(
              "SELECT count(*) FROM full_text WHERE full_text MATCH ?", [.text(expression)])
              ?? 0))
      }
    }
    return counts
  }

  /// The best documents matching `expression`, as `plan` scores them, best first.
  private func rankedHits(_ request: IndexSearchRequest, expression: String, plan: RankingPlan)
    throws(SQLiteError) -> [IndexSearchHit]
  {
    let limit = request.limit.map { $0 + request.excluding.count } ?? -1
    let columns = """
      d.uuid, d.name, d.size, d.modified, d.object_offset, d.object_length,
        d.content_offset, d.content_length, c.uuid, c.documents_offset, hits.score, d.in_log,
        d.tags
      """
    let sql: String
    let values: [SQLiteValue]
    if let category = request.category {
      values = [
        .text(plan.encoded), .text(expression), .blob(StoreIndex.bytes(of: category)),
        .integer(Int64(limit)),
      ]
      sql = """
        WITH hits AS (
          SELECT rowid AS id, docsh_rank(full_text, ?) AS score FROM full_text
          WHERE full_text MATCH ?)
        SELECT \(columns)
        FROM hits JOIN documents d ON d.id = hits.id JOIN categories c ON d.category = c.id
        WHERE c.uuid = ?
        ORDER BY hits.score DESC LIMIT ?
        """
    } else {
      // FTS5 picks the best `limit` itself, and only those are joined with their documents.
      // docsh_rank is told the limit: rows that cannot reach it are not scored exactly.
      sql = """
        WITH hits AS (
          SELECT rowid AS id, docsh_rank(full_text, ?, ?) AS score FROM full_text
          WHERE full_text MATCH ? ORDER BY 2 DESC LIMIT ?)
        SELECT \(columns)
        FROM hits JOIN documents d ON d.id = hits.id JOIN categories c ON d.category = c.id
        ORDER BY hits.score DESC
        """
      values = [
        .text(plan.encoded), .integer(Int64(max(limit, 0))), .text(expression),
        .integer(Int64(limit)),
      ]
    }
    var hits: [IndexSearchHit] = []
    try database.query(sql, values) { row throws(SQLiteError) in
      guard let category = row.objectID(8),
        let document = StoreIndex.document(row, category: category, base: row.int(9))
      else { return }
      hits.append(IndexSearchHit(document: document, bm25: row.real(10)))
    }
    return hits
  }

  func deleteFullText(rowID: Int64, name: String, content: String) throws(SQLiteError) {
    try database.run(
      "INSERT INTO full_text(full_text, rowid, name, content) VALUES('delete', ?, ?, ?)",
      [.integer(rowID), .text(name), .text(content)])
    try database.run("DELETE FROM links WHERE source = ?", [.integer(rowID)])
  }

  func insertFullText(rowID: Int64, name: String, content: String) throws(SQLiteError) {
    try database.run(
      "INSERT INTO full_text(rowid, name, content) VALUES(?, ?, ?)",
      [.integer(rowID), .text(name), .text(content)])
    try insertLinks(of: rowID, LinkRow.rows(in: content))
  }
}

// MARK: - Search requests

/// What the context asks of a store's full-text index: a query already parsed and tokenized
/// (the index turns it into its own query language, ``FullTextQuery``), and where to look.
public struct IndexSearchRequest: Sendable {
  /// The query's phrases and how its hits are scored, once the index has counted each
  /// ranking group's documents.
  var query: CompiledQuery
  /// Only this category's documents, when set.
  var category: ObjectID?
  /// At most this many hits (besides `excluding`); `nil` for all.
  var limit: Int?
  /// Documents whose indexed text is out of date: the caller matches them itself.
  var excluding: Set<ObjectID>
  /// Whether to count the collection for ranking documents the caller matches itself.
  var wantsStatistics: Bool
}

/// What the index counts for the IDF of one ranking group.
enum IndexCountingTerm: Sendable, Equatable {
  /// The documents holding each of these tokens, summed (the vocabulary knows).
  case terms([String])
  /// The documents matching this MATCH expression.
  case expression(String)
}

/// One document the full-text index found.
public struct IndexSearchHit: Sendable {
  /// The document as the index holds it.
  var document: StoredDocument
  /// Its score (``RankingPlan``), higher is better.
  var bm25: Double
}

/// What a full-text search of the index found.
public struct IndexSearchResult: Sendable {
  /// The hits, best first.
  var hits: [IndexSearchHit]
  /// The collection's counts, when asked for.
  var statistics: SearchStatistics?
}
