import CSQLite

// The only file that imports CSQLite: every SQLite call the index makes goes through the
// `SQLiteLibrary` seam below, so a test can fail any of them (as `FileSystem` does for
// system calls), and `SQLiteDatabase` / `SQLiteStatement` give the rest of DocsKit a small
// typed interface over it.

/// A failed SQLite call: which one, its result code and SQLite's message.
struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The call ("open", "prepare", "step" …).
  var operation: String
  /// The (extended) result code.
  var code: Int32
  /// SQLite's text for it.
  var message: String

  /// Whether the database file is damaged or not a database at all.
  var isDamage: Bool {
    let primary = code & 0xFF
    return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
  }

  /// Whether another connection holds a lock this one needed.
  var isBusy: Bool {
    let primary = code & 0xFF
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED
  }

  /// Whether the work was stopped on purpose (``interrupted``): no sign of any damage.
  var isInterruption: Bool { code & 0xFF == SQLITE_INTERRUPT }

  /// Work on the index stopped because the person at the terminal asked (Ctrl-C); thrown
  /// by docsh itself between statements, never by SQLite, and rolled back like any failure.
  static let interrupted = SQLiteError(
    operation: "interrupt", code: SQLITE_INTERRUPT, message: "interrupted")

  var description: String { "\(operation): \(message)" }

  /// The primary result codes the tests inject.
  static let ioError = SQLITE_IOERR
  static let full = SQLITE_FULL
  static let corrupt = SQLITE_CORRUPT
  static let busy = SQLITE_BUSY
}

/// A value bound to a statement parameter.
enum SQLiteValue: Sendable, Equatable {
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])
  case null
}

/// Every SQLite call the index makes, so tests can swap in one that fails on demand. Each
/// method makes one SQLite call (column reads, which cannot fail, are not part of it).
protocol SQLiteLibrary: AnyObject {
  /// `sqlite3_open_v2` read-write, creating the file when `create`.
  func open(_ path: String, create: Bool) throws(SQLiteError) -> OpaquePointer
  /// `sqlite3_close_v2`.
  func close(_ connection: OpaquePointer)
  /// `sqlite3_exec` of `sql` (no rows wanted).
  func execute(_ connection: OpaquePointer, _ sql: String) throws(SQLiteError)
  /// `sqlite3_prepare_v2`.
  func prepare(_ connection: OpaquePointer, _ sql: String) throws(SQLiteError) -> OpaquePointer
  /// `sqlite3_bind_*` of parameter `index` (from 1).
  func bind(_ statement: OpaquePointer, _ index: Int32, _ value: SQLiteValue) throws(SQLiteError)
  /// `sqlite3_bind_text` of UTF-8 bytes, copied.
  func bind(_ statement: OpaquePointer, _ index: Int32, utf8: UnsafeRawBufferPointer)
    throws(SQLiteError)
  /// `sqlite3_step`: `true` for a row, `false` when done.
  func step(_ statement: OpaquePointer) throws(SQLiteError) -> Bool
  /// `sqlite3_reset` and `sqlite3_clear_bindings`.
  func reset(_ statement: OpaquePointer)
  /// `sqlite3_finalize`.
  func finalize(_ statement: OpaquePointer)
  /// Creates the index's tokenizer (`docsh remove_diacritics 2`) on `connection`.
  func makeTokenizer(_ connection: OpaquePointer) throws(SQLiteError) -> FTSTokenizer
  /// `sqlite3_progress_handler`: while set, `handler` is asked every `instructions` steps
  /// of SQLite's virtual machine whether to stop the statement running (it then fails with
  /// SQLITE_INTERRUPT); `nil` removes it. The caller keeps `handler` alive while it is set.
  func setProgressHandler(
    _ connection: OpaquePointer, every instructions: Int32, _ handler: SQLiteProgressHandler?)
}

/// What `sqlite3_progress_handler` asks while a long statement runs: whether to stop it.
final class SQLiteProgressHandler {
  let shouldStop: () -> Bool

  init(_ shouldStop: @escaping () -> Bool) {
    self.shouldStop = shouldStop
  }
}

// MARK: - The real library

/// SQLite from the system library.
final class SystemSQLite: SQLiteLibrary {
  init() {}

