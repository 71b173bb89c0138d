import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// A document's history by its id, across edits, renames, moves and deletions; the store's
/// commits; a version's content; restoring it.
@Suite struct HistoryTests {
  let sandbox: GitSandbox
  let remote: String
  let laptop: Machine

  init() throws {
    sandbox = try GitSandbox("history")
    remote = try sandbox.makeBareRemote()
    laptop = try Machine("laptop", in: sandbox, number: 1)
    try laptop.edit { try put("list\n", at: "Home", "List", in: $0) }
    try laptop.setUp(remote: remote)
    try laptop.sync()
  }

  func repository() throws -> StoreRepository { try #require(try laptop.repository()) }

  func head() throws -> CommitID { CommitID(try laptop.gitText(["rev-parse", "HEAD"])) }

  /// Plan created, edited, renamed, moved, its category renamed, another document edited,
  /// then Plan deleted: the commit after each step.
  func makeHistory() throws -> (id: ObjectID, commits: [CommitID]) {
    var commits: [CommitID] = []
    let context = try laptop.edit { try put("one\n", at: "Work", "Plan", in: $0) }
    let id = try document("Work", "Plan", in: context).id
    commits.append(try head())
    try context.setContent("one\ntwo\n", of: id)
    try context.save()
    commits.append(try head())
    try context.renameDocument(id, to: "Plan B")
    try context.save()
    commits.append(try head())
    let later = try context.createCategory(named: "Later")
    try context.moveDocument(id, to: later.id)
    try context.save()
    commits.append(try head())
    try context.renameCategory(later.id, to: "Someday")
    try context.setContent("list 2\n", of: try document("Home", "List", in: context).id)
    try context.save()
    commits.append(try head())
    try context.deleteDocument(id)
    try context.save()
    commits.append(try head())
    return (id, commits)
  }

  @Test func aDocumentsVersionsAreFoundByItsIdNewestFirst() throws {
    let (id, commits) = try makeHistory()
    let versions = try repository().history.versions(ofDocument: id)
    #expect(versions.map(\.commit) == [commits[5], commits[3], commits[2], commits[1], commits[0]])
    #expect(versions.map(\.name) == ["Plan B", "Plan B", "Plan B", "Plan", "Plan"])
    #expect(versions.map(\.category) == ["Someday", "Later", "Work", "Work", "Work"])
    #expect(versions.map(\.size) == [0, 8, 8, 8, 4])
    #expect(versions.map(\.isDeletion) == [true, false, false, false, false])
    #expect(
      try repository().history.versions(ofDocument: id, limit: 2).map(\.commit) == [
        commits[5], commits[3],
      ])
    let dates = versions.map(\.date)
    #expect(dates == dates.sorted(by: >))
  }

