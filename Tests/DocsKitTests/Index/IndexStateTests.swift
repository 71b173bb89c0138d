import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// The index's state in `IndexedStore` as one machine: each transition leads where its
/// name says, and only the open index answers.
@Suite struct IndexStateTests {
  /// An index opened on its own file in `folder`.
  private func openIndex(_ folder: TemporaryFolder, _ name: String) throws -> StoreIndex {
    try StoreIndex.open(
      at: folder.url.path + "/" + name, library: SystemSQLite(), fileSystem: SystemFileSystem(),
      busyTimeoutMilliseconds: 200, now: IndexedStore.realtimeNanoseconds)
  }

  private func identity(generation: Int) -> IndexIdentity {
    IndexIdentity(
      storePath: "/store.json", device: 1, inode: 2, size: 3, modificationNanoseconds: 4,
      changeNanoseconds: 5, generation: generation)
  }

  private static let emptyScan = ScannedFile(
    graph: LoadedGraph(generation: 1, categories: [], documents: []), indexLied: false)

  @Test func aNewStateHasNoIndexAndOpensOne() {
    let state = IndexStateMachine()
    guard case .noIndex(.none) = state.use else {
      Issue.record("a new state is \(state.use)")
      return
    }
    #expect(state.index == nil && state.trusted == nil && state.scanned == nil)
  }

  @Test func anOpenedIndexIsTrustedWithItsIdentityAndRacinessUntilTheNextLoad() throws {
    let folder = try TemporaryFolder("indexstate")
    let index = try openIndex(folder, "a.index")
    var state = IndexStateMachine()
    state.opened(index)
    #expect(state.index === index)
    #expect(state.trusted == nil, "open, but answering for no file yet")
    state.trust(identity(generation: 7), isRacy: true)
    let trusted = try #require(state.trusted)
    #expect(
      trusted.index === index && trusted.identity == identity(generation: 7) && trusted.isRacy)
    state.beginLoad()
    #expect(state.trusted == nil)
    #expect(state.index === index, "a load keeps the connection")
  }

  @Test func aScanAnswersInsteadOfTheIndexAndKeepsItForTheNextLoad() throws {
    let folder = try TemporaryFolder("indexstate")
    let index = try openIndex(folder, "a.index")
    var state = IndexStateMachine()
    state.opened(index)
    state.trust(identity(generation: 1), isRacy: false)
    state.scan(Self.emptyScan)
    #expect(state.scanned != nil)
    #expect(state.trusted == nil, "the scanned file answers, not the index")
    #expect(state.index === index)
    state.beginLoad()
    #expect(state.scanned == nil)
    #expect(state.index === index)
  }

  @Test func aSaveMakesTheOpenIndexAnswerForTheNewFileNotRacily() throws {
    let folder = try TemporaryFolder("indexstate")
    let index = try openIndex(folder, "a.index")
    var state = IndexStateMachine()
    state.opened(index)
    state.scan(Self.emptyScan)
    state.saved(identity(generation: 2))
    let trusted = try #require(state.trusted)
    #expect(trusted.identity == identity(generation: 2) && !trusted.isRacy)
    state.saved(nil)
    #expect(state.trusted == nil, "a saved file that cannot be stat'ed is not answered for")
    #expect(state.index === index)
  }

  @Test func aSaveWithNoIndexOpenTrustsNothing() {
    var state = IndexStateMachine()
    state.saved(identity(generation: 2))
    #expect(state.trusted == nil && state.index == nil)
  }

  @Test func lettingGoOfTheFailedIndexLeavesNoneOpenToBeOpenedAgain() throws {
    let folder = try TemporaryFolder("indexstate")
    let index = try openIndex(folder, "a.index")
    let other = try openIndex(folder, "b.index")
    var state = IndexStateMachine()
    state.opened(index)
    state.trust(identity(generation: 1), isRacy: false)
    state.letGo(of: other)
    #expect(state.trusted?.index === index, "another index failing changes nothing")
    state.letGo(of: index)
    #expect(state.trusted == nil && state.index == nil)
    guard case .noIndex(.none) = state.use else {
      Issue.record("after letting go: \(state.use)")
      return
    }
  }

  @Test func anIndexThatCannotBeOpenedStaysDisabledWithItsReasonAcrossLoadsAndScans() {
    var state = IndexStateMachine()
    state.openingFailed(reason: "permission denied")
    state.scan(Self.emptyScan)
    state.beginLoad()
    state.saved(identity(generation: 3))
    guard case .noIndex(.disabled(let reason)) = state.use else {
      Issue.record("after a failed open, a scan, a load and a save: \(state.use)")
      return
    }
    #expect(reason == "permission denied")
  }

  @Test func anAnswerIsNamedForWhatTheIndexSaid() {
    #expect(IndexAnswer<Int>(5).value == 5)
    guard case .describesAnotherFile = IndexAnswer<Int>(nil) else {
      Issue.record("a read that found another file is not an answer")
      return
    }
    guard case .answered(nil) = IndexAnswer<Int?>(.some(nil)) else {
      Issue.record("an answer of nothing is an answer")
      return
    }
  }
}
