import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// The difference between the graph and what was saved is made once per change of the graph,
/// and a saved content that cannot be read to compare is an error, never a guess.
@Suite struct ChangeTrackerTests {
  /// A context on a memory store holding one document, "Plan" in "Work", whose saved
  /// content `saved` is a fault the store reads (and counts) on demand.
  struct Loaded {
    let store = MemoryStore()
    let context: Context
    let plan: ObjectID

    init(saved: String = "plan text") throws {
      let ids = SequentialIDs()
      let work = ids.make()
      plan = ids.make()
      let category = StoredCategory(id: work, name: try Name("Work"))
      let location = StoredLocation(offset: 100, length: saved.utf8.count)
      store.loaded = LoadedGraph(
        generation: 1, categories: [category],
        documents: [
          StoredDocument(
            id: plan, name: try Name("Plan"), categoryID: work, size: saved.utf8.count,
            modified: Timestamp(millisecondsSince1970: 0), contentLocation: location,
            location: StoredLocation(offset: 50, length: 100))
        ])
      store.contents[100] = saved
      context = try Context(store: store, clock: TestClock().now, makeID: ids.make)
    }
  }

  @Test func aSaveReadsTheSavedContentOnceToCompareItWithASameSizedText() throws {
    let loaded = try Loaded()
    try loaded.context.setContent("plan TEXT", of: loaded.plan)
    let readsBefore = loaded.store.contentReads
    #expect(try loaded.context.hasChanges)
    #expect(try loaded.context.changes().updatedDocuments.map(\.properties) == [[.content]])
    #expect(try loaded.context.hasChanges)
    #expect(loaded.store.contentReads == readsBefore + 1)
    // The save asks again (its checks and its delta) and compares nothing anew: its one
    // read is the saved state kept for undo, which a whole write must hold in memory.
    try loaded.context.save()
    #expect(loaded.store.contentReads == readsBefore + 2)
    #expect(loaded.store.saves.count == 1)
  }

  @Test func aTextOfAnotherSizeIsAChangeWithoutReadingTheSavedOne() throws {
    let loaded = try Loaded()
    try loaded.context.setContent("a longer plan text", of: loaded.plan)
    let readsBefore = loaded.store.contentReads
    #expect(try loaded.context.changes().updatedDocuments.map(\.properties) == [[.content]])
    #expect(try loaded.context.hasChanges)
    #expect(loaded.store.contentReads == readsBefore)
  }

  @Test func writingBackTheSavedTextAfterAnotherIsNoChange() throws {
    let loaded = try Loaded()
    try loaded.context.setContent("plan TEXT", of: loaded.plan)
    #expect(try loaded.context.hasChanges)
    try loaded.context.setContent("plan text", of: loaded.plan)
    #expect(try loaded.context.changes().updatedDocuments.isEmpty)
  }

  @Test func aSavedContentThatCannotBeReadToCompareIsAnErrorNotAChange() throws {
    let loaded = try Loaded()
    try loaded.context.setContent("plan TEXT", of: loaded.plan)
    loaded.store.readsFail = true
    let error = #expect(throws: ContextError.self) { try loaded.context.hasChanges }
    guard case .store(.system(_, operation: "read", errno: EIO))? = error else {
      Issue.record("expected the store's read failure, got \(String(describing: error))")
      return
    }
    #expect(throws: ContextError.self) { try loaded.context.changes() }
    #expect(throws: ContextError.self) { try loaded.context.save() }
    #expect(loaded.store.saves.isEmpty)
    #expect(!loaded.context.surelyHasNoChanges)
    // Readable again, the same question has its answer: the failure was not kept.
    loaded.store.readsFail = false
    #expect(try loaded.context.hasChanges)
  }

  @Test func undoAndRedoChangeTheAnswer() throws {
    let loaded = try Loaded()
    try loaded.context.setContent("another text", of: loaded.plan)
    #expect(try loaded.context.hasChanges)
    _ = try loaded.context.undo()
    #expect(try !loaded.context.hasChanges)
    _ = try loaded.context.redo()
    #expect(try loaded.context.changes().updatedDocuments.count == 1)
  }
}

/// A save written whole makes its delta only for an observer that follows it up.
@Suite struct WholeSaveDeltaTests {
  final class Recorder: SaveObserver {
    let followsUpSaves: Bool
    private(set) var deltas: [StoreDelta] = []
    init(following: Bool) { followsUpSaves = following }
    func storeDidSave(_ delta: StoreDelta, origin: SaveOrigin, lock: LockedStore) -> String? {
      deltas.append(delta)
      return nil
    }
  }

  private func save(following: Bool) throws -> (Recorder, MemoryStore) {
    let store = MemoryStore()
    let recorder = Recorder(following: following)
    let context = try Context(
      store: store, clock: TestClock().now, makeID: SequentialIDs().make, observer: recorder)
    let work = try context.createCategory(named: "Work")
    try context.createDocument(named: "Plan", in: work.id, content: "plan text")
    try context.save()
    return (recorder, store)
  }

  @Test func anObserverThatFollowsUpGetsTheDeltaOfAWholeWrite() throws {
    let (recorder, store) = try save(following: true)
    #expect(store.saves.count == 1)
    #expect(recorder.deltas.map { $0.documents.map(\.after?.name.text) } == [["Plan"]])
    #expect(recorder.deltas.map(\.generation) == [1])
  }

  @Test func anObserverThatDoesNotIsNotToldAndTheSaveStands() throws {
    let (recorder, store) = try save(following: false)
    #expect(store.saves.count == 1)
    #expect(recorder.deltas.isEmpty)
  }
}
