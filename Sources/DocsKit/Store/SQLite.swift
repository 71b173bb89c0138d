import CSQLite

#if canImport(Glibc)
  import Glibc
#endif

// The only file that imports CSQLite: the C calls, and nothing else. Every SQLite call the
// index makes goes through the `SQLiteLibrary` seam (SQLiteLibrary.swift), so a test can
// fail any of them (as `FileSystem` does for system calls); `SystemSQLite` below is the real
// one, and `SQLiteDatabase` (SQLiteDatabase.swift) gives the rest of DocsKit a small typed
// interface over it. The FTS5 parts docsh adds, its tokenizer and its rank function, are C
// callbacks too and live here, at the end.

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
  /// Column `index` as bytes (text or blob).
  func bytes(_ index: Int32) -> [UInt8] {
    guard let bytes = sqlite3_column_blob(statement, index) else { return [] }
    let count = Int(sqlite3_column_bytes(statement, index))
    return Array(UnsafeRawBufferPointer(start: bytes, count: count))
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

// The `docsh` FTS5 tokenizer: unicode61 (created with the arguments given to `docsh`, as
// FTS5's own porter wraps its parent), then ``TextFolding`` on every token, so that accents
// fold in every script, not only Latin; and, in documents, each ASCII token's English
// (Porter) stem as a colocated token marked with a leading U+0001 when it differs from the
// token (a token that is its own stem stands for itself: half the extra postings of
// marking every token), so that one table answers both exact and stemmed words.
// SystemSQLite registers it on every connection it opens.
//
// Words of ASCII letters and digits are tokenized here, as unicode61 would (lower-cased,
// nothing to fold), straight from the input's bytes: only runs of bytes holding something
// else go to unicode61, each on its own. That is exact because ASCII punctuation and blanks
// always separate words in unicode61 (with no `tokenchars` or `separators` given: with any
// argument but `remove_diacritics`, all of the text goes to unicode61), so a run between
// two of them holds the same tokens tokenized alone as within the whole text.
//
// In a query, a string starting with U+0001 asks for stems: its tokens come back marked.
// Porter is FTS5's own, reached through a tokenizer (`docsh_word`) that hands it its whole
// input as one token, and its stems are kept in a ``StemCache``.

/// An FTS5 token callback (`xToken`).
typealias FTS5TokenCallback =
  @convention(c) (
    UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, Int32, Int32, Int32
  ) -> Int32

/// The name the index's schema and the Swift-side tokenizer use.
let foldingTokenizerName = "docsh"

/// The byte that marks a stem, in the index and in query strings.
let stemMarker: UInt8 = 0x01

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
private final class FoldingTokenizerInstance {
  let words: OpaquePointer
  let wordMethods: fts5_tokenizer
  let stemmer: OpaquePointer
  let stemmerMethods: fts5_tokenizer
  /// Whether ASCII words may be tokenized here (unicode61 was given no `tokenchars` or
  /// `separators`, only `remove_diacritics`).
  let tokenizesASCII: Bool
  let stems = StemCache()
  /// What each byte is to a word: ``separator``, ``wordByte``, ``uppercase`` or ``nonASCII``.
  let byteKinds: UnsafeMutablePointer<UInt8>

  /// An ASCII byte that is not a letter or a digit.
  static let separator: UInt8 = 0
  /// A lower-case ASCII letter or a digit.
  static let wordByte: UInt8 = 1
  /// An upper-case ASCII letter.
  static let uppercase: UInt8 = 3
  /// A byte of a character beyond ASCII.
  static let nonASCII: UInt8 = 5

  init(
    words: OpaquePointer, wordMethods: fts5_tokenizer, stemmer: OpaquePointer,
    stemmerMethods: fts5_tokenizer, tokenizesASCII: Bool
  ) {
    self.words = words
    self.wordMethods = wordMethods
    self.stemmer = stemmer
    self.stemmerMethods = stemmerMethods
    self.tokenizesASCII = tokenizesASCII
    byteKinds = .allocate(capacity: 256)
    for byte in 0..<256 {
      byteKinds[byte] =
        switch UInt8(byte) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
          FoldingTokenizerInstance.wordByte
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): FoldingTokenizerInstance.uppercase
        case 0x80...: FoldingTokenizerInstance.nonASCII
        default: FoldingTokenizerInstance.separator
        }
    }
  }

  deinit {
    wordMethods.xDelete?(words)
    stemmerMethods.xDelete?(stemmer)
    byteKinds.deallocate()
  }
}

/// A growable byte buffer the tokenizer writes tokens into, reused token after token.
private struct TokenBuffer {
  private(set) var bytes: UnsafeMutablePointer<UInt8>
  private(set) var capacity: Int

  init(capacity: Int) {
    self.capacity = capacity
    bytes = .allocate(capacity: capacity)
  }

