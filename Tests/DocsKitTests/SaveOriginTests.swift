import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Every save takes one path to the observers: the user's and a sync's incoming one, each
/// told with its origin and the lock of the store it was written to.
@Suite struct SaveOriginTests {
  /// Records what it hears; follows up no save of the user's (so a whole write of one makes
  /// no delta for it).
  final class Recorder: SaveObserver {
    private(set) var heard: [(origin: SaveOrigin, delta: StoreDelta, store: ObjectIdentifier)] =
      []
    var followsUpSaves: Bool { false }

    func storeDidSave(_ delta: StoreDelta, origin: SaveOrigin, lock: LockedStore) -> String? {
      heard.append((origin, delta, ObjectIdentifier(lock.store)))
      return nil
    }
  }

  @Test func aSyncsSaveReachesTheObserverAsTheSyncsWithItsDeltaAndTheLock() throws {
    let store = MemoryStore()
    let recorder = Recorder()
    let context = try Context(
      store: store, clock: TestClock().now, makeID: SequentialIDs().make, observer: recorder)
    let work = try context.createCategory(named: "Work")
    try context.save()
    // The user's save, written whole with nobody following it up, made no delta to tell.
    #expect(recorder.heard.isEmpty)

    let incoming = StoreIncoming(
      from: .empty,
      to: StoreSnapshot(
        generation: 1,
        categories: [
          SnapshotCategory(
            id: work.id, name: try Name("Work"),
            documents: [
              SnapshotDocument(
                id: ObjectID(high: 7, low: 7), name: try Name("Plan"), size: 5,
                modified: Timestamp(millisecondsSince1970: 0), content: "plan\n")
            ])
        ]))
    let delta = try #require(try context.writeIncoming(incoming))
    #expect(recorder.heard.count == 1)
    #expect(recorder.heard.first?.origin == .sync)
    #expect(recorder.heard.first?.delta.documents.map(\.id) == delta.documents.map(\.id))
    #expect(delta.documents.compactMap { $0.after?.name.text } == ["Plan"])
    #expect(recorder.heard.first?.store == ObjectIdentifier(store))
    #expect(store.saves.count == 2)
    #expect(try context.content(of: ObjectID(high: 7, low: 7)) == "plan\n")
  }
}
