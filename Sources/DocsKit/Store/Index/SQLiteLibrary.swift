// The seam every SQLite call of the index goes through (as `FileSystem` is for system calls),
// so that a test can fail any of them; `SystemSQLite`, in SQLite.swift, is the real one.

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