  @Test func aVersionsContentAndNameAreReadAtItsCommit() throws {
    let (id, commits) = try makeHistory()
    let repository = try repository()
    let first = try #require(try repository.history.document(id, at: commits[0]))
    #expect(first.content == "one\n")
    #expect(first.name == "Plan")
    #expect(first.categoryName == "Work")
    #expect(try repository.history.document(id, at: commits[5]) == nil)
    let moved = try #require(
      try repository.history.document(inCategory: "later", named: "PLAN B", at: commits[3]))
    #expect(moved.id == id)
    #expect(moved.content == "one\ntwo\n")
    #expect(try repository.history.documentID(lastInCategory: "Someday", named: "Plan B") == id)
    #expect(try repository.history.documentID(lastInCategory: "Work", named: "Plan") == id)
    #expect(try repository.history.documentID(lastInCategory: "Work", named: "Nothing") == nil)
  }

  @Test func aDeletedDocumentRestoredFromItsOldPathKeepsItsIdAndHistory() throws {
    let (id, commits) = try makeHistory()
    let repository = try repository()
    let saved = try #require(
      try repository.history.document(inCategory: "Later", named: "Plan B", at: commits[3]))
    let context = try laptop.open()
    let restored = try context.restoreDocument(saved)
    #expect(restored.id == id)
    // Its category still exists, renamed since: it goes back there.
    #expect(context.category(withID: restored.categoryID)?.name.text == "Someday")
    try context.save()
    let versions = try repository.history.versions(ofDocument: id)
    #expect(versions.count == 6)
    #expect(versions.first?.isDeletion == false)
    #expect(versions.first?.commit == (try head()))
    #expect(try laptop.contents()["Someday/Plan B"] == "one\ntwo\n")
  }

  @Test func theStoresCommitsAreListedOneLineEach() throws {
    let (_, commits) = try makeHistory()
    let listed = try repository().history.commits(limit: 3)
    #expect(listed.map(\.commit) == Array(commits.reversed().prefix(3)))
    #expect(listed.first?.message == "1 deleted: Someday/Plan B")
    #expect(try repository().history.commits().count == commits.count + 1)
  }

  @Test func aCommitNamedByTheUserIsResolvedOrRefused() throws {
    let (_, commits) = try makeHistory()
    let repository = try repository()
    #expect(try repository.history.resolveCommit(commits[1].short) == commits[1])
    #expect(try repository.history.resolveCommit("HEAD~1") == commits[4])
    #expect(throws: SyncError.noSuchCommit("nothing-like-this")) {
      try repository.history.resolveCommit("nothing-like-this")
    }
    #expect(throws: SyncError.noSuchCommit("--all")) {
      try repository.history.resolveCommit("--all")
    }
  }

  @Test func aVersionFromTheOtherMachineIsListedOnceNotAgainForTheMerge() throws {
    let desktop = try Machine("desktop", in: sandbox, number: 2)
    try desktop.setUp(remote: remote)
    try desktop.sync()
    let context = try laptop.edit { try put("v1\n", at: "Work", "Plan", in: $0) }
    let id = try document("Work", "Plan", in: context).id
    try laptop.sync()
    try desktop.sync()
    try context.setContent("v2\n", of: id)
    try context.save()
    let laptopCommit = try head()
    try laptop.sync()
    try desktop.edit { try put("desktop\n", at: "Home", "Other", in: $0) }
    try desktop.sync()  // merges: the merge commit brings v2 into the desktop's line
    let versions = try #require(try desktop.repository()).history.versions(ofDocument: id)
    #expect(versions.count == 2)
    #expect(versions.first?.commit == laptopCommit)
  }

  @Test func commitsMadeInACloneAreFoundByReadingTheFilesTheyChanged() throws {
    let context = try laptop.edit { try put("one\n", at: "Work", "Plan", in: $0) }
    let id = try document("Work", "Plan", in: context).id
    try laptop.sync()
    // The document edited in a clone, with plain git: no docsh trailers.
    let clone = try Clone(of: remote, named: "clone", in: sandbox)
    let file = try #require(clone.bytes("Work/Plan.md"))
    try clone.write("Work/Plan.md", file + Array("by hand\n".utf8))
    try clone.commitAndPush("edited by hand")
    let byHand = CommitID(try clone.git(["rev-parse", "HEAD"]))
    try laptop.sync()
    try context.reload()
    try context.renameDocument(id, to: "Renamed")
    try context.save()
    let versions = try repository().history.versions(ofDocument: id)
    #expect(versions.count == 3)
    #expect(versions[1].commit == byHand)
    #expect(versions[1].name == "Plan")
    #expect(versions[1].size == 12)
    #expect(versions[0].name == "Renamed")
    #expect(try repository().history.document(id, at: byHand)?.content == "one\nby hand\n")
  }
}

/// Putting back a version: an ordinary undoable change that save commits.
@Suite struct RestoreTests {
  func makeContext() throws -> (Context, TestClock) {
    let (context, clock, _) = try makeMemoryContext()
    return (context, clock)
  }

  @Test func anExistingDocumentGetsItsOldContentAndNameBack() throws {
    let (context, _) = try makeContext()
    let work = try context.createCategory(named: "Work")
    let plan = try context.createDocument(named: "Plan", in: work.id, content: "old")
    let old = SavedDocument(
      id: plan.id, name: "Plan", categoryID: work.id, categoryName: "Work", content: "old",
      size: 3, modified: plan.modified)
    try context.setContent("new", of: plan.id)
    try context.renameDocument(plan.id, to: "Renamed")
    let restored = try context.restoreDocument(old)
    #expect(restored.name.text == "Plan")
    #expect(try context.content(of: plan.id) == "old")
    #expect(context.undoActionName == "restore Plan")
    try context.undo()
    #expect(try context.document(withID: plan.id)?.name.text == "Renamed")
    #expect(try context.content(of: plan.id) == "new")
  }

