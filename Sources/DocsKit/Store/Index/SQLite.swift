import CSQLite

#if canImport(Glibc)
  import Glibc
#endif

// The only file that imports CSQLite: the C calls, and nothing else. Every SQLite call the
// index makes goes through the `SQLiteLibrary` seam (SQLiteLibrary.swift), so a test can
// fail any of them (as `FileSystem` does for system calls); `SystemSQLite` below is the real
// one, and `SQLiteDatabase` (SQLiteDatabase.swift) gives the rest of DocsKit a small typed
// interface over it. The FTS5 parts docsh adds, its tokenizer and its rank function, are C
// callbacks too: their C halves are here, at the end; what they do in Swift alone is in
// TokenizeCall.swift (with TokenByteKinds and TokenBuffer), FTSTokenizer.swift and
// RankCall.swift (with BestScores).

// MARK: - Result codes

extension SQLiteError {
  /// The primary result codes docsh looks at (and the tests inject).
  static let error = SQLITE_ERROR
  static let ioError = SQLITE_IOERR
  static let full = SQLITE_FULL
  static let corrupt = SQLITE_CORRUPT
  static let notADatabase = SQLITE_NOTADB
  static let busy = SQLITE_BUSY
  static let locked = SQLITE_LOCKED
  static let interrupt = SQLITE_INTERRUPT
  static let misuse = SQLITE_MISUSE
  static let range = SQLITE_RANGE
  static let constraint = SQLITE_CONSTRAINT
}

/// The result codes the C-free files of the tokenizer and `docsh_rank` return, by name.
enum SQLiteResult {
  /// `SQLITE_OK`.
  static var ok: Int32 { @inline(__always) get { SQLITE_OK } }
  /// `SQLITE_ERROR`.
  static var error: Int32 { @inline(__always) get { SQLITE_ERROR } }
}

/// The FTS5 flags the C-free files of the tokenizer pass and test, by name.
enum FTS5Flag {
  /// `FTS5_TOKENIZE_DOCUMENT`: the text is a document being indexed.
  static var tokenizeDocument: Int32 { @inline(__always) get { docsh_fts5_tokenize_document } }
  /// `FTS5_TOKENIZE_QUERY`: the text is a query.
  static var tokenizeQuery: Int32 { @inline(__always) get { docsh_fts5_tokenize_query } }
  /// `FTS5_TOKEN_COLOCATED`: the token stands at the same place as the one before it.
  static var tokenColocated: Int32 { @inline(__always) get { docsh_fts5_token_colocated } }
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
    // Keep the -wal and -shm files when the last connection closes: every command is a
    // process of its own, and making and deleting them each time was most of an open.
    var persist: Int32 = 1
    _ = sqlite3_file_control(connection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
    // Nor checkpoint them when it closes: a command's transaction costs its pages appended
    // to the -wal (NORMAL syncs nothing at a commit), not a checkpoint and three fdatasyncs.
    // SQLite checkpoints every 32 pages (StoreIndex.open), a rebuild at its end; a power cut
    // may lose the index's last transactions, which the trust rules notice.
    _ = docsh_no_checkpoint_on_close(connection)
    // docsh's own tokenizer and rank function (below, "The docsh tokenizer", "docsh_rank").
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
    try makeTokenizer(connection, arguments: ["remove_diacritics", "2"])
  }

