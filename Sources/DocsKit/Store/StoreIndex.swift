#if canImport(Glibc)
  import Glibc
#endif

// The SQLite index of one store file: derived data, rebuilt from the JSON whenever there is
// any doubt. See docs/store-format.md, "The index", for the schema and the trust rules.

/// What the index records of the store file it describes; it is trusted only when every
/// field equals the `fstat` of the file a session opened (and its header's generation).
struct IndexIdentity: Equatable, Sendable {
  var storePath: String
  var device: Int64
  var inode: Int64
  var size: Int64
  var modificationNanoseconds: Int64
  var changeNanoseconds: Int64
  var generation: Int

  init(storePath: String, status: FileStatus, generation: Int) {
    self.storePath = storePath
    device = Int64(truncatingIfNeeded: status.device)
    inode = Int64(truncatingIfNeeded: status.inode)
    size = Int64(status.size)
    modificationNanoseconds = status.modificationNanoseconds
    changeNanoseconds = status.changeNanoseconds
    self.generation = generation
  }

  init(
    storePath: String, device: Int64, inode: Int64, size: Int64, modificationNanoseconds: Int64,
    changeNanoseconds: Int64, generation: Int
  ) {
    self.storePath = storePath
    self.device = device
    self.inode = inode
    self.size = size
    self.modificationNanoseconds = modificationNanoseconds
    self.changeNanoseconds = changeNanoseconds
    self.generation = generation
  }

  /// Whether the file fields match (the generation is checked against the file's header).
  func describesSameFile(as other: IndexIdentity) -> Bool {
    storePath == other.storePath && device == other.device && inode == other.inode
      && size == other.size && modificationNanoseconds == other.modificationNanoseconds
      && changeNanoseconds == other.changeNanoseconds
  }
}

/// The identity row as stored, with when it was recorded and whether full text is built.
struct IndexRecord: Equatable {
  var identity: IndexIdentity
  /// When the identity was recorded (CLOCK_REALTIME, nanoseconds).
  var recordedNanoseconds: Int64
  /// Whether the full-text table holds every document.
  var hasFullText: Bool

  /// A store modified less than this before the index recorded it may have been modified
  /// again in the same clock tick without any field changing: git's "racily clean" case.
  static let racyWindowNanoseconds: Int64 = 2_000_000_000

  /// Whether the store's modification time is not safely older than this record.
  var isRacy: Bool {
    recordedNanoseconds - identity.modificationNanoseconds < IndexRecord.racyWindowNanoseconds
  }
}

/// A category as the index holds it.
struct IndexedCategory {
  var rowID: Int64
  var id: ObjectID
  var name: String
  var ordinal: Int
  var placement: CategoryPlacement
  var summary: CategorySummary
}

/// The index database of one store: schema, trust, rebuilding, reading and updating.
final class StoreIndex {
  /// The version of the schema below; any other version is rebuilt.
  /// 2, 3: the full text is tokenized by `docsh` (accents folded in every script, stems).
  static let schemaVersion: Int64 = 3

  static let schema = """
    CREATE TABLE identity(
      singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
      store_path TEXT NOT NULL, device INTEGER NOT NULL, inode INTEGER NOT NULL,
      size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
      generation INTEGER NOT NULL, recorded_ns INTEGER NOT NULL, full_text INTEGER NOT NULL);
    CREATE TABLE categories(
      id INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, name TEXT NOT NULL,
      ordinal INTEGER NOT NULL, start INTEGER NOT NULL,
      documents_offset INTEGER NOT NULL, documents_length INTEGER NOT NULL,
      document_count INTEGER NOT NULL, total_size INTEGER NOT NULL, latest_modified INTEGER);
    CREATE TABLE documents(
      id INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, category INTEGER NOT NULL,
      position INTEGER NOT NULL, name TEXT NOT NULL, name_key TEXT NOT NULL,
      size INTEGER NOT NULL, modified INTEGER NOT NULL,
      object_offset INTEGER NOT NULL, object_length INTEGER NOT NULL,
      content_offset INTEGER NOT NULL, content_length INTEGER NOT NULL);
    CREATE INDEX documents_by_category ON documents(category, position);
    CREATE VIRTUAL TABLE full_text USING fts5(
      name, content, content='', tokenize='docsh remove_diacritics 2');
    CREATE VIRTUAL TABLE full_text_vocabulary USING fts5vocab(full_text, row);
    PRAGMA user_version = 3;
    """