  func open(_ path: String, create: Bool) throws(SQLiteError) -> OpaquePointer {
    var connection: OpaquePointer?
    let flags =
      SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
      | SQLITE_OPEN_EXRESCODE
    let code = sqlite3_open_v2(path, &connection, flags, nil)
    guard code == SQLITE_OK, let connection else {
      let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
      if let connection { sqlite3_close_v2(connection) }
      throw SQLiteError(operation: "open", code: code, message: message)
    }
    // Keep the -wal and -shm files when the last connection closes: every docsh command
    // is a process of its own, and making, sizing and deleting them each time was most of
    // what opening the index cost. They are removed with the database when it is rebuilt.
    var persist: Int32 = 1
    _ = sqlite3_file_control(connection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
    // docsh's own tokenizer and rank function (FoldingTokenizer.swift, RankFunction.swift).
    do {
      try registerSearchExtensions(connection)
    } catch {
      sqlite3_close_v2(connection)
      throw error
    }
    return connection
  }

  func close(_ connection: OpaquePointer) {
    sqlite3_close_v2(connection)
  }

  func execute(_ connection: OpaquePointer, _ sql: String) throws(SQLiteError) {
    let code = sqlite3_exec(connection, sql, nil, nil, nil)
    if code != SQLITE_OK { throw error("execute", code, connection) }
  }

  func prepare(_ connection: OpaquePointer, _ sql: String) throws(SQLiteError) -> OpaquePointer {
    var statement: OpaquePointer?
    let code = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
    guard code == SQLITE_OK, let statement else { throw error("prepare", code, connection) }
    return statement
  }

  func bind(_ statement: OpaquePointer, _ index: Int32, _ value: SQLiteValue) throws(SQLiteError) {
    let code: Int32
    switch value {
    case .integer(let value): code = sqlite3_bind_int64(statement, index, value)
    case .real(let value): code = sqlite3_bind_double(statement, index, value)
    case .null: code = sqlite3_bind_null(statement, index)
    case .text(let text):
      var text = text
      code = text.withUTF8 { bytes in bindText(statement, index, UnsafeRawBufferPointer(bytes)) }
    case .blob(let bytes):
      code = bytes.withUnsafeBytes { buffer in
        sqlite3_bind_blob(
          statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
          Int32(buffer.count), docsh_sqlite_transient())
      }
    }
    if code != SQLITE_OK { throw error("bind", code, sqlite3_db_handle(statement)) }
  }

  func bind(_ statement: OpaquePointer, _ index: Int32, utf8: UnsafeRawBufferPointer)
    throws(SQLiteError)
  {
    let code = bindText(statement, index, utf8)
    if code != SQLITE_OK { throw error("bind", code, sqlite3_db_handle(statement)) }
  }

  private func bindText(_ statement: OpaquePointer, _ index: Int32, _ utf8: UnsafeRawBufferPointer)
    -> Int32
  {
    guard let base = utf8.baseAddress?.assumingMemoryBound(to: CChar.self) else {
      return sqlite3_bind_text(statement, index, "", 0, docsh_sqlite_transient())
    }
    return sqlite3_bind_text(statement, index, base, Int32(utf8.count), docsh_sqlite_transient())
  }

  func step(_ statement: OpaquePointer) throws(SQLiteError) -> Bool {
    let code = sqlite3_step(statement)
    switch code {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default: throw error("step", code, sqlite3_db_handle(statement))
    }
  }

  func reset(_ statement: OpaquePointer) {
    sqlite3_reset(statement)
    sqlite3_clear_bindings(statement)
  }

  func finalize(_ statement: OpaquePointer) {
    sqlite3_finalize(statement)
  }

  func makeTokenizer(_ connection: OpaquePointer) throws(SQLiteError) -> FTSTokenizer {
    guard let api = docsh_fts5_api(connection), api.pointee.iVersion >= 2,
      let find = api.pointee.xFindTokenizer
    else {
      throw SQLiteError(operation: "fts5", code: SQLITE_ERROR, message: "FTS5 is not available")
    }
    var context: UnsafeMutableRawPointer?
    var methods = fts5_tokenizer()
    var code = find(api, foldingTokenizerName, &context, &methods)
    guard code == SQLITE_OK, let create = methods.xCreate, let tokenize = methods.xTokenize else {
      throw SQLiteError(operation: "fts5", code: code, message: "no docsh tokenizer")
    }
    var instance: OpaquePointer?
    let arguments = ["remove_diacritics", "2"]
    code = withCStrings(arguments) { pointers in
      var pointers = pointers
      return create(context, &pointers, Int32(arguments.count), &instance)
    }
    guard code == SQLITE_OK, let instance else {
      throw SQLiteError(operation: "fts5", code: code, message: "cannot create the tokenizer")
    }
    return FTSTokenizer(instance: instance, tokenize: tokenize, delete: methods.xDelete)
  }

  func setProgressHandler(
    _ connection: OpaquePointer, every instructions: Int32, _ handler: SQLiteProgressHandler?
  ) {
    guard let handler else {
      sqlite3_progress_handler(connection, 0, nil, nil)
      return
    }
    sqlite3_progress_handler(
      connection, instructions,
      { context in
        guard let context else { return 0 }
        let handler = Unmanaged<SQLiteProgressHandler>.fromOpaque(context).takeUnretainedValue()
        return handler.shouldStop() ? 1 : 0
      }, Unmanaged.passUnretained(handler).toOpaque())
  }

  private func error(_ operation: String, _ code: Int32, _ connection: OpaquePointer?)
    -> SQLiteError
  {
    let message =
      connection.map { String(cString: sqlite3_errmsg($0)) }
      ?? String(cString: sqlite3_errstr(code))
    return SQLiteError(operation: operation, code: code, message: message)
  }

  private func withCStrings<Result>(
    _ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> Result
  ) -> Result {
    let copies = strings.map { string -> UnsafeMutablePointer<CChar> in
      let bytes = Array(string.utf8CString)
      let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
      copy.initialize(from: bytes, count: bytes.count)
      return copy
    }
    defer { copies.forEach { $0.deallocate() } }
    return body(copies.map { UnsafePointer($0) })
  }
}

// MARK: - The tokenizer

/// One token as FTS5 indexes it: the folded text and where it lies in the input (UTF-8).
struct FoldedToken: Hashable, Sendable {
  /// The token after case and diacritic folding.
  var text: String
  /// Its byte range in the text tokenized.
  var range: Range<Int>
  /// Its English stem, when the index holds one beside it (it differs from `text`).
  var stem: String? = nil
}

/// The index's own `docsh remove_diacritics 2` tokenizer, called directly, so that what
/// DocsKit matches, counts and highlights in Swift is exactly what the index holds.
final class FTSTokenizer {
  private let instance: OpaquePointer
  private let tokenizeFunction:
    @convention(c) (
      OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32,
      (
        @convention(c) (
          UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32
        ) -> Int32
      )?
    ) -> Int32
  private let deleteFunction: (@convention(c) (OpaquePointer?) -> Void)?

