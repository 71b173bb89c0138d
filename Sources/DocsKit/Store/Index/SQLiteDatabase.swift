// A connection and its statements, over the `SQLiteLibrary` seam: the small typed interface
// the rest of DocsKit uses. Every failure it throws names the statement it came from.

/// One connection to an SQLite database, through a ``SQLiteLibrary``.
final class SQLiteDatabase {
  let library: any SQLiteLibrary
  let connection: OpaquePointer
  private var statements: [String: PreparedStatement] = [:]
  /// The statement run last, found without hashing its text when run again (a save runs
  /// one insert per document: hashing its 300 characters each time cost 1.7 K instructions).
  private var last: (sql: String, statement: PreparedStatement)?
  private var isOpen = true

  /// Opens the database at `path` (`:memory:` for one in memory).
  /// - Throws: ``SQLiteError`` when it cannot be opened.
  init(path: String, create: Bool, library: any SQLiteLibrary) throws(SQLiteError) {
    self.library = library
    connection = try library.open(path, create: create)
  }

  deinit {
    close()
  }

  /// Closes the connection; every call after it throws `SQLITE_MISUSE`.
  func close() {
    guard isOpen else { return }
    isOpen = false
    for statement in statements.values { library.finalize(statement.handle) }
    statements = [:]
    last = nil
    library.close(connection)
  }

  /// Runs `sql`, one or more statements, wanting no rows.
  /// - Throws: ``SQLiteError`` naming `sql`.
  func execute(_ sql: String) throws(SQLiteError) {
    do {
      try checkOpen()
      try library.execute(connection, sql)
    } catch {
      throw error.on(sql)
    }
  }

  /// Runs `sql` with `values` bound, calling `row` for every row.
  /// - Throws: ``SQLiteError`` naming `sql` (one too when `values` are not as many as the
  ///   statement's parameters), or stops at the first error `row` throws.
  func query(
    _ sql: String, _ values: [SQLiteValue] = [], row: (SQLiteRow) throws(SQLiteError) -> Void
  ) throws(SQLiteError) {
    let statement = try prepared(sql)
    defer { library.reset(statement.handle) }
    do {
      try bind(values, texts: [], to: statement)
      while try library.step(statement.handle) {
        try row(SQLiteRow(statement: statement.handle, columns: statement.columns))
      }
    } catch {
      throw error.on(sql)
    }
  }

  /// Runs `sql` with `values` bound, wanting no rows.
  /// - Throws: ``SQLiteError`` naming `sql`.
  func run(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) {
    try query(sql, values) { _ throws(SQLiteError) in }
  }

  /// Runs `sql` with the values bound, the last text parameters given as UTF-8 bytes.
  /// - Throws: ``SQLiteError`` naming `sql`.
  func run(_ sql: String, _ values: [SQLiteValue], texts: [UnsafeRawBufferPointer])
    throws(SQLiteError)
  {
    let statement = try prepared(sql)
    defer { library.reset(statement.handle) }
    do {
      try bind(values, texts: texts, to: statement)
      while try library.step(statement.handle) {}
    } catch {
      throw error.on(sql)
    }
  }

