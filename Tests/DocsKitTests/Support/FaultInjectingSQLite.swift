import Synchronization

@testable import DocsKit

/// The real SQLite, except that while armed it counts every call and fails the one a rule
/// picks with a chosen result code (as ``FaultInjectingFileSystem`` does for system calls).
final class FaultInjectingSQLite: SQLiteLibrary {
  struct State {
    var failAt: Int?
    var code: Int32 = SQLiteError.ioError
    var armed = false
    var calls: [String] = []
    var injected: String?
  }

  let state = Mutex(State())
  private let real = SystemSQLite()

  /// Starts counting; call number `failAt` (from 1) fails with `code`.
  func arm(failAt: Int?, code: Int32 = SQLiteError.ioError) {
    state.withLock {
      $0 = State(failAt: failAt, code: code, armed: true)
    }
  }

  /// Stops counting and failing.
  func disarm() { state.withLock { $0.armed = false } }

  var calls: [String] { state.withLock { $0.calls } }
  var injected: String? { state.withLock { $0.injected } }

  private func check(_ operation: String) throws(SQLiteError) {
    let failure: Int32? = state.withLock { state in
      guard state.armed else { return nil }
      state.calls.append(operation)
      guard state.calls.count == state.failAt else { return nil }
      state.injected = operation
      return state.code
    }
    if let failure {
      throw SQLiteError(operation: operation, code: failure, message: "injected failure")
    }
  }

  func open(_ path: String, create: Bool) throws(SQLiteError) -> OpaquePointer {
    try check("open")
    return try real.open(path, create: create)
  }

  func close(_ connection: OpaquePointer) { real.close(connection) }

  func setProgressHandler(
    _ connection: OpaquePointer, every instructions: Int32, _ handler: SQLiteProgressHandler?
  ) {
    real.setProgressHandler(connection, every: instructions, handler)
  }

  func execute(_ connection: OpaquePointer, _ sql: String) throws(SQLiteError) {
    try check("execute " + sql.prefix(24))
    try real.execute(connection, sql)
  }

  func prepare(_ connection: OpaquePointer, _ sql: String) throws(SQLiteError) -> OpaquePointer {
    try check("prepare")
    return try real.prepare(connection, sql)
  }

  func bind(_ statement: OpaquePointer, _ index: Int32, _ value: SQLiteValue) throws(SQLiteError) {
    try check("bind")
    try real.bind(statement, index, value)
  }

  func bind(_ statement: OpaquePointer, _ index: Int32, utf8: UnsafeRawBufferPointer)
    throws(SQLiteError)
  {
    try check("bind")
    try real.bind(statement, index, utf8: utf8)
  }

  func step(_ statement: OpaquePointer) throws(SQLiteError) -> Bool {
    try check("step")
    return try real.step(statement)
  }

  func reset(_ statement: OpaquePointer) { real.reset(statement) }

  func finalize(_ statement: OpaquePointer) { real.finalize(statement) }

  func makeTokenizer(_ connection: OpaquePointer) throws(SQLiteError) -> FTSTokenizer {
    try check("tokenizer")
    return try real.makeTokenizer(connection)
  }
}
