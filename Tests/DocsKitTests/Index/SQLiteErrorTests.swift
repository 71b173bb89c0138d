import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// SQLite failures a person can act on: the statement and the extended result code travel
/// with the error, a statement never runs with a value missing, and a failed reset of
/// `synchronous` after a rebuild is reported, not dropped.
@Suite struct SQLiteErrorTests {
  private func memoryDatabase() throws -> SQLiteDatabase {
    let database = try SQLiteDatabase(path: ":memory:", create: true, library: SystemSQLite())
    try database.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
    return database
  }

  @Test func aConstraintFailureCarriesItsStatementAndExtendedCode() throws {
    let database = try memoryDatabase()
    try database.run("INSERT INTO t(name) VALUES(?)", [.text("a")])
    do {
      try database.run("INSERT INTO t(name) VALUES(?)", [.text("a")])
      Issue.record("a duplicate name was inserted")
    } catch {
      #expect(error.code == SQLiteError.constraint)
      #expect(error.extendedCode == 2067, "SQLITE_CONSTRAINT_UNIQUE, not only the primary code")
      #expect(error.sql == "INSERT INTO t(name) VALUES(?)")
      #expect(error.operation == "step")
      #expect(error.description.contains("INSERT INTO t(name) VALUES(?)"))
      #expect(error.description.contains("2067"))
      #expect(error.isProgrammingError)
    }
  }

  @Test func aLockedDatabaseSaysWhichStatementWaitedForTheLock() throws {
    let folder = try TemporaryFolder("sqliteerror")
    let path = folder.url.path + "/locked.db"
    let holder = try SQLiteDatabase(path: path, create: true, library: SystemSQLite())
    try holder.execute("CREATE TABLE t(x)")
    try holder.execute("BEGIN IMMEDIATE")
    let other = try SQLiteDatabase(path: path, create: false, library: SystemSQLite())
    try other.execute("PRAGMA busy_timeout = 0")
    do {
      try other.run("INSERT INTO t(x) VALUES(?)", [.integer(1)])
      Issue.record("wrote past another connection's lock")
    } catch {
      #expect(error.isBusy)
      #expect(error.sql == "INSERT INTO t(x) VALUES(?)")
      #expect(error.description.contains("INSERT INTO t(x)"), "\(error)")
    }
    try holder.execute("ROLLBACK")
  }

  @Test func aPreparedStatementThatFailsNamesItsSQL() throws {
    let database = try memoryDatabase()
    do {
      try database.run("SELECT nothing FROM nowhere")
      Issue.record("a query of a missing table ran")
    } catch {
      #expect(error.operation == "prepare")
      #expect(error.sql == "SELECT nothing FROM nowhere")
    }
  }

  @Test(arguments: [[SQLiteValue.integer(1)], [.integer(1), .text("b"), .text("c")]])
  func valuesNotAsManyAsTheParametersThrowAndBindNothing(values: [SQLiteValue]) throws {
    let database = try memoryDatabase()
    do {
      try database.run("INSERT INTO t(id, name) VALUES(?, ?)", values)
      Issue.record("\(values.count) values for 2 parameters ran")
    } catch {
      #expect(error.code == SQLiteError.range)
      #expect(error.sql == "INSERT INTO t(id, name) VALUES(?, ?)")
      #expect(error.message.contains("2 parameters"))
    }
    #expect(try database.integer("SELECT count(*) FROM t") == 0)
  }

  @Test func numberedParametersCountByTheLargestNumber() throws {
    let database = try memoryDatabase()
    try database.run("INSERT INTO t(id, name) VALUES(?2, ?1)", [.text("a"), .integer(9)])
    #expect(try database.integer("SELECT id FROM t WHERE name = 'a'") == 9)
  }

  @Test func aFailedResetOfSynchronousAfterItsWorkIsThrown() throws {
    let sqlite = ResetFailingSQLite()
    let database = try SQLiteDatabase(path: ":memory:", create: true, library: sqlite)
    sqlite.failsReset = true
    do {
      try database.withSynchronousOff { () throws(SQLiteError) in
        try database.execute("CREATE TABLE t(x)")
      }
      Issue.record("synchronous was left OFF without a word")
    } catch {
      #expect(error.sql == "PRAGMA synchronous = NORMAL")
    }
  }