  @Test func aDeletedDocumentComesBackWithItsIdContentDateAndCategory() throws {
    let (context, _) = try makeContext()
    let work = try context.createCategory(named: "Work")
    let plan = try context.createDocument(named: "Plan", in: work.id, content: "old")
    let saved = SavedDocument(
      id: plan.id, name: "Plan", categoryID: work.id, categoryName: "Work", content: "old",
      size: 3, modified: Timestamp(millisecondsSince1970: 42_000))
    try context.deleteCategory(work.id)
    let restored = try context.restoreDocument(saved)
    #expect(restored.id == plan.id)
    #expect(restored.modified == Timestamp(millisecondsSince1970: 42_000))
    #expect(context.category(named: "Work")?.id == work.id)
    #expect(try context.content(of: plan.id) == "old")
    try context.undo()
    #expect(try context.document(withID: plan.id) == nil)
    #expect(context.category(named: "Work") == nil)
  }

  @Test func aRestoredNameTakenMeanwhileIsRefusedAndNothingChanges() throws {
    let (context, _) = try makeContext()
    let work = try context.createCategory(named: "Work")
    let plan = try context.createDocument(named: "Plan", in: work.id, content: "old")
    try context.renameDocument(plan.id, to: "Other")
    try context.createDocument(named: "plan", in: work.id, content: "someone else")
    let saved = SavedDocument(
      id: plan.id, name: "Plan", categoryID: work.id, categoryName: "Work", content: "old",
      size: 3, modified: plan.modified)
    #expect(throws: ContextError.self) { try context.restoreDocument(saved) }
    #expect(try context.document(withID: plan.id)?.name.text == "Other")
  }
}

/// Restoring and syncing when the context opens the store with its index: categories come
/// in lazily, and a store rewritten by a sync is never read through a stale index.
@Suite struct IndexedHistoryTests {
  @Test func restoringIntoCategoriesNotLoadedYetFaultsThemIn() throws {
    let harness = try Harness()
    try harness.seed(categories: 3, documents: 3)
    let (first, _) = try harness.openIndexed(now: Harness.lateClock)
    let category = try #require(first.category(named: "Cat 1"))
    let kept = try #require(try first.document(named: "Doc 1.0", in: category.id))
    let gone = try #require(try first.document(named: "Doc 1.1", in: category.id))
    let savedKept = SavedDocument(
      id: kept.id, name: "Doc 1.0", categoryID: category.id, categoryName: "Cat 1",
      content: "as it was", size: 9, modified: kept.modified)
    let savedGone = SavedDocument(
      id: gone.id, name: "Doc 1.1", categoryID: category.id, categoryName: "Cat 1",
      content: try first.content(of: gone.id), size: gone.size, modified: gone.modified)
    try first.deleteDocument(gone.id)
    try first.save()

    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    #expect(!context.isLoaded(category.id))
    try context.restoreDocument(savedKept)
    #expect(try context.content(of: kept.id) == "as it was")
    let (again, _) = try harness.openIndexed(now: Harness.lateClock)
    #expect(!again.isLoaded(category.id))
    let restored = try again.restoreDocument(savedGone)
    #expect(restored.id == gone.id)
    #expect(try again.documents(in: category.id).count == 3)
  }

  @Test func aStoreRewrittenBySyncIsReadAfreshThroughTheIndex() throws {
    let sandbox = try GitSandbox("indexedsync")
    let remote = try sandbox.makeBareRemote()
    let laptop = try Machine("laptop", in: sandbox, number: 1)
    let desktop = try Machine("desktop", in: sandbox, number: 2)
    try startTogether(laptop, desktop, remote: remote)
    let cache = sandbox.folder.path("cache")
    func indexed() throws -> Context {
      try Context(store: IndexedStore(path: laptop.storePath, cacheFolder: cache))
    }
    #expect(try indexed().content(of: try document("Work", "Plan", in: indexed()).id) == "plan 0\n")
    try desktop.edit { try put("plan desktop\n", at: "Work", "Plan", in: $0) }
    try desktop.sync()
    try laptop.sync()  // fast-forward: docsh's atomic write of the store
    let context = try indexed()
    #expect(
      try context.content(of: try document("Work", "Plan", in: context).id) == "plan desktop\n")
  }
}