  /// The `docsh` tokenizer created with `arguments` (the tests compare arguments that leave
  /// every word to unicode61 with the index's own).
  func makeTokenizer(_ connection: OpaquePointer, arguments: [String]) throws(SQLiteError)
    -> FTSTokenizer
  {
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

  /// The failure of `operation` that returned `code`, with the connection's extended code
  /// and message (the statement's SQL is added by ``SQLiteDatabase``, which knows it).
  private func error(_ operation: String, _ code: Int32, _ connection: OpaquePointer?)
    -> SQLiteError
  {
    guard let connection else {
      return SQLiteError(
        operation: operation, code: code, message: String(cString: sqlite3_errstr(code)))
    }
    let extended = sqlite3_extended_errcode(connection)
    return SQLiteError(
      operation: operation, code: extended & 0xFF == code & 0xFF ? extended : code,
      message: String(cString: sqlite3_errmsg(connection)))
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

// MARK: - Rows and statements

/// The current row of a statement being stepped; valid only inside the callback it is
/// handed to. Read by column name (SQLiteDatabase.swift) rather than by position.
struct SQLiteRow {
  let statement: OpaquePointer
  /// The statement's columns by name.
  let columns: SQLiteColumns

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
  /// Hands `body` the bytes of column `index` (text or blob) in place, none when NULL.
  func withBytes<R>(_ index: Int32, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    let bytes = sqlite3_column_blob(statement, index)
    let count = bytes == nil ? 0 : Int(sqlite3_column_bytes(statement, index))
    return body(UnsafeRawBufferPointer(start: bytes, count: count))
  }
}

/// What is known of a statement or a connection without a call that can fail.
enum SQLiteStatementFacts {
  /// `sqlite3_bind_parameter_count`: the largest parameter number of `statement`.
  static func parameterCount(_ statement: OpaquePointer) -> Int {
    Int(sqlite3_bind_parameter_count(statement))
  }

  /// `sqlite3_column_name` of each result column of `statement`, in order.
  static func columnNames(_ statement: OpaquePointer) -> [String] {
    (0..<sqlite3_column_count(statement)).map { column in
      sqlite3_column_name(statement, column).map { String(cString: $0) } ?? ""
    }
  }

  /// `sqlite3_last_insert_rowid`.
  static func lastInsertedRowID(_ connection: OpaquePointer) -> Int64 {
    sqlite3_last_insert_rowid(connection)
  }
}

/// Whether this SQLite was built with FTS5 (`sqlite_compileoption_used('ENABLE_FTS5')`).
func sqliteHasFTS5() -> Bool {
  sqlite3_compileoption_used("ENABLE_FTS5") == 1
}

// MARK: - The docsh tokenizer

// What the `docsh` tokenizer is and why, and what one xTokenize call does, are in
// TokenizeCall.swift; here are its C halves: finding its parents, registering it, creating
// an instance.

/// unicode61's and porter's methods, found once per connection: the tokenizer's context.
private final class Parents {
  let unicode61: (userData: UnsafeMutableRawPointer?, methods: fts5_tokenizer)
  let porter: (userData: UnsafeMutableRawPointer?, methods: fts5_tokenizer)

  init(
    unicode61: (UnsafeMutableRawPointer?, fts5_tokenizer),
    porter: (UnsafeMutableRawPointer?, fts5_tokenizer)
  ) {
    self.unicode61 = unicode61
    self.porter = porter
  }
}

/// One `docsh` tokenizer: the unicode61 and porter instances it uses, and the stems found.
final class FoldingTokenizerInstance {
  let words: OpaquePointer
  let wordMethods: fts5_tokenizer
  let stemmer: OpaquePointer
  let stemmerMethods: fts5_tokenizer
  /// Whether ASCII words may be tokenized here (unicode61 was given no `tokenchars` or
  /// `separators`, only `remove_diacritics`).
  let tokenizesASCII: Bool
  let stems = StemCache()
  /// What each byte is to a word, for the ASCII words tokenized in Swift.
  let byteKinds = TokenByteKinds()

  /// unicode61's xTokenize, for the runs ``TokenizeCall`` hands it.
  var tokenizeWords: FTS5TokenizeFunction? { wordMethods.xTokenize }
  /// porter's xTokenize, for the words ``TokenizeCall`` stems.
  var tokenizeStem: FTS5TokenizeFunction? { stemmerMethods.xTokenize }

  init(
    words: OpaquePointer, wordMethods: fts5_tokenizer, stemmer: OpaquePointer,
    stemmerMethods: fts5_tokenizer, tokenizesASCII: Bool
  ) {
    self.words = words
    self.wordMethods = wordMethods
    self.stemmer = stemmer
    self.stemmerMethods = stemmerMethods
    self.tokenizesASCII = tokenizesASCII
  }

  deinit {
    wordMethods.xDelete?(words)
    stemmerMethods.xDelete?(stemmer)
  }
}

/// Registers the `docsh` tokenizer (and `docsh_word`, which it stems through) and the
/// `docsh_rank` function on `connection`.
/// - Throws: ``SQLiteError`` when FTS5, unicode61 or porter is missing.
func registerSearchExtensions(_ connection: OpaquePointer) throws(SQLiteError) {
  guard let api = docsh_fts5_api(connection), api.pointee.iVersion >= 2 else {
    throw SQLiteError(operation: "fts5", code: SQLITE_ERROR, message: "FTS5 is not available")
  }
  try registerWordTokenizer(api)
  try registerFoldingTokenizer(api, parents: findParents(api))
  try registerRankFunction(api)
}

/// Registers `docsh_word`: the whole input is one token (porter's parent, to stem one word).
private func registerWordTokenizer(_ api: UnsafeMutablePointer<fts5_api>) throws(SQLiteError) {
  guard let createTokenizer = api.pointee.xCreateTokenizer else {
    throw SQLiteError(operation: "fts5", code: SQLITE_ERROR, message: "FTS5 is not available")
  }
  var word = fts5_tokenizer(
    xCreate: { _, _, _, instance in
      instance?.pointee = OpaquePointer(bitPattern: 1)
      return SQLITE_OK
    },
    xDelete: { _ in },
    xTokenize: { _, context, _, text, length, token in
      token?(context, 0, text, length, 0, length) ?? SQLITE_ERROR
    })
  let code = createTokenizer(api, "docsh_word", nil, &word, nil)
  guard code == SQLITE_OK else {
    throw SQLiteError(operation: "fts5", code: code, message: "cannot register docsh_word")
  }
}

/// unicode61 and porter, which `docsh` is made of.
private func findParents(_ api: UnsafeMutablePointer<fts5_api>) throws(SQLiteError) -> Parents {
  guard let find = api.pointee.xFindTokenizer else {
    throw SQLiteError(operation: "fts5", code: SQLITE_ERROR, message: "FTS5 is not available")
  }
  var unicode61Data: UnsafeMutableRawPointer?
  var unicode61 = fts5_tokenizer()
  var porterData: UnsafeMutableRawPointer?
  var porter = fts5_tokenizer()
  var code = find(api, "unicode61", &unicode61Data, &unicode61)
  if code == SQLITE_OK { code = find(api, "porter", &porterData, &porter) }
  guard code == SQLITE_OK else {
    throw SQLiteError(operation: "fts5", code: code, message: "no unicode61 or porter tokenizer")
  }
  return Parents(unicode61: (unicode61Data, unicode61), porter: (porterData, porter))
}

/// Registers `docsh` itself, `parents` as its context.
private func registerFoldingTokenizer(_ api: UnsafeMutablePointer<fts5_api>, parents: Parents)
  throws(SQLiteError)
{
  guard let createTokenizer = api.pointee.xCreateTokenizer else {
    throw SQLiteError(operation: "fts5", code: SQLITE_ERROR, message: "FTS5 is not available")
  }
  let parents = Unmanaged.passRetained(parents)
  var folding = fts5_tokenizer(
    xCreate: { context, arguments, count, instance in
      guard let context, let instance else { return SQLITE_ERROR }
      let parents = Unmanaged<Parents>.fromOpaque(context).takeUnretainedValue()
      return createFoldingTokenizer(parents, arguments, count, instance)
    },
    xDelete: { instance in
      guard let instance else { return }
      Unmanaged<FoldingTokenizerInstance>.fromOpaque(UnsafeRawPointer(instance)).release()
    },
    xTokenize: { instance, context, flags, text, length, token in
      guard let instance, let token else { return SQLITE_ERROR }
      let folding = Unmanaged<FoldingTokenizerInstance>.fromOpaque(UnsafeRawPointer(instance))
        .takeUnretainedValue()
      return TokenizeCall.tokenize(
        text, length: length, flags: flags, instance: folding, context: context, token: token)
    })
  let code = createTokenizer(api, foldingTokenizerName, parents.toOpaque(), &folding) {
    context in
    guard let context else { return }
    Unmanaged<Parents>.fromOpaque(context).release()
  }
  guard code == SQLITE_OK else {
    parents.release()
    throw SQLiteError(operation: "fts5", code: code, message: "cannot register the tokenizer")
  }
}

/// `docsh`'s xCreate: a unicode61 with `arguments`, and a porter over `docsh_word`.
private func createFoldingTokenizer(
  _ parents: Parents, _ arguments: UnsafeMutablePointer<UnsafePointer<CChar>?>?, _ count: Int32,
  _ instance: UnsafeMutablePointer<OpaquePointer?>
) -> Int32 {
  guard let createWords = parents.unicode61.methods.xCreate,
    let createStemmer = parents.porter.methods.xCreate
  else { return SQLITE_ERROR }
  var words: OpaquePointer?
  var code = createWords(parents.unicode61.userData, arguments, count, &words)
  guard code == SQLITE_OK, let words else { return code == SQLITE_OK ? SQLITE_ERROR : code }
  var stemmer: OpaquePointer?
  code = "docsh_word".withCString { name -> Int32 in
    var arguments: [UnsafePointer<CChar>?] = [name]
    return createStemmer(parents.porter.userData, &arguments, 1, &stemmer)
  }
  guard code == SQLITE_OK, let stemmer else {
    parents.unicode61.methods.xDelete?(words)
    return code == SQLITE_OK ? SQLITE_ERROR : code
  }
  // Only `remove_diacritics N` leaves ASCII letters and digits the only ASCII word bytes.
  var tokenizesASCII = true
  for index in stride(from: 0, to: Int(count), by: 2) {
    guard let name = arguments?[index], String(cString: name) == "remove_diacritics" else {
      tokenizesASCII = false
      break
    }
  }
  let folding = FoldingTokenizerInstance(
    words: words, wordMethods: parents.unicode61.methods, stemmer: stemmer,
    stemmerMethods: parents.porter.methods, tokenizesASCII: tokenizesASCII)
  instance.pointee = OpaquePointer(Unmanaged.passRetained(folding).toOpaque())
  return SQLITE_OK
}

// MARK: - docsh_rank

// What `docsh_rank` does and what one query keeps between rows are in RankCall.swift; here
// are its C halves: registering it and reading FTS5's matches.

/// The functions of FTS5's extension API `docsh_rank` calls.
private struct RankAPI {
  let instCount: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?) -> Int32
  let inst:
    @convention(c) (
      OpaquePointer?, Int32, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?,
      UnsafeMutablePointer<Int32>?
    ) -> Int32
  let columnSize: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<Int32>?) -> Int32
  let functions: Fts5ExtensionApi

  init?(_ functions: Fts5ExtensionApi) {
    guard let instCount = functions.xInstCount, let inst = functions.xInst,
      let columnSize = functions.xColumnSize, functions.xGetAuxdata != nil,
      functions.xSetAuxdata != nil
    else { return nil }
    self.instCount = instCount
    self.inst = inst
    self.columnSize = columnSize
    self.functions = functions
  }
}

/// Registers `docsh_rank` through `api`.
/// - Throws: ``SQLiteError`` when FTS5 refuses it.
func registerRankFunction(_ api: UnsafeMutablePointer<fts5_api>) throws(SQLiteError) {
  guard let create = api.pointee.xCreateFunction else {
    throw SQLiteError(operation: "fts5", code: SQLITE_ERROR, message: "no xCreateFunction")
  }
  let code = create(
    api, "docsh_rank", nil,
    { api, fts, context, count, values in
      guard let api, let fts, let context else { return }
      guard let functions = RankAPI(api.pointee) else {
        sqlite3_result_error(context, "docsh_rank: FTS5 too old", -1)
        return
      }
      let call: RankCall
      switch rankCall(functions, fts, count: count, values: values) {
      case .success(let found): call = found
      case .failure(let message):
        sqlite3_result_error(context, message.text, -1)
        return
      }
      switch rank(functions, fts, call) {
      case .success(let score): sqlite3_result_double(context, score)
      case .failure(let message): sqlite3_result_error(context, message.text, -1)
      }
    }, nil)
  guard code == SQLITE_OK else {
    throw SQLiteError(operation: "fts5", code: code, message: "cannot register docsh_rank")
  }
}

/// The query's ``RankCall``, made and kept as FTS5 auxiliary data at the first row.
private func rankCall(
  _ api: RankAPI, _ fts: OpaquePointer, count: Int32,
  values: UnsafeMutablePointer<OpaquePointer?>?
) -> Result<RankCall, RankFailure> {
  let functions = api.functions
  if let cached = functions.xGetAuxdata?(fts, 0) {
    return .success(Unmanaged<RankCall>.fromOpaque(cached).takeUnretainedValue())
  }
  guard count >= 1, let values, let text = sqlite3_value_text(values[0]),
    let plan = RankingPlan(encoded: String(cString: text))
  else { return .failure(RankFailure(text: "docsh_rank: no plan")) }
  let limit = count >= 2 ? Int(sqlite3_value_int64(values[1])) : 0
  var rows: Int64 = 0
  var nameTokens: Int64 = 0
  var contentTokens: Int64 = 0
  _ = functions.xRowCount?(fts, &rows)
  _ = functions.xColumnTotalSize?(fts, 0, &nameTokens)
  _ = functions.xColumnTotalSize?(fts, 1, &contentTokens)
  let documents = Double(max(rows, 1))
  let call = RankCall(
    plan: plan, rows: Int(rows),
    averages: ColumnLengths.Averages(
      name: Double(nameTokens) / documents, content: Double(contentTokens) / documents),
    limit: limit)
  let retained = Unmanaged.passRetained(call).toOpaque()
  let stored = functions.xSetAuxdata?(fts, retained) { pointer in
    guard let pointer else { return }
    Unmanaged<RankCall>.fromOpaque(pointer).release()
  }
  guard stored == SQLITE_OK else { return .failure(RankFailure(text: "docsh_rank: out of memory")) }
  return .success(call)
}

/// The score of the current row: counts its phrases' instances in name and content, then
/// scores them, exactly unless no length can bring the row among the best kept.
private func rank(_ api: RankAPI, _ fts: OpaquePointer, _ call: RankCall) -> Result<
  Double, RankFailure
> {
  let names = call.nameCounts
  let contents = call.contentCounts
  for index in names.indices {
    names[index] = 0
    contents[index] = 0
  }
  var instances: Int32 = 0
  guard api.instCount(fts, &instances) == SQLITE_OK else {
    return .failure(RankFailure(text: "docsh_rank: cannot read the matches"))
  }
  for index in 0..<instances {
    var phrase: Int32 = 0
    var column: Int32 = 0
    var offset: Int32 = 0
    guard api.inst(fts, index, &phrase, &column, &offset) == SQLITE_OK, phrase >= 0,
      Int(phrase) < names.count
    else { continue }
    if column == 0 {
      names[Int(phrase)] += 1
    } else {
      contents[Int(phrase)] += 1
    }
  }
  if let threshold = call.threshold {
    let bound = call.score(lengths: ColumnLengths(name: 0, content: 0))
    if bound < threshold { return .success(bound) }
  }
  let row = api.functions.xRowid?(fts) ?? 0
  if let last = call.lastRow, last.id == row { return .success(last.score) }
  var nameLength: Int32 = 0
  var contentLength: Int32 = 0
  _ = api.columnSize(fts, 0, &nameLength)
  _ = api.columnSize(fts, 1, &contentLength)
  let score = call.score(lengths: ColumnLengths(name: Int(nameLength), content: Int(contentLength)))
  call.record(score)
  call.lastRow = (row, score)
  return .success(score)
}