  /// Makes room for `count` bytes (what it held is lost when it grows).
  mutating func reserve(_ count: Int) {
    guard count > capacity else { return }
    bytes.deallocate()
    capacity = count * 2
    bytes = .allocate(capacity: capacity)
  }

  func deallocate() { bytes.deallocate() }
}

/// What one call of xTokenize needs: the caller's callback, what it wants, and buffers for
/// lower-cased and folded tokens and for stems.
private final class TokenizeCall {
  let context: UnsafeMutableRawPointer?
  let token: FTS5TokenCallback
  let instance: FoldingTokenizerInstance
  let flags: Int32
  /// Documents get stems beside their tokens.
  let addsStems: Bool
  /// A query string marked as stems: every token marked.
  let marksTokens: Bool
  var folded: [UInt8] = []
  /// Where the run unicode61 is tokenizing starts in the whole text.
  var runOffset: Int32 = 0
  /// An ASCII token lower-cased.
  private var lowered = TokenBuffer(capacity: 64)
  /// The marked stem being made: U+0001, then the stem.
  private var stem = TokenBuffer(capacity: 128)
  private var stemCount = 0

  init(
    context: UnsafeMutableRawPointer?, token: @escaping FTS5TokenCallback,
    instance: FoldingTokenizerInstance, flags: Int32, marksTokens: Bool
  ) {
    self.context = context
    self.token = token
    self.instance = instance
    self.flags = flags
    addsStems = flags & docsh_fts5_tokenize_document != 0
    self.marksTokens = marksTokens
  }

  deinit {
    lowered.deallocate()
    stem.deallocate()
  }

  /// Tokenizes `text`: words of ASCII letters and digits here, the runs between ASCII
  /// separators that hold other bytes by unicode61.
  func tokenize(_ text: UnsafePointer<UInt8>, count: Int) -> Int32 {
    guard instance.tokenizesASCII else { return tokenizeRun(text, count: count, offset: 0) }
    let kinds = UnsafePointer(instance.byteKinds)
    var position = 0
    while position < count {
      guard kinds[Int(text[position])] != FoldingTokenizerInstance.separator else {
        position += 1
        continue
      }
      let start = position
      // The kinds of the word's bytes or-ed: their bits say which were met.
      var met: UInt8 = 0
      while position < count {
        let kind = kinds[Int(text[position])]
        if kind == FoldingTokenizerInstance.separator { break }
        met |= kind
        position += 1
      }
      let code =
        met & FoldingTokenizerInstance.nonASCII == FoldingTokenizerInstance.nonASCII
        ? tokenizeRun(text + start, count: position - start, offset: start)
        : emitASCII(
          text + start, count: position - start, start: start,
          lowering: met & FoldingTokenizerInstance.uppercase == FoldingTokenizerInstance.uppercase)
      guard code == SQLITE_OK else { return code }
    }
    return SQLITE_OK
  }

  /// Hands on an ASCII word, lower-cased as unicode61 does.
  private func emitASCII(
    _ word: UnsafePointer<UInt8>, count: Int, start: Int, lowering: Bool
  ) -> Int32 {
    var bytes = word
    if lowering {
      lowered.reserve(count)
      for index in 0..<count {
        let byte = word[index]
        lowered.bytes[index] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
      }
      bytes = UnsafePointer(lowered.bytes)
    }
    return emit(
      UnsafeRawBufferPointer(start: bytes, count: count), isASCII: true, start: Int32(start),
      end: Int32(start + count))
  }

  /// Has unicode61 tokenize `count` bytes at `text`, which start at `offset` in the whole
  /// text, and hands on its tokens folded.
  private func tokenizeRun(_ text: UnsafePointer<UInt8>, count: Int, offset: Int) -> Int32 {
    guard let tokenize = instance.wordMethods.xTokenize else { return SQLITE_ERROR }
    runOffset = Int32(offset)
    return UnsafeRawPointer(text).withMemoryRebound(to: CChar.self, capacity: count) { text in
      tokenize(
        instance.words, Unmanaged.passUnretained(self).toOpaque(), flags, text, Int32(count)
      ) { context, _, token, length, start, end in
        guard let context, let token else { return SQLITE_OK }
        let call = Unmanaged<TokenizeCall>.fromOpaque(context).takeUnretainedValue()
        return call.emitFolded(
          UnsafeRawBufferPointer(start: token, count: Int(length)), start: start, end: end)
      }
    }
  }

