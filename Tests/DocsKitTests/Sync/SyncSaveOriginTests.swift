import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// A sync's incoming save takes the one save path: its observers hear it, marked as the
/// sync's, and the commit observer leaves it to the sync (no second commit of what came in).
@Suite struct SyncSaveOriginTests {
  let sandbox: GitSandbox
  let remote: String
  let laptop: Machine
  let desktop: Machine

  init() throws {
    sandbox = try GitSandbox("sync-origin")
    remote = try sandbox.makeBareRemote()
    laptop = try Machine("laptop", in: sandbox, number: 1)
    desktop = try Machine("desktop", in: sandbox, number: 2)
  }

  /// Hears every save with its origin, and passes it on to the commit observer.
  final class OriginRecorder: SaveObserver {
    let commits: GitCommitOnSave
    private(set) var heard: [(origin: SaveOrigin, delta: StoreDelta)] = []

    init(_ repository: StoreRepository) {
      commits = GitCommitOnSave(repository: repository)
    }

    var followsUpSaves: Bool { commits.followsUpSaves }

    func storeDidSave(_ delta: StoreDelta, origin: SaveOrigin, lock: LockedStore) -> String? {
      heard.append((origin, delta))
      return commits.storeDidSave(delta, origin: origin, lock: lock)
    }
  }

  @Test func anIncomingSaveReachesTheObserversAsTheSyncsAndIsNotCommittedAgain() throws {
    try startTogether(laptop, desktop, remote: remote)
    try laptop.edit { try put("shopping\n", at: "Home", "Groceries", in: $0) }
    try laptop.sync()
    let remoteHead = try laptop.gitText(["rev-parse", "HEAD"])

    let repository = try #require(try desktop.repository())
    let recorder = OriginRecorder(repository)
    let cache = sandbox.folder.path("desktop-cache")
    let context = try Context(
      store: IndexedStore(path: desktop.storePath, cacheFolder: cache),
      clock: desktop.clock.now, makeID: desktop.ids.make, observer: recorder)
    // A save of the user's is committed by the observer, as every save is.
    try put("plan desktop\n", at: "Work", "Plan", in: context)
    try context.save()
    #expect(recorder.heard.map(\.origin) == [.user])
    let localCommit = try desktop.gitText(["rev-parse", "HEAD"])
    #expect(localCommit != remoteHead)

    let report = try context.sync(
      through: repository, options: SyncOptions(mergeDate: Machine.mergeDate))
    #expect(report.incoming == 1)
    // The incoming save was heard, as the sync's, with what came in.
    #expect(recorder.heard.map(\.origin) == [.user, .sync])
    let incoming = try #require(recorder.heard.last?.delta)
    #expect(incoming.documents.compactMap { $0.after?.name.text } == ["Groceries"])
    #expect(context.saveWarning == nil)
    // HEAD is the sync's merge of the two sides, and nothing after it: what came in was not
    // committed again as a change made here.
    let head = try desktop.gitText(["rev-parse", "HEAD"])
    let parents = try desktop.gitText(["rev-list", "--parents", "-n", "1", "HEAD"])
      .split(separator: " ").dropFirst().map(String.init)
    #expect(Set(parents) == [localCommit, remoteHead])
    #expect(try desktop.gitText(["rev-parse", "origin/main"]) == head)
    #expect(try desktop.headHoldsTheStore())
    // The index was brought in step by that save: a new session trusts it as it is.
    let reopened = IndexedStore(path: desktop.storePath, cacheFolder: cache)
    let graph = try Context(store: reopened)
    #expect(reopened.indexState == .trusted)
    let home = try #require(graph.category(named: "Home"))
    #expect(try graph.document(named: "Groceries", in: home.id) != nil)
  }
}