  @Test func aRebuildWhoseSynchronousResetFailsTakesTheIndexOutOfUse() throws {
    let harness = try Harness()
    try harness.seed()
    let sqlite = ResetFailingSQLite()
    sqlite.failsReset = true
    let (context, store) = try harness.openIndexed(sqlite: sqlite, now: Harness.lateClock)
    guard case .indexFailed(_, let reason) = store.indexWarning else {
      Issue.record("no warning: \(String(describing: store.indexWarning)), \(store.indexState)")
      return
    }
    #expect(reason.contains("injected failure"), "\(reason)")
    #expect(reason.contains("PRAGMA synchronous = NORMAL"), "the warning names the statement")
    #expect(store.indexState == .unavailable(reason: "injected failure"))
    #expect(try Answers(context) == Answers(harness.openContext()))
    // The rebuild itself was committed before the reset failed: the next open trusts it.
    let (_, reopened) = try harness.openIndexed(now: Harness.lateClock)
    #expect(reopened.indexState == .trusted)
  }
}

@Suite struct IndexColumnTests {
  /// The columns of `table` as the schema creates them, in order.
  private func schemaColumns(_ table: String) throws -> [String] {
    let database = try SQLiteDatabase(path: ":memory:", create: true, library: SystemSQLite())
    try database.execute(StoreIndex.schema)
    var names: [String] = []
    try database.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) {
      row throws(SQLiteError) in names.append(row.text("name"))
    }
    return names
  }

  @Test func theDeclaredDocumentColumnsAreTheSchemas() throws {
    #expect(try schemaColumns("documents") == DocumentColumn.allCases.map(\.rawValue))
  }

  @Test func theDeclaredCategoryColumnsAreTheSchemas() throws {
    #expect(try schemaColumns("categories") == CategoryColumn.allCases.map(\.rawValue))
  }

  @Test func theStatementsMadeFromTheColumnsBindEveryValue() throws {
    let database = try SQLiteDatabase(path: ":memory:", create: true, library: SystemSQLite())
    try database.execute(StoreIndex.schema)
    let id = ObjectID(high: 1, low: 2)
    let name = try Name("Doc")
    let document = StoredDocument(
      id: id, name: name, categoryID: ObjectID(high: 3, low: 4), size: 5,
      modified: Timestamp(millisecondsSince1970: 6),
      contentLocation: StoredLocation(offset: 120, length: 7),
      location: StoredLocation(offset: 100, length: 40))
    try database.run(
      StoreIndex.insertDocumentSQL,
      StoreIndex.documentValues(document, category: 1, position: 0, base: 100))
    var moved = document
    moved.size = 8
    try database.run(
      StoreIndex.updateDocumentSQL,
      StoreIndex.documentValues(
        moved, category: 1, position: 0, base: 100, columns: DocumentColumn.rewritten)
        + [.integer(database.lastInsertedRowID)])
    var read: StoredDocument?
    try database.query(
      "SELECT \(DocumentColumn.selecting(DocumentColumn.read, from: "d")) FROM documents d"
    ) { row throws(SQLiteError) in
      read = StoreIndex.document(row, category: document.categoryID, base: 100)
    }
    let found = try #require(read, "the row written is not read back as a document")
    #expect(found.id == id && found.name.text == "Doc" && found.size == 8)
    #expect(found.modified == moved.modified && found.location == moved.location)
    #expect(found.contentLocation == moved.contentLocation)
  }
}

@Suite struct StoreReadFailureTests {
  @Test func aMalformedStoreIsPlacedByThePositionItIsGiven() {
    let failure = StoreReadFailure(kind: .malformed, offset: 12, reason: "a comma is missing")
    var asked: Int?
    let error = failure.storeError(in: "s.json") { offset in
      asked = offset
      return (line: 2, column: 3)
    }
    #expect(asked == 12)
    #expect(error == .malformed("s.json", line: 2, column: 3, reason: "a comma is missing"))
  }

  @Test func aNewerVersionNeedsNoPosition() {
    let failure = StoreReadFailure(kind: .newerVersion(9), offset: 0, reason: "")
    let error = failure.storeError(in: "s.json") { _ in
      Issue.record("asked for a position")
      return (1, 1)
    }
    #expect(error == .newerVersion("s.json", version: 9, supported: StoreReader.supportedVersion))
  }
}

/// The real SQLite, except that while `failsReset`, setting `synchronous` back to NORMAL
/// after it was set OFF fails (as a full or failing disk can make it).
final class ResetFailingSQLite: ForwardingSQLite {
  var failsReset = false
  private var wasSetOff = false
  let real = SystemSQLite()

  func execute(_ connection: OpaquePointer, _ sql: String) throws(SQLiteError) {
    if sql == "PRAGMA synchronous = OFF" { wasSetOff = true }
    if failsReset, wasSetOff, sql == "PRAGMA synchronous = NORMAL" {
      wasSetOff = false
      throw SQLiteError(
        operation: "execute", code: SQLiteError.ioError, message: "injected failure")
    }
    try real.execute(connection, sql)
  }
}