  let database: SQLiteDatabase
  /// The index file's path.
  let path: String
  private let fileSystem: any FileSystem
  /// The lock file `PATH.lock`, held shared while the connection is open; `nil` once closed.
  private var useLock: Int32?
  private let now: () -> Int64

  private init(
    database: SQLiteDatabase, path: String, fileSystem: any FileSystem, useLock: Int32,
    now: @escaping () -> Int64
  ) {
    self.database = database
    self.path = path
    self.fileSystem = fileSystem
    self.useLock = useLock
    self.now = now
  }

  deinit {
    close()
  }

  /// Opens (creating when missing) the index at `path`, checking that it is an SQLite
  /// database of this schema; a damaged one or one of another schema is replaced by an
  /// empty one when no other process has it open.
  /// - Throws: ``SQLiteError`` when no usable database can be had at `path`.
  static func open(
    at path: String, library: any SQLiteLibrary, fileSystem: any FileSystem,
    busyTimeoutMilliseconds: Int, now: @escaping () -> Int64
  ) throws(SQLiteError) -> StoreIndex {
    let useLock = try takeUseLock(at: path, fileSystem: fileSystem)
    var attempt = 0
    while true {
      do {
        let database = try openOnce(
          at: path, library: library, fileSystem: fileSystem,
          busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        return StoreIndex(
          database: database, path: path, fileSystem: fileSystem, useLock: useLock, now: now)
      } catch {
        // Damaged, locked for good, another schema: it is only a cache; start it again, but
        // only when no other process has it open (it would go on with files nobody finds).
        attempt += 1
        guard attempt < 2, removeFilesIfUnused(at: path, useLock: useLock, fileSystem: fileSystem)
        else {
          try? fileSystem.close(useLock)
          throw error
        }
      }
    }
  }

  /// Opens `PATH.lock` (never removed) and takes it shared: every process with the index
  /// open holds it so, and its files are removed only under an exclusive hold.
  private static func takeUseLock(at path: String, fileSystem: any FileSystem)
    throws(SQLiteError) -> Int32
  {
    let lock: Int32
    do {
      lock = try fileSystem.open(
        path + ".lock", flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
    } catch {
      throw SQLiteError(operation: "open", code: SQLiteError.ioError, message: "\(error)")
    }
    // Another process holds it exclusively only while it removes the files.
    for attempt in 0..<200 {
      do {
        if try fileSystem.lockShared(lock) { return lock }
      } catch {
        try? fileSystem.close(lock)
        throw SQLiteError(operation: "lock", code: SQLiteError.ioError, message: "\(error)")
      }
      if attempt < 199 { usleep(10_000) }
    }
    try? fileSystem.close(lock)
    throw SQLiteError(operation: "lock", code: SQLiteError.busy, message: "the index is locked")
  }

  /// Removes the index files when no other process has them open (`useLock`, held shared,
  /// can be had exclusively), then holds `useLock` shared again; whether they were removed.
  private static func removeFilesIfUnused(
    at path: String, useLock: Int32, fileSystem: any FileSystem
  ) -> Bool {
    guard (try? fileSystem.lockExclusively(useLock)) == true else { return false }
    removeFiles(at: path, fileSystem: fileSystem)
    return (try? fileSystem.lockShared(useLock)) == true
  }

  /// Closes the connection, then lets go of the lock file; every later call throws.
  func close() {
    database.close()
    if let useLock { try? fileSystem.close(useLock) }
    useLock = nil
  }

  /// Closes the index and removes its files, unless another process has them open: a
  /// damaged index is then left for the last one using it (or the next open) to remove.
  func closeRemovingFilesIfUnused() {
    database.close()
    if let useLock, (try? fileSystem.lockExclusively(useLock)) == true {
      StoreIndex.removeFiles(at: path, fileSystem: fileSystem)
    }
    close()
  }

  private static func openOnce(
    at path: String, library: any SQLiteLibrary, fileSystem: any FileSystem,
    busyTimeoutMilliseconds: Int
  ) throws(SQLiteError) -> SQLiteDatabase {
    // Create the file 0600 ourselves: SQLite gives -wal and -shm the database's mode.
    do {
      let file = try fileSystem.open(
        path, flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
      defer { try? fileSystem.close(file) }
      try fileSystem.setPermissions(file, 0o600)
    } catch {
      throw SQLiteError(operation: "open", code: SQLiteError.ioError, message: "\(error)")
    }
    let database = try SQLiteDatabase(path: path, create: true, library: library)
    try database.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
    try database.execute("PRAGMA journal_mode = WAL")
    try database.execute("PRAGMA synchronous = NORMAL")
    // The -wal file is kept between processes (see SystemSQLite.open): truncate it after
    // every checkpoint, or a rebuild's hundred megabytes would be read back by every open.
    try database.execute("PRAGMA journal_size_limit = 0")
    var version = try database.integer("PRAGMA user_version") ?? 0
    if version == 0 {
      // Looked at again under the write lock: of processes opening a new index at once, the
      // first creates the schema and the others find it.
      version = try database.transaction(writing: true) { () throws(SQLiteError) -> Int64 in
        let version = try database.integer("PRAGMA user_version") ?? 0
        guard version == 0 else { return version }
        let tables = try database.integer("SELECT count(*) FROM sqlite_master") ?? 0
        if tables != 0 {
          throw SQLiteError(operation: "schema", code: SQLiteError.corrupt, message: "not an index")
        }
        try database.execute(StoreIndex.schema)
        return schemaVersion
      }
    }
    if version != schemaVersion {
      throw SQLiteError(
        operation: "schema", code: SQLiteError.corrupt, message: "schema version \(version)")
    }
    // Reading the schema and a table proves the file is a database at all.
    _ = try database.integer("SELECT count(*) FROM identity")
    return database
  }

  /// Removes the index files at `path` (database, WAL and shared memory); only with the
  /// lock file held exclusively.
  private static func removeFiles(at path: String, fileSystem: any FileSystem) {
    let (folder, name) = splitPath(path)
    guard
      let directory = try? fileSystem.open(
        folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    else { return }
    defer { try? fileSystem.close(directory) }
    for suffix in ["", "-wal", "-shm", "-journal"] {
      try? fileSystem.unlink(at: directory, name + suffix)
    }
  }

  // MARK: - The identity

  /// The identity row; `nil` when the index describes nothing yet.
  func record() throws(SQLiteError) -> IndexRecord? {
    var found: IndexRecord?
    try database.query(
      """
      SELECT store_path, device, inode, size, mtime_ns, ctime_ns, generation, recorded_ns,
        full_text FROM identity WHERE singleton = 1
      """
    ) { row throws(SQLiteError) in
      found = IndexRecord(
        identity: IndexIdentity(
          storePath: row.text(0), device: row.integer(1), inode: row.integer(2),
          size: row.integer(3), modificationNanoseconds: row.integer(4),
          changeNanoseconds: row.integer(5), generation: row.int(6)),
        recordedNanoseconds: row.integer(7), hasFullText: row.integer(8) != 0)
    }
    return found
  }

  private func writeRecord(_ identity: IndexIdentity, fullText: Bool) throws(SQLiteError) {
    try database.run(
      """
      INSERT OR REPLACE INTO identity(singleton, store_path, device, inode, size, mtime_ns,
        ctime_ns, generation, recorded_ns, full_text) VALUES(1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """,
      [
        .text(identity.storePath), .integer(identity.device), .integer(identity.inode),
        .integer(identity.size), .integer(identity.modificationNanoseconds),
        .integer(identity.changeNanoseconds), .integer(Int64(identity.generation)),
        .integer(now()), .integer(fullText ? 1 : 0),
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
      """
      SELECT id, uuid, name, ordinal, start, documents_offset, documents_length,
        document_count, total_size, latest_modified FROM categories ORDER BY ordinal
      """
    ) { row throws(SQLiteError) in
      guard let id = StoreIndex.objectID(row.bytes(1)) else {
        throw SQLiteError(operation: "read", code: SQLiteError.corrupt, message: "bad uuid")
      }
      categories.append(
        IndexedCategory(
          rowID: row.integer(0), id: id, name: row.text(2), ordinal: row.int(3),
          placement: CategoryPlacement(
            start: row.int(4),
            documents: StoredLocation(offset: row.int(5), length: row.int(6))),
          summary: CategorySummary(
            documentCount: row.int(7), totalSize: row.int(8),
            latestModification: row.isNull(9)
              ? nil : Timestamp(millisecondsSince1970: row.integer(9)))))
    }
    return categories
  }

  /// The documents of the category `id` in file order, their ranges made absolute from
  /// `base` (where the category's documents start); `nil` when a row is not well-formed.
  func documents(of id: ObjectID, base: Int) throws(SQLiteError) -> [StoredDocument]? {
    try rows(of: id, base: base)?.map(\.document)
  }

  /// ``documents(of:base:)`` with each document's row id.
  func rows(of id: ObjectID, base: Int) throws(SQLiteError)
    -> [(rowID: Int64, document: StoredDocument)]?
  {
    var rows: [(rowID: Int64, document: StoredDocument)] = []
    var wellFormed = true
    try database.query(
      """
      SELECT d.uuid, d.name, d.size, d.modified, d.object_offset, d.object_length,
        d.content_offset, d.content_length, d.position, d.id
      FROM documents d JOIN categories c ON d.category = c.id
      WHERE c.uuid = ? ORDER BY d.position
      """, [.blob(StoreIndex.bytes(of: id))]
    ) { row throws(SQLiteError) in
      guard wellFormed, let document = StoreIndex.document(row, category: id, base: base),
        row.int(8) == rows.count
      else {
        wellFormed = false
        return
      }
      rows.append((row.integer(9), document))
    }
    return wellFormed ? rows : nil
  }

  /// The uuid of the category holding document `id`, if any.
  func category(holding id: ObjectID) throws(SQLiteError) -> ObjectID? {
    var found: ObjectID?
    try database.query(
      """
      SELECT c.uuid FROM documents d JOIN categories c ON d.category = c.id WHERE d.uuid = ?
      """, [.blob(StoreIndex.bytes(of: id))]
    ) { row throws(SQLiteError) in found = StoreIndex.objectID(row.bytes(0)) }
    return found
  }

  /// Documents whose name key holds `needle` (a superset for non-ASCII needles: the caller
  /// filters), with their category's uuid and base.
  func documents(nameContaining needle: String) throws(SQLiteError) -> [StoredDocument] {
    let isASCII = needle.utf8.allSatisfy { $0 < 0x80 }
    let filter = needle.isEmpty || !isASCII ? "" : "WHERE instr(d.name_key, ?) > 0"
    var documents: [StoredDocument] = []
    try database.query(
      """
      SELECT d.uuid, d.name, d.size, d.modified, d.object_offset, d.object_length,
        d.content_offset, d.content_length, c.uuid, c.documents_offset
      FROM documents d JOIN categories c ON d.category = c.id \(filter)
      """, filter.isEmpty ? [] : [.text(needle)]
    ) { row throws(SQLiteError) in
      guard let category = StoreIndex.objectID(row.bytes(8)),
        let document = StoreIndex.document(row, category: category, base: row.int(9))
      else { return }
      documents.append(document)
    }
    return documents
  }

  private static func document(_ row: SQLiteRow, category: ObjectID, base: Int) -> StoredDocument? {
    guard let id = objectID(row.bytes(0)), let name = try? Name(row.text(1)),
      name.text == row.text(1)
    else { return nil }
    let size = row.int(2)
    let objectOffset = row.int(4)
    let objectLength = row.int(5)
    let contentOffset = row.int(6)
    let contentLength = row.int(7)
    guard size >= 0, objectOffset >= 0, objectLength > 0, contentLength >= 2,
      contentOffset >= objectOffset, contentOffset + contentLength <= objectOffset + objectLength
    else { return nil }
    return StoredDocument(
      id: id, name: name, categoryID: category, size: size,
      modified: Timestamp(millisecondsSince1970: row.integer(3)),
      contentLocation: StoredLocation(offset: base + contentOffset, length: contentLength),
      location: StoredLocation(offset: base + objectOffset, length: objectLength))
  }

  // MARK: - Rebuilding

  /// Replaces everything with `graph`, read from the file `identity` describes, when
  /// `shouldRebuild`, asked with the record found under the write lock, says so (another
  /// process may have rebuilt it, or saved, since the caller looked); the full text is left
  /// to be built when first searched. `progress` hears how far through the file it is, now
  /// and then; what it throws stops the rebuild. Whether it rebuilt.
  /// - Throws: ``SQLiteError``; the index is then as it was.
  @discardableResult
  func rebuild(
    from graph: LoadedGraph, identity: IndexIdentity,
    when shouldRebuild: (IndexRecord?) -> Bool = { _ in true },
    progress: (Int) throws(SQLiteError) -> Void
  ) throws(SQLiteError) -> Bool {
    try database.execute("PRAGMA synchronous = OFF")
    defer { try? database.execute("PRAGMA synchronous = NORMAL") }
    return try database.transaction(writing: true) { () throws(SQLiteError) -> Bool in
      guard shouldRebuild(try record()) else { return false }
      try database.execute(
        """
        DELETE FROM identity; DELETE FROM documents; DELETE FROM categories;
        INSERT INTO full_text(full_text) VALUES('delete-all');
        """)
      var documentIndex = 0
      for (ordinal, category) in graph.categories.enumerated() {
        let placement =
          category.placement
          ?? CategoryPlacement(start: 0, documents: StoredLocation(offset: 0, length: 0))
        var summary = CategorySummary(documentCount: 0, totalSize: 0, latestModification: nil)
        let first = documentIndex
        while documentIndex < graph.documents.count,
          graph.documents[documentIndex].categoryID == category.id
        {
          let document = graph.documents[documentIndex]
          summary.documentCount += 1
          summary.totalSize += document.size
          if summary.latestModification.map({ $0 < document.modified }) ?? true {
            summary.latestModification = document.modified
          }
          documentIndex += 1
        }
        let rowID = try insertCategory(
          id: category.id, name: category.name.text, ordinal: ordinal, placement: placement,
          summary: summary)
        for position in first..<documentIndex {
          let document = graph.documents[position]
          try insertDocument(
            document, category: rowID, position: position - first,
            base: placement.documents.offset)
          if position % 1024 == 0 { try progress(document.location.end) }
        }
      }
      try writeRecord(identity, fullText: false)
      return true
    }
  }

  private func insertCategory(
    id: ObjectID, name: String, ordinal: Int, placement: CategoryPlacement,
    summary: CategorySummary
  ) throws(SQLiteError) -> Int64 {
    try database.run(
      """
      INSERT INTO categories(uuid, name, ordinal, start, documents_offset, documents_length,
        document_count, total_size, latest_modified) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)
      """,
      [
        .blob(StoreIndex.bytes(of: id)), .text(name), .integer(Int64(ordinal)),
        .integer(Int64(placement.start)), .integer(Int64(placement.documents.offset)),
        .integer(Int64(placement.documents.length)), .integer(Int64(summary.documentCount)),
        .integer(Int64(summary.totalSize)),
        summary.latestModification.map { .integer($0.millisecondsSince1970) } ?? .null,
      ])
    return database.lastInsertedRowID
  }

  @discardableResult
  private func insertDocument(
    _ document: StoredDocument, category: Int64, position: Int, base: Int, rowID: Int64? = nil
  ) throws(SQLiteError) -> Int64 {
    try database.run(
      """
      INSERT INTO documents(id, uuid, category, position, name, name_key, size, modified,
        object_offset, object_length, content_offset, content_length)
        VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      """,
      [
        rowID.map { .integer($0) } ?? .null,
        .blob(StoreIndex.bytes(of: document.id)), .integer(category), .integer(Int64(position)),
        .text(document.name.text), .text(document.name.key.folded),
        .integer(Int64(document.size)), .integer(document.modified.millisecondsSince1970),
        .integer(Int64(document.location.offset - base)), .integer(Int64(document.location.length)),
        .integer(Int64(document.contentLocation.offset - base)),
        .integer(Int64(document.contentLocation.length)),
      ])
    return database.lastInsertedRowID
  }

  // MARK: - Full text

  /// Every document's row id, name and content range, in file order.
  func documentsInFileOrder() throws(SQLiteError) -> [(
    rowID: Int64, name: String, content: StoredLocation
  )] {
    var rows: [(rowID: Int64, name: String, content: StoredLocation)] = []
    try database.query(
      """
      SELECT d.id, d.name, c.documents_offset + d.content_offset, d.content_length
      FROM documents d JOIN categories c ON d.category = c.id ORDER BY c.ordinal, d.position
      """
    ) { row throws(SQLiteError) in
      rows.append(
        (row.integer(0), row.text(1), StoredLocation(offset: row.int(2), length: row.int(3))))
    }
    return rows
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
    try database.execute("PRAGMA synchronous = OFF")
    defer { try? database.execute("PRAGMA synchronous = NORMAL") }
    try database.execute("BEGIN IMMEDIATE")
    do {
      guard let record = try record(), record.identity == identity else {
        try database.execute("ROLLBACK")
        return
      }
      if !record.hasFullText {
        try database.execute("INSERT INTO full_text(full_text) VALUES('delete-all')")
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
        }
        try database.run("UPDATE identity SET full_text = 1")
      }
      try database.execute("COMMIT")
    } catch {
      try? database.execute("ROLLBACK")
      throw error
    }
  }

  /// Runs a full-text search; `nil` when the index does not hold full text.
  func search(_ request: IndexSearchRequest, identity: IndexIdentity) throws(SQLiteError)
    -> IndexSearchResult??
  {
    try reading(identity) { record throws(SQLiteError) -> IndexSearchResult? in
      guard record.hasFullText else { return nil }
      let text = FullTextQuery(request.query)
      let counts = try groupDocumentCounts(text.counting)
      let plan = request.query.ranking.completed(
        with: SearchStatistics(documentCount: 0, tokenCount: 0, groupDocumentCounts: counts))
      let hits = try rankedHits(request, expression: text.expression, plan: plan)
      var statistics: SearchStatistics?
      if request.wantsStatistics {
        let documents = Int(try database.integer("SELECT count(*) FROM documents") ?? 0)
        // Stems (marked with U+0001) share their token's position: not counted twice.
        let tokens =
          try database.integer(
            "SELECT sum(cnt) FROM full_text_vocabulary WHERE term < char(1) OR term >= char(2)")
          ?? 0
        statistics = SearchStatistics(
          documentCount: documents, tokenCount: Int(tokens), groupDocumentCounts: counts)
      }
      return IndexSearchResult(hits: hits, statistics: statistics)
    }
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
        d.content_offset, d.content_length, c.uuid, c.documents_offset, hits.score
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
      guard let category = StoreIndex.objectID(row.bytes(8)),
        let document = StoreIndex.document(row, category: category, base: row.int(9))
      else { return }
      let score = row.real(10)
      let matchesName = score >= RankingPlan.nameTier
      hits.append(
        IndexSearchHit(
          document: document, bm25: matchesName ? score - RankingPlan.nameTier : score,
          matchesName: matchesName))
    }
    return hits
  }

  // MARK: - Updating after a save

  /// What a save changes, worked out before the store's rename (old contents are read from
  /// the old file then).
  struct UpdatePlan {
    /// The record the plan was made against: it is applied only to an index still holding it.
    var record: IndexRecord
    var oldCategories: [ObjectID: IndexedCategory]
    /// Old rows of the documents of every category written document by document, and of
    /// deleted categories: row id, name, absolute content range.
    var oldDocuments: [ObjectID: (rowID: Int64, name: String, category: ObjectID)]
    /// Old texts (name, content) of documents whose full-text row must be deleted.
    var oldTexts: [ObjectID: (name: String, content: String)]
    var hasFullText: Bool
  }

  /// Reads what the update after saving `categories` needs from the index and, through
  /// `oldContent`, from the old file; `nil` when the index does not describe `identity`.
  func planUpdate(
    for categories: [CategoryToSave], identity: IndexIdentity,
    oldContent: (StoredLocation) throws(StoreError) -> String
  ) throws -> UpdatePlan? {
    let plan = try reading(identity) { record throws(SQLiteError) -> UpdatePlan in
      var plan = UpdatePlan(
        record: record, oldCategories: [:], oldDocuments: [:], oldTexts: [:],
        hasFullText: record.hasFullText)
      for category in try self.categories() { plan.oldCategories[category.id] = category }
      return plan
    }
    guard var plan = plan ?? nil else { return nil }
    let kept = Set(categories.filter { $0.unloadedDocuments != nil }.map(\.category.id))
    var written: [ObjectID: (name: Name, save: DocumentToSave)] = [:]
    for category in categories where category.unloadedDocuments == nil {
      for document in category.documents {
        written[document.document.id] = (document.document.name, document)
      }
    }
    // Old documents of every category not copied whole.
    var oldRanges: [ObjectID: StoredLocation] = [:]
    for category in plan.oldCategories.values where !kept.contains(category.id) {
      guard let rows = try rows(of: category.id, base: category.placement.documents.offset)
      else { throw SQLiteError(operation: "read", code: SQLiteError.corrupt, message: "rows") }
      for (rowID, document) in rows {
        plan.oldDocuments[document.id] = (rowID, document.name.text, category.id)
        oldRanges[document.id] = document.contentLocation
      }
    }
    guard plan.hasFullText else { return plan }
    for (id, old) in plan.oldDocuments {
      guard let range = oldRanges[id] else { continue }
      let now = written[id]
      if let now, now.save.unchangedLocation != nil { continue }
      if let now, now.save.content == nil, now.name.text == old.name { continue }
      let oldText = try oldContent(range)
      if let now, let text = now.save.content, text == oldText, now.name.text == old.name {
        continue
      }
      plan.oldTexts[id] = (old.name, oldText)
    }
    return plan
  }

  /// Brings the index in step with a save: O(documents of the categories written document
  /// by document) rows, plus one per category that moved; `newContent` reads a content of
  /// the new file. One transaction: a failure leaves the index describing the old file.
  /// Applied only when the index still holds the record `plan` was made against (another
  /// process may have rebuilt it from the new file meanwhile); whether it was applied.
  /// - Throws: ``SQLiteError`` or ``StoreError``.
  @discardableResult
  func apply(
    _ plan: UpdatePlan, saved categories: [CategoryToSave], receipt: SaveReceipt,
    identity: IndexIdentity, newContent: (StoredLocation) throws(StoreError) -> String
  ) throws -> Bool {
    try database.execute("BEGIN IMMEDIATE")
    do {
      guard try record() == plan.record else {
        try database.execute("ROLLBACK")
        return false
      }
      try applyInTransaction(plan, categories, receipt, identity, newContent)
      try database.execute("COMMIT")
      return true
    } catch {
      try? database.execute("ROLLBACK")
      throw error
    }
  }

  private func applyInTransaction(
    _ plan: UpdatePlan, _ categories: [CategoryToSave], _ receipt: SaveReceipt,
    _ identity: IndexIdentity, _ newContent: (StoredLocation) throws(StoreError) -> String
  ) throws {
    var seenCategories = Set<ObjectID>()
    var seenDocuments = Set<ObjectID>()
    var categoryRows: [ObjectID: Int64] = [:]
    for (ordinal, category) in categories.enumerated() {
      let id = category.category.id
      seenCategories.insert(id)
      guard let placement = receipt.placements[id] else {
        throw SQLiteError(operation: "update", code: SQLiteError.corrupt, message: "no placement")
      }
      var summary = CategorySummary(documentCount: 0, totalSize: 0, latestModification: nil)
      if let unloaded = category.unloadedDocuments {
        summary = unloaded.summary
      } else {
        for document in category.documents {
          summary.documentCount += 1
          summary.totalSize += document.document.size
          if summary.latestModification.map({ $0 < document.document.modified }) ?? true {
            summary.latestModification = document.document.modified
          }
        }
      }
      if let old = plan.oldCategories[id] {
        categoryRows[id] = old.rowID
        if old.name != category.category.name.text || old.ordinal != ordinal
          || old.placement != placement || old.summary != summary
        {
          try database.run(
            """
            UPDATE categories SET name = ?, ordinal = ?, start = ?, documents_offset = ?,
              documents_length = ?, document_count = ?, total_size = ?, latest_modified = ?
            WHERE id = ?
            """,
            [
              .text(category.category.name.text), .integer(Int64(ordinal)),
              .integer(Int64(placement.start)), .integer(Int64(placement.documents.offset)),
              .integer(Int64(placement.documents.length)),
              .integer(Int64(summary.documentCount)), .integer(Int64(summary.totalSize)),
              summary.latestModification.map { .integer($0.millisecondsSince1970) } ?? .null,
              .integer(old.rowID),
            ])
        }
      } else {
        categoryRows[id] = try insertCategory(
          id: id, name: category.category.name.text, ordinal: ordinal, placement: placement,
          summary: summary)
      }
    }
    // Documents of the categories written one by one.
    for category in categories where category.unloadedDocuments == nil {
      let id = category.category.id
      guard let placement = receipt.placements[id], let categoryRow = categoryRows[id] else {
        continue
      }
      let base = placement.documents.offset
      for (position, document) in category.documents.enumerated() {
        let documentID = document.document.id
        seenDocuments.insert(documentID)
        guard let placed = receipt.locations[documentID] else {
          throw SQLiteError(operation: "update", code: SQLiteError.corrupt, message: "no location")
        }
        let stored = StoredDocument(
          id: documentID, name: document.document.name, categoryID: id,
          size: document.document.size, modified: document.document.modified,
          contentLocation: placed.content, location: placed.document)
        let old = plan.oldDocuments[documentID]
        let rowID: Int64
        if let old {
          rowID = old.rowID
          // Only rows that moved are written: a one-document save rewrites the rows after it
          // in its category, not the store's.
          let values = documentValues(stored, category: categoryRow, position: position, base: base)
          try database.run(
            """
            UPDATE documents SET category = ?1, position = ?2, name = ?3, name_key = ?4,
              size = ?5, modified = ?6, object_offset = ?7, object_length = ?8,
              content_offset = ?9, content_length = ?10
            WHERE id = ?11 AND (category, position, name, size, modified, object_offset,
              object_length, content_offset, content_length)
              IS NOT (?1, ?2, ?3, ?5, ?6, ?7, ?8, ?9, ?10)
            """, values + [.integer(rowID)])
        } else {
          rowID = try insertDocument(stored, category: categoryRow, position: position, base: base)
        }
        guard plan.hasFullText else { continue }
        let changed = old == nil || plan.oldTexts[documentID] != nil
        guard changed else { continue }
        if let oldText = plan.oldTexts[documentID] {
          try deleteFullText(rowID: rowID, name: oldText.name, content: oldText.content)
        }
        let content = try document.content ?? newContent(placed.content)
        try insertFullText(rowID: rowID, name: document.document.name.text, content: content)
      }
    }
    // Documents gone, and categories gone.
    for (id, old) in plan.oldDocuments where !seenDocuments.contains(id) {
      if plan.hasFullText, let oldText = plan.oldTexts[id] {
        try deleteFullText(rowID: old.rowID, name: oldText.name, content: oldText.content)
      }
      try database.run("DELETE FROM documents WHERE id = ?", [.integer(old.rowID)])
    }
    for (id, old) in plan.oldCategories where !seenCategories.contains(id) {
      try database.run("DELETE FROM documents WHERE category = ?", [.integer(old.rowID)])
      try database.run("DELETE FROM categories WHERE id = ?", [.integer(old.rowID)])
    }
    try writeRecord(identity, fullText: plan.hasFullText)
  }

  private func documentValues(
    _ document: StoredDocument, category: Int64, position: Int, base: Int
  ) -> [SQLiteValue] {
    [
      .integer(category), .integer(Int64(position)), .text(document.name.text),
      .text(document.name.key.folded), .integer(Int64(document.size)),
      .integer(document.modified.millisecondsSince1970),
      .integer(Int64(document.location.offset - base)), .integer(Int64(document.location.length)),
      .integer(Int64(document.contentLocation.offset - base)),
      .integer(Int64(document.contentLocation.length)),
    ]
  }

  private func deleteFullText(rowID: Int64, name: String, content: String) throws(SQLiteError) {
    try database.run(
      "INSERT INTO full_text(full_text, rowid, name, content) VALUES('delete', ?, ?, ?)",
      [.integer(rowID), .text(name), .text(content)])
  }

  private func insertFullText(rowID: Int64, name: String, content: String) throws(SQLiteError) {
    try database.run(
      "INSERT INTO full_text(rowid, name, content) VALUES(?, ?, ?)",
      [.integer(rowID), .text(name), .text(content)])
  }

  // MARK: - Checking

  /// The first way the index disagrees with `graph` (read from the file `identity` names);
  /// `nil` when it agrees in every row.
  func disagreement(with graph: LoadedGraph, identity: IndexIdentity) throws(SQLiteError)
    -> String??
  {
    try reading(identity) { record throws(SQLiteError) -> String? in
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
        var summary = CategorySummary(documentCount: 0, totalSize: 0, latestModification: nil)
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
          summary.documentCount += 1
          summary.totalSize += row.size
          if summary.latestModification.map({ $0 < row.modified }) ?? true {
            summary.latestModification = row.modified
          }
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
        do {
          try database.execute("INSERT INTO full_text(full_text) VALUES('integrity-check')")
        } catch {
          return "its full text is damaged"
        }
      }
      return nil
    }
  }

  // MARK: - Values

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

  static func objectID(_ bytes: [UInt8]) -> ObjectID? {
    guard bytes.count == 16 else { return nil }
    var high: UInt64 = 0
    var low: UInt64 = 0
    for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
    for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
    return ObjectID(high: high, low: low)
  }
}

/// The folder and the last component of `path`.
func splitPath(_ path: String) -> (folder: String, name: String) {
  guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return (".", path) }
  let folder = String(path[..<slash])
  return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
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
  /// Its bm25, higher is better.
  var bm25: Double
  /// Whether a wanted phrase is in its name.
  var matchesName: Bool
}

/// What a full-text search of the index found.
public struct IndexSearchResult: Sendable {
  /// The hits, best first: name matches, then by bm25.
  var hits: [IndexSearchHit]
  /// The collection's counts, when asked for.
  var statistics: SearchStatistics?
}