  /// The first column of the first row of `sql`, as an integer; `nil` when no row.
  /// - Throws: ``SQLiteError``.
  func integer(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> Int64? {
    var result: Int64?
    try query(sql, values) { row throws(SQLiteError) in
      if result == nil { result = row.isNull(0) ? nil : row.integer(0) }
    }
    return result
  }

  /// The rowid of the last row inserted.
  var lastInsertedRowID: Int64 { SQLiteStatementFacts.lastInsertedRowID(connection) }

  /// Runs `body` with `handler` asked every `instructions` steps of SQLite's virtual machine
  /// while each statement runs: when it says stop, the statement fails with SQLITE_INTERRUPT
  /// (``SQLiteError/isInterruption``).
  /// - Throws: what `body` throws.
  func asking<Result>(
    _ handler: SQLiteProgressHandler, every instructions: Int32,
    _ body: () throws(SQLiteError) -> Result
  ) throws(SQLiteError) -> Result {
    library.setProgressHandler(connection, every: instructions, handler)
    defer { library.setProgressHandler(connection, every: 0, nil) }
    return try withExtendedLifetime(handler) { () throws(SQLiteError) -> Result in try body() }
  }

  /// Runs `body` in a transaction (`BEGIN IMMEDIATE` when `writing`), committing when it
  /// returns and rolling back when it throws.
  /// - Throws: ``SQLiteError``, or what `body` throws.
  func transaction<Result>(
    writing: Bool, _ body: () throws(SQLiteError) -> Result
  ) throws(SQLiteError) -> Result {
    try execute(writing ? "BEGIN IMMEDIATE" : "BEGIN")
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      rollBack(after: error)
      throw error
    }
  }

  /// Rolls back the transaction open when `failure` happened. A failed ROLLBACK is dropped:
  /// SQLite has already rolled back after some failures (then there is no transaction), and
  /// when it has not, the connection is let go of by the caller handling `failure`, which
  /// rolls back whatever it held; `failure` is the error worth reporting.
  func rollBack(after failure: any Error) {
    _ = try? execute("ROLLBACK")
  }

  /// Runs `body` with `PRAGMA synchronous = OFF` (a rebuild or a full-text build is derived
  /// data: a power cut costs a rebuild, not data), then sets it back to NORMAL.
  /// - Throws: what `body` throws; or, when it succeeded, the failure to set NORMAL again, so
  ///   that a connection left unsynchronized is let go of rather than used for the run.
  func withSynchronousOff<Result>(
    _ body: () throws(SQLiteError) -> Result
  ) throws(SQLiteError) -> Result {
    try execute("PRAGMA synchronous = OFF")
    let result: Result
    do {
      result = try body()
    } catch {
      // `error` is reported; a failed reset as well is let go of with the connection, which
      // the caller drops on any failure (the pragma belongs to the connection).
      _ = try? execute("PRAGMA synchronous = NORMAL")
      throw error
    }
    try execute("PRAGMA synchronous = NORMAL")
    // A rebuild's pages go into the database file now, not into every later open's -wal
    // (no process checkpoints when it closes).
    _ = try? execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return result
  }

  private func checkOpen() throws(SQLiteError) {
    guard isOpen else {
      throw SQLiteError(
        operation: "execute", code: SQLiteError.misuse, message: "the index is closed")
    }
  }

  private func prepared(_ sql: String) throws(SQLiteError) -> PreparedStatement {
    do {
      try checkOpen()
      // Equal text in the same storage compares without reading it.
      if let last, last.sql == sql { return last.statement }
      if let statement = statements[sql] {
        last = (sql, statement)
        return statement
      }
      let statement = PreparedStatement(try library.prepare(connection, sql))
      statements[sql] = statement
      last = (sql, statement)
      return statement
    } catch {
      throw error.on(sql)
    }
  }

  /// Binds `values`, then `texts`, to every parameter of `statement`, from the first.
  /// - Throws: ``SQLiteError`` (`SQLITE_RANGE`) when they are not as many as its parameters:
  ///   SQLite would bind NULL to a parameter left out.
  private func bind(
    _ values: [SQLiteValue], texts: [UnsafeRawBufferPointer], to statement: PreparedStatement
  ) throws(SQLiteError) {
    let given = values.count + texts.count
    guard given == statement.parameterCount else {
      throw SQLiteError(
        operation: "bind", code: SQLiteError.range,
        message: "the statement has \(statement.parameterCount) parameters, \(given) values given")
    }
    for (index, value) in values.enumerated() {
      try library.bind(statement.handle, Int32(index + 1), value)
    }
    for (index, text) in texts.enumerated() {
      try library.bind(statement.handle, Int32(values.count + index + 1), utf8: text)
    }
  }
}