  fileprivate init(
    instance: OpaquePointer,
    tokenize:
      @escaping @convention(c) (
        OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32,
        (
          @convention(c) (
            UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32
          ) -> Int32
        )?
      ) -> Int32,
    delete: (@convention(c) (OpaquePointer?) -> Void)?
  ) {
    self.instance = instance
    self.tokenizeFunction = tokenize
    self.deleteFunction = delete
  }

  deinit {
    deleteFunction?(instance)
  }

  /// The tokens of `text`, in order; `nil` when the tokenizer failed.
  func tokens(of text: String) -> [FoldedToken]? {
    final class Sink {
      var tokens: [FoldedToken] = []
    }
    let sink = Sink()
    var text = text
    let code = text.withUTF8 { bytes -> Int32 in
      let context = Unmanaged.passUnretained(sink).toOpaque()
      return bytes.withMemoryRebound(to: CChar.self) { characters in
        tokenizeFunction(
          instance, context, docsh_fts5_tokenize_document, characters.baseAddress,
          Int32(characters.count)
        ) { context, flags, token, length, start, end in
          guard let context, let token else { return SQLITE_OK }
          let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
          let folded = UnsafeRawBufferPointer(start: token, count: Int(length))
          if flags & docsh_fts5_token_colocated != 0, folded.first == stemMarker,
            !sink.tokens.isEmpty
          {
            sink.tokens[sink.tokens.count - 1].stem = String(
              decoding: folded.dropFirst(), as: UTF8.self)
            return SQLITE_OK
          }
          sink.tokens.append(
            FoldedToken(
              text: String(decoding: folded, as: UTF8.self), range: Int(start)..<Int(end)))
          return SQLITE_OK
        }
      }
    }
    return code == SQLITE_OK ? sink.tokens : nil
  }
}

// MARK: - Connections and statements

/// One connection to an SQLite database, through a ``SQLiteLibrary``.
final class SQLiteDatabase {
  let library: any SQLiteLibrary
  let connection: OpaquePointer
  private var statements: [String: OpaquePointer] = [:]
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
    for statement in statements.values { library.finalize(statement) }
    statements = [:]
    library.close(connection)
  }

