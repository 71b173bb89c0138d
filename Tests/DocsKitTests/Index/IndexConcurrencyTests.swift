import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Several sessions on one index at once, each step of the race forced in one process:
/// the schema is created once, a save's update is applied once, and no session removes the
/// files another one has open.
@Suite struct IndexConcurrencyTests {
  @Test func aSchemaAnotherOpenCreatedFirstIsFoundNotCreatedAgain() throws {
    let harness = try Harness()
    try FileManager.default.createDirectory(
      atPath: harness.cachePath, withIntermediateDirectories: true)
    let path = harness.cachePath + "/race.index"
    // Between this open's first look (no schema) and its transaction, another one opens
    // the new index and creates the schema.
    var other: StoreIndex?
    var created: UInt64?
    let sqlite = HookedSQLite()
    sqlite.beforeExecute = { sql in
      guard sql == "BEGIN IMMEDIATE", other == nil else { return }
      other = try? StoreIndex.open(
        at: path, library: SystemSQLite(), fileSystem: SystemFileSystem(),
        busyTimeoutMilliseconds: 200, now: IndexedStore.realtimeNanoseconds)
      created = try? status(of: path).inode
    }
    let index = try StoreIndex.open(
      at: path, library: sqlite, fileSystem: SystemFileSystem(), busyTimeoutMilliseconds: 200,
      now: IndexedStore.realtimeNanoseconds)
    let first = try #require(other)
    #expect(!sqlite.executed.contains { $0.hasPrefix("CREATE TABLE") })
    // Both use the one file: neither started it again.
    #expect(try status(of: path).inode == #require(created))
    #expect(try index.record() == nil)
    #expect(try first.record() == nil)
  }

  @Test func aSaveWhoseRecordAnotherSessionAppliedMeanwhileDoesNotApplyItAgain() throws {
    let harness = try Harness()
    try harness.seed()
    _ = try harness.openIndexed(now: Harness.lateClock)
    let sqlite = HookedSQLite()
    let (context, store) = try harness.openIndexed(sqlite: sqlite, now: Harness.lateClock)
    #expect(store.indexState == .trusted)
    let category = try #require(context.category(named: "Cat 1"))
    try context.createDocument(named: "Late", in: category.id, content: "written late")
    // The save's update starts after its record is in the log: another session opening
    // the store then finds a record the index has not seen, and applies it itself.
    var rebuiltBy: IndexedStore?
    sqlite.beforeExecute = { sql in
      guard sql == "BEGIN IMMEDIATE", rebuiltBy == nil else { return }
      rebuiltBy = try? harness.openIndexed(now: Harness.lateClock).1
    }
    try context.save()
    let other = try #require(rebuiltBy)
    #expect(other.indexState == .trusted)
    #expect(other.logSize.log == store.logSize.log)
    #expect(store.indexWarning == nil)
    #expect(other.indexWarning == nil)
    // The saving session goes on answering right, from the index the other one rebuilt.
    #expect(try Answers(context) == Answers(harness.openContext()))
    #expect(store.indexState == .trusted)
    let (reopened, reopenedStore) = try harness.openIndexed(now: Harness.lateClock)
    #expect(reopenedStore.indexState == .trusted)
    #expect(try Answers(reopened) == Answers(harness.openContext()))
    #expect(reopened.check().index == .trusted)
  }