/// A statement prepared once and kept for the connection's life, with what is known of it
/// from the moment it is prepared.
struct PreparedStatement {
  let handle: OpaquePointer
  /// How many values it takes (the largest parameter number).
  let parameterCount: Int
  /// Its result columns by name.
  let columns: SQLiteColumns

  init(_ handle: OpaquePointer) {
    self.handle = handle
    parameterCount = SQLiteStatementFacts.parameterCount(handle)
    columns = SQLiteColumns(names: SQLiteStatementFacts.columnNames(handle))
  }
}

/// The result columns of a statement, by name: a row is read by column name, never by a
/// position that a change to the column list would silently shift.
///
/// Not found by hashing the name (about 500 instructions a column, a tenth of reading the
/// rows of a category or the categories of an open): every row of a statement is read in
/// the same order of columns, so the column read after this one last time is tried first,
/// and a name equal to it compares in a few instructions. Any other order still finds its
/// column, and is learnt.
final class SQLiteColumns {
  private let names: [String]
  /// Whether each column is the first of its name (the one a name finds).
  private let isFirstOfItsName: [Bool]
  /// For each column (and, at 0, for none), the column found after it last time, shifted
  /// by one: the guess for the next lookup. (Its accesses are not tracked at run time: each
  /// is one statement, on the one thread that steps the statement, and tracking them cost
  /// more than the lookup.)
  @exclusivity(unchecked) private var successors: [Int]
  /// The column found last, shifted by one; 0 before the first lookup.
  @exclusivity(unchecked) private var last = 0

  /// The columns named `names`, in order; of two with one name, the first is found.
  init(names: [String]) {
    self.names = names
    isFirstOfItsName = names.indices.map { names.firstIndex(of: names[$0]) == $0 }
    successors = Array(0...names.count)
  }

  /// The position of the column `name`; `nil` when the statement has none of that name.
  func index(of name: String) -> Int32? {
    let guess = successors[last]
    let position: Int
    if guess < names.count, isFirstOfItsName[guess], names[guess] == name {
      position = guess
    } else {
      guard let found = names.firstIndex(of: name) else { return nil }
      position = found
      successors[last] = found
    }
    last = position + 1
    return Int32(position)
  }
}

extension SQLiteRow {
  /// The position of the column `name`. A name the statement lacks is a mistake in docsh's
  /// own SQL: it stops a debug build; a release build reads NULL (0, "", no bytes), which
  /// the reader takes for a damaged row.
  private func index(_ name: String) -> Int32 {
    guard let index = columns.index(of: name) else {
      assertionFailure("no column \(name) in the statement")
      return -1
    }
    return index
  }

  /// Column `name` as an integer.
  func integer(_ name: String) -> Int64 { integer(index(name)) }
  /// Column `name` as an `Int`.
  func int(_ name: String) -> Int { int(index(name)) }
  /// Column `name` as a floating-point number.
  func real(_ name: String) -> Double { real(index(name)) }
  /// Whether column `name` is NULL.
  func isNull(_ name: String) -> Bool { isNull(index(name)) }
  /// Column `name` as text.
  func text(_ name: String) -> String { text(index(name)) }
  /// Column `name` as bytes (text or blob).
  func bytes(_ name: String) -> [UInt8] { bytes(index(name)) }
  /// Column `name` as an object id; `nil` when it is not one.
  func objectID(_ name: String) -> ObjectID? { objectID(index(name)) }
  /// Column `index` as bytes (text or blob).
  func bytes(_ index: Int32) -> [UInt8] { withBytes(index) { Array($0) } }
  /// Column `index` as an object id, read in place (no array a row); `nil` when it is not one.
  func objectID(_ index: Int32) -> ObjectID? { withBytes(index) { StoreIndex.objectID($0) } }
}