  /// Hands on one of unicode61's tokens, folded.
  private func emitFolded(_ bytes: UnsafeRawBufferPointer, start: Int32, end: Int32) -> Int32 {
    let start = start + runOffset
    let end = end + runOffset
    // The fast path: ASCII tokens are as unicode61 made them.
    if !bytes.contains(where: { $0 >= 0x80 }) {
      return emit(bytes, isASCII: true, start: start, end: end)
    }
    guard TextFolding.fold(bytes, into: &folded) else {
      return emit(bytes, isASCII: false, start: start, end: end)
    }
    guard !folded.isEmpty else { return SQLITE_OK }
    let isASCII = !folded.contains { $0 >= 0x80 }
    return folded.withUnsafeBytes { folded in
      emit(folded, isASCII: isASCII, start: start, end: end)
    }
  }

  /// Hands on one folded token (and its stem).
  private func emit(
    _ bytes: UnsafeRawBufferPointer, isASCII: Bool, start: Int32, end: Int32
  ) -> Int32 {
    if marksTokens {
      setStem(bytes)
      return sendStem(flags: 0, start: start, end: end)
    }
    let code = token(
      context, 0, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count),
      start, end)
    guard code == SQLITE_OK, addsStems, bytes.count >= 3, isASCII else { return code }
    switch instance.stems.find(bytes) {
    case .same:
      return SQLITE_OK
    case .stem(let found):
      setStem(found)
      return sendStem(flags: docsh_fts5_token_colocated, start: start, end: end)
    case .missing:
      break
    }
    stemCount = 0
    let stemmed = porterStem(bytes)
    guard stemmed == SQLITE_OK else { return stemmed }
    let found = UnsafeRawBufferPointer(start: stem.bytes + 1, count: max(stemCount - 1, 0))
    guard stemCount > 0,
      found.count != bytes.count || !found.elementsEqual(bytes)
    else {
      instance.stems.insert(bytes, stem: nil)
      return SQLITE_OK
    }
    instance.stems.insert(bytes, stem: found)
    return sendStem(flags: docsh_fts5_token_colocated, start: start, end: end)
  }

  /// Has FTS5's Porter stemmer stem `bytes` into the marked stem.
  private func porterStem(_ bytes: UnsafeRawBufferPointer) -> Int32 {
    instance.stemmerMethods.xTokenize?(
      instance.stemmer, Unmanaged.passUnretained(self).toOpaque(), docsh_fts5_tokenize_document,
      bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count)
    ) { context, _, token, length, _, _ in
      guard let context, let token else { return SQLITE_OK }
      let call = Unmanaged<TokenizeCall>.fromOpaque(context).takeUnretainedValue()
      call.setStem(UnsafeRawBufferPointer(start: token, count: Int(length)))
      return SQLITE_OK
    } ?? SQLITE_ERROR
  }

  /// Starts the marked stem with `bytes` after the marker.
  private func setStem(_ bytes: UnsafeRawBufferPointer) {
    stem.reserve(bytes.count + 1)
    stem.bytes[0] = stemMarker
    if let base = bytes.baseAddress, bytes.count > 0 {
      (stem.bytes + 1).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }
    stemCount = bytes.count + 1
  }

  private func sendStem(flags: Int32, start: Int32, end: Int32) -> Int32 {
    UnsafeRawPointer(stem.bytes).withMemoryRebound(to: CChar.self, capacity: stemCount) {
      bytes in
      token(context, flags, bytes, Int32(stemCount), start, end)
    }
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
      return tokenizeFolding(folding, context, flags, text, length, token)
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

/// `docsh`'s xTokenize.
private func tokenizeFolding(
  _ folding: FoldingTokenizerInstance, _ context: UnsafeMutableRawPointer?, _ flags: Int32,
  _ text: UnsafePointer<CChar>?, _ length: Int32, _ token: @escaping FTS5TokenCallback
) -> Int32 {
  guard let text, length > 0 else { return SQLITE_OK }
  var start = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
  var count = Int(length)
  var marksTokens = false
  if flags & docsh_fts5_tokenize_query != 0, start.pointee == stemMarker {
    marksTokens = true
    start += 1
    count -= 1
  }
  let call = TokenizeCall(
    context: context, token: token, instance: folding, flags: flags, marksTokens: marksTokens)
  return withExtendedLifetime(call) { call.tokenize(start, count: count) }
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
  var tokens: Int64 = 0
  _ = functions.xRowCount?(fts, &rows)
  _ = functions.xColumnTotalSize?(fts, -1, &tokens)
  let call = RankCall(
    plan: plan, rows: Int(rows), averageLength: Double(tokens) / Double(max(rows, 1)),
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
    let bound = call.score(length: 0)
    if bound < threshold { return .success(bound) }
  }
  let row = api.functions.xRowid?(fts) ?? 0
  if let last = call.lastRow, last.id == row { return .success(last.score) }
  var length: Int32 = 0
  _ = api.columnSize(fts, -1, &length)
  let score = call.score(length: Int(length))
  call.record(score)
  call.lastRow = (row, score)
  return .success(score)
}