  /// Runs `sql`, one or more statements, wanting no rows.
  /// - Throws: ``SQLiteError``.
  func execute(_ sql: String) throws(SQLiteError) {
    try checkOpen()
    try library.execute(connection, sql)
  }

  /// Runs `sql` with `values` bound, calling `row` for every row.
  /// - Throws: ``SQLiteError``, or stops at the first error `row` throws (wrapped).
  func query(
    _ sql: String, _ values: [SQLiteValue] = [], row: (SQLiteRow) throws(SQLiteError) -> Void
  ) throws(SQLiteError) {
    let statement = try prepared(sql)
    defer { library.reset(statement) }
    for (index, value) in values.enumerated() {
      try library.bind(statement, Int32(index + 1), value)
    }
    while try library.step(statement) {
      try row(SQLiteRow(statement: statement))
    }
  }

  /// Runs `sql` with `values` bound, wanting no rows.
  /// - Throws: ``SQLiteError``.
  func run(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) {
    try query(sql, values) { _ throws(SQLiteError) in }
  }

  /// Runs `sql` with the values bound, the first text parameters given as UTF-8 bytes.
  /// - Throws: ``SQLiteError``.
  func run(_ sql: String, _ values: [SQLiteValue], texts: [UnsafeRawBufferPointer])
    throws(SQLiteError)
  {
    let statement = try prepared(sql)
    defer { library.reset(statement) }
    for (index, value) in values.enumerated() {
      try library.bind(statement, Int32(index + 1), value)
    }
    for (index, text) in texts.enumerated() {
      try library.bind(statement, Int32(values.count + index + 1), utf8: text)
    }
    while try library.step(statement) {}
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
  var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(connection) }

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
      try? execute("ROLLBACK")
      throw error
    }
  }

  private func checkOpen() throws(SQLiteError) {
    guard isOpen else {
      throw SQLiteError(operation: "execute", code: SQLITE_MISUSE, message: "the index is closed")
    }
  }

  private func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer {
    try checkOpen()
    if let statement = statements[sql] { return statement }
    let statement = try library.prepare(connection, sql)
    statements[sql] = statement
    return statement
  }
}

/// The current row of a statement being stepped; valid only inside the callback it is
/// handed to.
struct SQLiteRow {
  fileprivate let statement: OpaquePointer

  /// Column `index` (from 0) as an integer.
  func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(statement, index) }
  /// Column `index` as an `Int`.
  func int(_ index: Int32) -> Int {
    Int(truncatingIfNeeded: sqlite3_column_int64(statement, index))
  }
  /// Column `index` as a floating-point number.
  func real(_ index: Int32) -> Double { sqlite3_column_double(statement, index) }
  /// Whether column `index` is NULL.
  func isNull(_ index: Int32) -> Bool { sqlite3_column_type(statement, index) == SQLITE_NULL }
  /// Column `index` as text.
  func text(_ index: Int32) -> String {
    guard let bytes = sqlite3_column_text(statement, index) else { return "" }
    let count = Int(sqlite3_column_bytes(statement, index))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
  }
  /// Column `index` as bytes (text or blob).
  func bytes(_ index: Int32) -> [UInt8] {
    guard let bytes = sqlite3_column_blob(statement, index) else { return [] }
    let count = Int(sqlite3_column_bytes(statement, index))
    return Array(UnsafeRawBufferPointer(start: bytes, count: count))
  }
}

/// Whether this SQLite was built with FTS5 (`sqlite_compileoption_used('ENABLE_FTS5')`).
func sqliteHasFTS5() -> Bool {
  sqlite3_compileoption_used("ENABLE_FTS5") == 1
}
