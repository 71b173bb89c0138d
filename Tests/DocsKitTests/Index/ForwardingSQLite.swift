@testable import DocsKit

/// A fake SQLite that is the real one but for what it declares itself: every call it does not
/// implement goes to `real`.
protocol ForwardingSQLite: SQLiteLibrary {
  var real: SystemSQLite { get }
}

extension ForwardingSQLite {
  func open(_ path: String, create: Bool) throws(SQLiteError) -> OpaquePointer {
    try real.open(path, create: create)
  }
  func close(_ connection: OpaquePointer) { real.close(connection) }
  func setProgressHandler(
    _ connection: OpaquePointer, every instructions: Int32, _ handler: SQLiteProgressHandler?
  ) {
    real.setProgressHandler(connection, every: instructions, handler)
  }
  func execute(_ connection: OpaquePointer, _ sql: String) throws(SQLiteError) {
    try real.execute(connection, sql)
  }
  func prepare(_ connection: OpaquePointer, _ sql: String) throws(SQLiteError) -> OpaquePointer {
    try real.prepare(connection, sql)
  }
  func bind(_ statement: OpaquePointer, _ index: Int32, _ value: SQLiteValue) throws(SQLiteError) {
    try real.bind(statement, index, value)
  }
  func bind(_ statement: OpaquePointer, _ index: Int32, utf8: UnsafeRawBufferPointer)
    throws(SQLiteError)
  {
    try real.bind(statement, index, utf8: utf8)
  }
  func step(_ statement: OpaquePointer) throws(SQLiteError) -> Bool { try real.step(statement) }
  func reset(_ statement: OpaquePointer) { real.reset(statement) }
  func finalize(_ statement: OpaquePointer) { real.finalize(statement) }
  func makeTokenizer(_ connection: OpaquePointer) throws(SQLiteError) -> FTSTokenizer {
    try real.makeTokenizer(connection)
  }
}
