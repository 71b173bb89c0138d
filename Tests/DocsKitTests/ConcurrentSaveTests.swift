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

  @Test func aSaveAfterAnotherSessionSavedIsRefusedAndWritesNothing() throws {
    let shared = try Shared()
    let path = shared.harness.storePath
    let a = try shared.harness.openContext()
    let b = try shared.harness.openContext()
    try a.setContent("from A", of: shared.plan.id)
    try a.save()
    let afterA = try bytes(at: path)
    let statusAfterA = try status(of: path)

    try b.createCategory(named: "From B")
    let error = #expect(throws: ContextError.self) { try b.save() }
    guard case .store(let storeError)? = error else {
      Issue.record("expected a store error, got \(String(describing: error))")
      return
    }
    #expect(storeError == .modifiedElsewhere(path, loadedGeneration: 1, currentGeneration: 2))
    #expect(
      storeError.description
        == "\(path): another session saved the store since it was loaded (loaded generation 1, now generation 2); nothing was written — use 'revert' to load theirs"
    )
    #expect(try bytes(at: path) == afterA)
    #expect(try status(of: path) == statusAfterA)
    #expect(try shared.harness.folder.temporaryEntries().isEmpty)
    #expect(b.hasChanges)
    #expect(b.generation == 1)
    // Refused again on a second try: nothing changed on either side.
    #expect(throws: ContextError.self) { try b.save() }

    // B reloads and can save on top of A's work.
    let reloaded = try shared.harness.openContext()
    #expect(try reloaded.content(of: shared.plan.id) == "from A")
    try reloaded.createCategory(named: "From B")
    try reloaded.save()
    #expect(reloaded.generation == 3)
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

  @Test func twoSessionsOnAMissingStoreCannotBothCreateIt() throws {
    let harness = try Harness()
    let a = try harness.openContext()
    let b = try harness.openContext()
    try a.createCategory(named: "A")
    try b.createCategory(named: "B")
    try a.save()
    let error = #expect(throws: ContextError.self) { try b.save() }
    guard case .store(.modifiedElsewhere(_, let loaded, let current))? = error else {
      Issue.record("expected modifiedElsewhere, got \(String(describing: error))")
      return
    }
    #expect(loaded == 0 && current == 1)
    #expect(try harness.openContext().categories().map(\.name.text) == ["A"])
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
    let error = #expect(throws: ContextError.self) { try b.save() }
    guard case .store(let storeError)? = error else { return }
    #expect(storeError == .modifiedElsewhere(shared.harness.storePath, loadedGeneration: 1, currentGeneration: 4))
  }

  @Test func aStoreRewrittenInPlaceByAnotherToolIsNotOverwritten() throws {
    let shared = try Shared()
    let context = try shared.harness.openContext()
    // Another tool rewrites the file in place, keeping the generation.
    var text = try String(contentsOfFile: shared.harness.storePath, encoding: .utf8)
    text = text.replacingOccurrences(of: "\"Plan\"", with: "\"Plan by hand\"")
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: shared.harness.storePath))
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
    let handEdited = try bytes(at: shared.harness.storePath)
    try context.createCategory(named: "Mine")
    let error = #expect(throws: ContextError.self) { try context.save() }
    guard case .store(.modifiedElsewhere(_, let loaded, let current))? = error else {
      Issue.record("expected modifiedElsewhere, got \(String(describing: error))")
      return
    }
    #expect(loaded == 1 && current == 1)
    #expect(try bytes(at: shared.harness.storePath) == handEdited)
  }

  @Test func aStoreDeletedSinceLoadingIsNotRecreatedSilently() throws {
    let shared = try Shared()
    let context = try shared.harness.openContext()
    try FileManager.default.removeItem(atPath: shared.harness.storePath)
    try context.createCategory(named: "Mine")
    let error = #expect(throws: ContextError.self) { try context.save() }
    guard case .store(let storeError)? = error else { return }
    #expect(storeError == .modifiedElsewhere(shared.harness.storePath, loadedGeneration: 1, currentGeneration: nil))
    #expect(storeError.description.contains("now a different file"))
    #expect(!FileManager.default.fileExists(atPath: shared.harness.storePath))
  }
}
