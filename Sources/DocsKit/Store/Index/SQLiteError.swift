/// A failed SQLite call, as a person needs it to act: which call, on which statement, with
/// SQLite's extended result code and message (GRDB's `DatabaseError` carries the same).
struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The call ("open", "prepare", "bind", "step" …).
  var operation: String
  /// The extended result code (`SQLITE_BUSY_SNAPSHOT`, `SQLITE_CONSTRAINT_UNIQUE` …); its
  /// low byte is the primary code.
  var extendedCode: Int32
  /// SQLite's text for it.
  var message: String
  /// The statement that failed, when the failure came from one.
  var sql: String?

  /// A failure of `operation` with result `code` (extended or primary: a primary code is its
  /// own extended code), on the statement `sql` when there is one.
  init(operation: String, code: Int32, message: String, sql: String? = nil) {
    self.operation = operation
    self.extendedCode = code
    self.message = message
    self.sql = sql
  }

  /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT` …).
  var code: Int32 { extendedCode & 0xFF }

  /// Whether the database file is damaged or not a database at all.
  var isDamage: Bool { code == SQLiteError.corrupt || code == SQLiteError.notADatabase }

  /// Whether another connection holds a lock this one needed.
  var isBusy: Bool { code == SQLiteError.busy || code == SQLiteError.locked }

  /// Whether the work was stopped on purpose (``interrupted``): no sign of any damage.
  var isInterruption: Bool { code == SQLiteError.interrupt }

  /// Whether the failure is a mistake in docsh's own use of SQLite, not a state of the
  /// database: a value missing for a parameter, a call on a closed connection or out of
  /// order, a row breaking a constraint the index's own writes must keep.
  var isProgrammingError: Bool {
    code == SQLiteError.range || code == SQLiteError.misuse || code == SQLiteError.constraint
  }

  /// Work on the index stopped because the person at the terminal asked (Ctrl-C); thrown
  /// by docsh itself between statements, never by SQLite, and rolled back like any failure.
  static let interrupted = SQLiteError(
    operation: "interrupt", code: SQLiteError.interrupt, message: "interrupted")

  /// This failure, naming `sql` as the statement it came from (unless it already names one).
  func on(_ sql: String) -> SQLiteError {
    var named = self
    if named.sql == nil { named.sql = sql }
    return named
  }

  /// "step: database is locked (code 517, in: UPDATE documents SET …)".
  var description: String {
    var text = "\(operation): \(message) (code \(extendedCode)"
    if let sql {
      let statement = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
      text += ", in: " + (statement.count > 120 ? statement.prefix(119) + "…" : statement)
    }
    return text + ")"
  }
}
