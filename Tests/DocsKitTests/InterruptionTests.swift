import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Asks long work to stop from the check after the first `allowed` checks of `work` (of any
/// work when `nil`) on, until ``stopsNothing`` is set; records every check.
final class StoppingInterruption: Interruption {
  private let allowed: Int
  private let work: InterruptibleWork?
  private var counted = 0
  /// Every check asked, in order.
  private(set) var checks: [InterruptibleWork] = []
  /// Set to let everything run again.
  var stopsNothing = false

  init(after allowed: Int, of work: InterruptibleWork? = nil) {
    self.allowed = allowed
    self.work = work
  }

  func isRequested(during asked: InterruptibleWork) -> Bool {
    checks.append(asked)
    guard !stopsNothing, work == nil || work == asked else { return false }
    counted += 1
    return counted > allowed
  }
}

@Suite struct InterruptionTests {
  /// A saved store of 3 × 4 documents, all holding "content", opened with its index and
  /// `interruption`, with one unsaved document that holds it too.
  private func openWithUnsavedChange(
    _ harness: Harness, interruption: StoppingInterruption
  ) throws -> (Context, IndexedStore) {
    let store = IndexedStore(
      path: harness.storePath, cacheFolder: harness.cachePath, progress: nil,
      interruption: interruption, fileSystem: SystemFileSystem(), sqlite: SystemSQLite(),
      now: Harness.lateClock)
    let context = try Context(
      store: store, clock: harness.clock.now, makeID: harness.ids.make,
      interruption: interruption)
    let category = try context.createCategory(named: "Unsaved")
    try context.createDocument(named: "Draft", in: category.id, content: "content unsaved")
    return (context, store)
  }

  @Test(arguments: [0, 1, 7])
  func aContentSearchStoppedAfterSomeChecksThrowsAndChangesNothing(allowed: Int) throws {
    let harness = try Harness()
    try harness.seed()
    let interruption = StoppingInterruption(after: allowed, of: .contentSearch)
    let (context, _) = try openWithUnsavedChange(harness, interruption: interruption)
    let before = try Answers(context)
    let changesBefore = try context.changes().count
    let undoBefore = context.undoActionName
    let error = #expect(throws: ContextError.self) {
      try context.searchContents(for: .text("content", ignoringCase: false))
    }
    #expect(isInterrupted(error))
    // It stopped at the check after the allowed ones, not later: one check per document.
    #expect(interruption.checks.filter { $0 == .contentSearch }.count == allowed + 1)
    #expect(try context.changes().count == changesBefore)
    #expect(context.undoActionName == undoBefore)
    #expect(try Answers(context) == before)
    interruption.stopsNothing = true
    let matches = try context.searchContents(for: .text("content", ignoringCase: false))
    #expect(matches.count == 13)
  }

  @Test func aFirstSearchStoppedWhileItFillsTheIndexLeavesTheIndexInUse() throws {
    let harness = try Harness()
    try harness.seed()
    let interruption = StoppingInterruption(after: 2, of: .fullTextIndex)
    let (context, store) = try openWithUnsavedChange(harness, interruption: interruption)
    let error = #expect(throws: ContextError.self) {
      try context.search(SearchQuery("content"), limit: nil)
    }
    #expect(isInterrupted(error))
    // Stopped while filling the index, at the third document, not by a later check.
    #expect(interruption.checks.filter { $0 == .fullTextIndex }.count == 3)
    #expect(!interruption.checks.contains(.rankedSearch))
    // Stopped on purpose: no damage, no warning, the index still in use.
    #expect(store.indexWarning == nil)
    #expect(store.indexState != .unavailable(reason: "interrupted"))
    interruption.stopsNothing = true
    let hits = try context.search(SearchQuery("content"), limit: nil)
    #expect(hits.count == 13)
    // This time the index was filled, whole: a later search asks it, not the contents.
    let checksBefore = interruption.checks.count
    _ = try context.search(SearchQuery("naïve"), limit: nil)
    #expect(!interruption.checks[checksBefore...].contains(.fullTextIndex))
    #expect(store.indexWarning == nil)
  }

  @Test func aLongIndexQueryIsStoppedBySQLiteAndLeavesTheIndexInUse() throws {
    let harness = try Harness()
    try harness.seed()
    let interruption = StoppingInterruption(after: 0, of: .rankedSearch)
    // SQLite asks at every step of its virtual machine: any query is "long".
    let store = IndexedStore(
      path: harness.storePath, cacheFolder: harness.cachePath, progress: nil,
      interruption: interruption, fileSystem: SystemFileSystem(), sqlite: SystemSQLite(),
      interruptionInterval: 1, now: Harness.lateClock)
    let context = try Context(
      store: store, clock: harness.clock.now, makeID: harness.ids.make,
      interruption: interruption)
    let error = #expect(throws: ContextError.self) {
      try context.search(SearchQuery("content"), limit: nil)
    }
    #expect(isInterrupted(error))
    // Stopped in the index's first query, before it went on to fill the full text.
    #expect(interruption.checks.first { $0 != .storeIndex } == .rankedSearch)
    #expect(!interruption.checks.contains(.fullTextIndex))
    #expect(store.indexWarning == nil)
    interruption.stopsNothing = true
    #expect(try context.search(SearchQuery("content"), limit: nil).count == 12)
    #expect(interruption.checks.contains(.fullTextIndex))
    #expect(store.indexWarning == nil)
  }

  @Test func aCategoryStoppedWhileItLoadsStaysUnloaded() throws {
    let harness = try Harness()
    try harness.seed()
    _ = try harness.openIndexed()  // the index, so that the next open leaves categories out
    let interruption = StoppingInterruption(after: 2, of: .loadingCategory)
    let (context, _) = try openWithUnsavedChange(harness, interruption: interruption)
    let category = try #require(context.category(named: "Cat 1"))
    #expect(!context.isLoaded(category.id))
    let listing = #expect(throws: ContextError.self) { try context.documents(in: category.id) }
    guard case .interrupted? = listing else {
      Issue.record("listing a category did not throw its interruption")
      return
    }
    #expect(!context.isLoaded(category.id))
    interruption.stopsNothing = true
    #expect(try context.documents(in: category.id).count == 4)
    #expect(context.isLoaded(category.id))
  }

  @Test func findStoppedThrowsTheInterruptionToTheCaller() throws {
    let harness = try Harness()
    try harness.seed()
    let interruption = StoppingInterruption(after: 0, of: .nameSearch)
    let (context, _) = try openWithUnsavedChange(harness, interruption: interruption)
    let found = #expect(throws: ContextError.self) { try context.documents(nameContaining: "Doc") }
    guard case .interrupted? = found else {
      Issue.record("find did not throw its interruption")
      return
    }
    interruption.stopsNothing = true
    #expect(try context.documents(nameContaining: "Doc").count == 12)
  }

  @Test func aCheckStoppedSaysItIsIncompleteAndLeavesTheIndexAlone() throws {
    let harness = try Harness()
    try harness.seed()
    let interruption = StoppingInterruption(after: 5, of: .check)
    let (context, store) = try openWithUnsavedChange(harness, interruption: interruption)
    let stateBefore = store.indexState
    let report = context.check()
    #expect(report.wasInterrupted)
    #expect(report.index == nil)
    #expect(interruption.checks.filter { $0 == .check }.count == 6)
    #expect(store.indexState == stateBefore)
    interruption.stopsNothing = true
    let whole = context.check()
    #expect(!whole.wasInterrupted && whole.isSound && whole.index == .trusted)
  }

  @Test func aRebuildStoppedOnOpenLeavesTheIndexForTheNextOpen() throws {
    let harness = try Harness()
    try harness.seed()
    // No index yet: opening reads the file and rebuilds it; stop that at its first check.
    let interruption = StoppingInterruption(after: 0, of: .storeIndex)
    let store = IndexedStore(
      path: harness.storePath, cacheFolder: harness.cachePath, progress: nil,
      interruption: interruption, fileSystem: SystemFileSystem(), sqlite: SystemSQLite(),
      now: Harness.lateClock)
    let context = try Context(store: store, clock: harness.clock.now, makeID: harness.ids.make)
    #expect(interruption.checks == [.storeIndex])
    #expect(store.indexWarning == nil)
    #expect(try Answers(context) == Answers(try harness.openContext()))
    let (_, next) = try harness.openIndexed(now: Harness.lateClock)
    guard case .rebuilt = next.indexState else {
      Issue.record("the next open found \(next.indexState), not an index to rebuild")
      return
    }
  }
}

/// Whether `error` is ``ContextError/interrupted``.
private func isInterrupted(_ error: ContextError?) -> Bool {
  if case .interrupted? = error { return true }
  return false
}