  @Test func aRebuildFromAFileAnotherSessionHasSavedOverIsSkipped() throws {
    let harness = try Harness()
    try harness.seed()
    _ = try harness.openIndexed(now: Harness.lateClock)
    // The store file is written anew without its index: the next open rebuilds it.
    let plain = try harness.openContext()
    try plain.createDocument(
      named: "Plain", in: try #require(plain.category(named: "Cat 0")).id, content: "plain")
    try plain.save()
    try plain.foldSaveLog()
    // While this session is about to rebuild from the file it read, another one opens
    // (rebuilding it first), adds a document and saves, bringing the index in step.
    let sqlite = HookedSQLite()
    var saved = false
    sqlite.beforeExecute = { sql in
      guard sql == "BEGIN IMMEDIATE", !saved else { return }
      saved = true
      guard let (other, _) = try? harness.openIndexed(now: Harness.lateClock),
        let category = other.category(named: "Cat 1")
      else { return }
      _ = try? other.createDocument(named: "Newer", in: category.id, content: "newer")
      _ = try? other.save()
    }
    let (stale, staleStore) = try harness.openIndexed(sqlite: sqlite, now: Harness.lateClock)
    #expect(saved)
    #expect(staleStore.indexWarning == nil)
    // It answers from the file it read, with the other session's save not in it.
    let names = try stale.categories().flatMap { try stale.documents(in: $0.id).map(\.name.text) }
    #expect(names.contains("Plain"))
    #expect(!names.contains("Newer"))
    // The index still describes the newer file: the next session trusts it.
    let (next, nextStore) = try harness.openIndexed(now: Harness.lateClock)
    #expect(nextStore.indexState == .trusted)
    #expect(try Answers(next) == Answers(harness.openContext()))
  }

  @Test func anUpdatePlannedAgainstARecordTheIndexNoLongerHoldsIsNotApplied() throws {
    let harness = try Harness()
    try harness.seed(categories: 1, documents: 2)
    let (_, store) = try harness.openIndexed(now: Harness.lateClock)
    _ = store
    let path = try #require(store.indexPath)
    let index = try StoreIndex.open(
      at: path, library: SystemSQLite(), fileSystem: SystemFileSystem(),
      busyTimeoutMilliseconds: 200, now: Harness.lateClock)
    let recorded = try #require(try index.record())
    let plan = try #require(
      try index.planUpdate(for: [], identity: recorded.identity) { _ throws(StoreError) in "" })
    // Another process records the next generation before this update runs.
    var next = recorded.identity
    next.generation += 1
    try sqlite(path, "UPDATE identity SET generation = \(next.generation)")
    var later = next
    later.generation += 1
    let applied = try index.apply(
      plan, saved: [], receipt: SaveReceipt(generation: later.generation, locations: [:]),
      identity: later
    ) { _ throws(StoreError) in "" }
    #expect(!applied)
    #expect(try index.record()?.identity == next)
    #expect(try index.categories().count == 1)
  }

  @Test func aDamagedIndexIsNotRemovedWhileAnotherSessionHasItOpen() throws {
    let harness = try Harness()
    try harness.seed()
    _ = try harness.openIndexed(now: Harness.lateClock)
    let (holder, holderStore) = try harness.openIndexed(now: Harness.lateClock)
    #expect(holderStore.indexState == .trusted)
    let path = try #require(holderStore.indexPath)
    let before = try status(of: path).inode

    // Another session finds it damaged (injected) and stops using it for its run.
    let sqlite = FaultInjectingSQLite()
    let (failing, failingStore) = try harness.openIndexed(sqlite: sqlite, now: Harness.lateClock)
    sqlite.arm(failAt: 1, code: SQLiteError.corrupt)
    let category = try #require(failing.category(named: "Cat 0"))
    #expect(try failing.documents(in: category.id).count == 4)
    sqlite.disarm()
    #expect(sqlite.injected != nil)
    #expect(failingStore.indexWarning != nil)
    // The files the holder has open are still the ones at the path.
    #expect(try status(of: path).inode == before)
    #expect(try Answers(holder) == Answers(harness.openContext()))
    #expect(holderStore.indexWarning == nil)
    #expect(holderStore.indexState == .trusted)
  }

  @Test func aDamagedIndexNobodyElseHasOpenIsStartedAgain() throws {
    let harness = try Harness()
    try harness.seed()
    _ = try harness.openIndexed(now: Harness.lateClock)
    let path = try #require(
      IndexedStore(path: harness.storePath, cacheFolder: harness.cachePath).indexPath)
    let sqlite = FaultInjectingSQLite()
    let (failing, failingStore) = try harness.openIndexed(sqlite: sqlite, now: Harness.lateClock)
    sqlite.arm(failAt: 1, code: SQLiteError.corrupt)
    let category = try #require(failing.category(named: "Cat 0"))
    #expect(try failing.documents(in: category.id).count == 4)
    sqlite.disarm()
    #expect(failingStore.indexWarning != nil)
    #expect(!FileManager.default.fileExists(atPath: path))
    let (_, reopened) = try harness.openIndexed(now: Harness.lateClock)
    #expect(reopened.indexState == .rebuilt(reason: "there was none"))
  }
}

/// The real SQLite, calling `beforeExecute` with the SQL of every `execute` first and
/// recording it: a test makes another session act at a chosen step.
final class HookedSQLite: ForwardingSQLite {
  var beforeExecute: (String) -> Void = { _ in }
  private(set) var executed: [String] = []
  let real = SystemSQLite()

  func execute(_ connection: OpaquePointer, _ sql: String) throws(SQLiteError) {
    beforeExecute(sql)
    executed.append(sql.trimmingCharacters(in: .whitespacesAndNewlines))
    try real.execute(connection, sql)
  }
}
