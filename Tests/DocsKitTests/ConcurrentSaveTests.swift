import Foundation
import Testing

@testable import DocsKit

@Suite struct ConcurrentSaveTests {
  /// A store at generation 1 with Work {Plan "original"}.
  struct Shared {
    let harness: Harness
    let work: Category
    let plan: Document

    init(_ label: String = #function) throws {
      harness = try Harness(label)
      let setup = try harness.openContext()
      work = try setup.createCategory(named: "Work")
      plan = try setup.createDocument(named: "Plan", in: work.id, content: "original")
      try setup.save()
    }
  }

  @Test func theStoreRefusesToWriteOverAnotherSessionsSave() throws {
    let shared = try Shared()
    let path = shared.harness.storePath
    let a = try shared.harness.openContext()
    let b = try shared.harness.openContext()
    try a.setContent("from A", of: shared.plan.id)
    try a.save()
    let afterA = try bytes(at: path)
    let statusAfterA = try status(of: path)

    // The store itself never writes over it: the context merges instead (MergeTests).
    try b.createCategory(named: "From B")
    #expect(throws: StoreError.modifiedElsewhere(path, loadedGeneration: 1, currentGeneration: 2)) {
      try b.store.save(b.graphToSave())
    }
    #expect(
      StoreError.modifiedElsewhere(path, loadedGeneration: 1, currentGeneration: 2).description
        == "\(path): another session saved the store since it was loaded (loaded generation 1, now generation 2); nothing was written — use 'revert' to load theirs"
    )
    #expect(try bytes(at: path) == afterA)
    #expect(try status(of: path) == statusAfterA)
    #expect(try shared.harness.folder.temporaryEntries().isEmpty)
    #expect(try b.hasChanges)
    #expect(b.generation == 1)

    // The context's save merges B's change onto A's work.
    try b.save()
    #expect(b.generation == 3)
    let final = try shared.harness.openContext()
    #expect(final.category(named: "from b") != nil)
    #expect(try final.content(of: shared.plan.id) == "from A")
  }

  @Test func theLaterSessionSeesWhatItLoadedUntilItReloads() throws {
    let shared = try Shared()
    let a = try shared.harness.openContext()
    let b = try shared.harness.openContext()
    try a.setContent("from A", of: shared.plan.id)
    try a.deleteCategory(shared.work.id)
    try a.save()
    // B's contents are faults into the file it loaded, which stays open after A's rename.
    #expect(try b.content(of: shared.plan.id) == "original")
    #expect(try b.searchContents(for: .text("orig", ignoringCase: false)).count == 1)
  }

  @Test func twoSessionsOnAMissingStoreBothLand() throws {
    let harness = try Harness()
    let a = try harness.openContext()
    let b = try harness.openContext()
    try a.createCategory(named: "A")
    try b.createCategory(named: "B")
    try a.save()
    try b.save()
    #expect(try harness.openContext().categories().map(\.name.text) == ["A", "B"])
  }

  @Test func aSessionWithoutChangesIsNotBotheredByAnotherSave() throws {
    let shared = try Shared()
    let a = try shared.harness.openContext()
    let b = try shared.harness.openContext()
    try a.createCategory(named: "New")
    try a.save()
    #expect(throws: Never.self) { try b.save() }  // nothing to write, nothing refused
    #expect(try shared.harness.openContext().generation == 2)
  }

  @Test func reportsTheGenerationOnDiskAfterSeveralSaves() throws {
    let shared = try Shared()
    let a = try shared.harness.openContext()
    let b = try shared.harness.openContext()
    for round in 0..<3 {
      try a.createCategory(named: "A\(round)")
      try a.save()
    }
    try b.createCategory(named: "B")
    #expect(
      throws: StoreError.modifiedElsewhere(
        shared.harness.storePath, loadedGeneration: 1, currentGeneration: 4)
    ) {
      try b.store.save(b.graphToSave())
    }
  }

  @Test func aStoreRewrittenInPlaceByAnotherToolIsMergedNotOverwritten() throws {
    let shared = try Shared()
    let context = try shared.harness.openContext()
    // Another tool rewrites the file in place, keeping the generation.
    var text = try String(contentsOfFile: shared.harness.storePath, encoding: .utf8)
    text = text.replacingOccurrences(of: "\"Plan\"", with: "\"Plan by hand\"")
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: shared.harness.storePath))
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
    try context.createCategory(named: "Mine")
    try context.save()
    let final = try shared.harness.openContext()
    #expect(final.category(named: "Mine") != nil)
    #expect(try final.document(named: "Plan by hand", in: shared.work.id) != nil)
  }

  @Test func aStoreDeletedSinceLoadingIsNotRecreatedSilently() throws {
    let shared = try Shared()
    let context = try shared.harness.openContext()
    try FileManager.default.removeItem(atPath: shared.harness.storePath)
    try context.createCategory(named: "Mine")
    let error = #expect(throws: ContextError.self) { try context.save() }
    guard case .store(let storeError)? = error else { return }
    #expect(storeError == .deletedElsewhere(shared.harness.storePath))
    #expect(storeError.description.contains("deleted or moved"))
    #expect(!FileManager.default.fileExists(atPath: shared.harness.storePath))
    #expect(try context.hasChanges)
  }
}
