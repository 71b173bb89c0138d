import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// An open whose index describes the store reads no category: the category a command names,
/// its documents and the tags come from the store alone, and the whole list is read the
/// first time anything needs more. What the context shows is the loaded file's, as if the
/// list had been read at the open: other sessions' saves in between change nothing until
/// it catches up.
@Suite struct DeferredCategoryListTests {
  /// A store of three categories, indexed; a second open finds the index trusted.
  private func indexedHarness() throws -> Harness {
    let harness = try Harness()
    try harness.seed()
    let tagger = try harness.openContext()
    let cat0 = try #require(tagger.category(named: "Cat 0"))
    let first = try #require(try tagger.documents(in: cat0.id).first)
    try tagger.tag([first.id], with: [Tag("project/a")])
    try tagger.save()
    _ = try harness.openIndexed(now: Harness.lateClock)
    return harness
  }

  @Test func anOpenNamingOneCategoryReadsNoOtherRowAndShowsWhatAFullReadShows() throws {
    let harness = try indexedHarness()
    let sqlite = PreparingSQLite()
    let (context, store) = try harness.openIndexed(sqlite: sqlite, now: Harness.lateClock)
    #expect(store.indexState == .trusted)
    #expect(context.isCategoryListDeferred)
    let plain = try harness.openContext()
    let category = try #require(context.category(named: "Cat 1"))
    #expect(category == plain.category(named: "Cat 1"))
    #expect(context.category(withID: category.id) == category)
    #expect(try context.documents(in: category.id) == plain.documents(in: category.id))
    #expect(
      try context.documents(in: category.id, sortedBy: .size, order: .descending)
        == plain.documents(in: category.id, sortedBy: .size, order: .descending))
    #expect(
      try context.document(named: "doc 1.2", in: category.id)
        == plain.document(named: "doc 1.2", in: category.id))
    #expect(try context.tags() == plain.tags())
    #expect(try context.tags().map(\.tag.text) == ["project/a"])
    // None of that read the list.
    #expect(context.isCategoryListDeferred)
    #expect(!sqlite.prepared.contains { $0.contains("FROM categories ORDER BY ordinal") })
    // A name in another spelling of its key is found by the whole list.
    #expect(context.category(named: "cat 2") == plain.category(named: "cat 2"))
    #expect(!context.isCategoryListDeferred)
    #expect(sqlite.prepared.contains { $0.contains("FROM categories ORDER BY ordinal") })
    #expect(try Answers(context) == Answers(plain))
  }

  @Test func aCategoryNoneIsSpelledLikeIsLookedUpInTheWholeList() throws {
    let harness = try indexedHarness()
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    #expect(context.category(named: "Nowhere") == nil)
    #expect(!context.isCategoryListDeferred)
    #expect(context.categories().map(\.name.text) == ["Cat 0", "Cat 1", "Cat 2"])
  }

  @Test(arguments: ["add", "rename", "delete", "edit"])
  func anotherSessionsSaveBetweenTheOpenAndTheFirstUseIsNotSeenUntilCatchingUp(
    change: String
  ) throws {
    let harness = try indexedHarness()
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    let before = try Answers(harness.openContext())
    // Another session saves, through the index, so that it no longer describes the file
    // this context loaded.
    let (other, _) = try harness.openIndexed(now: Harness.lateClock)
    let cat1 = try #require(other.category(named: "Cat 1"))
    switch change {
    case "add": _ = try other.createCategory(named: "Fresh")
    case "rename": _ = try other.renameCategory(cat1.id, to: "Renamed")
    case "delete": _ = try other.deleteCategory(cat1.id)
    default:
      try other.createDocument(named: "Late", in: cat1.id, content: "late")
    }
    try other.save()
    // The deferred context still shows the store as it loaded it: the category by name,
    // its documents, and then the whole list.
    let category = try #require(context.category(named: "Cat 1"))
    #expect(context.category(named: "Fresh") == nil)
    #expect(
      try context.documents(in: category.id).map(\.name.text)
        == before.listings["Cat 1"]?.map {
          String($0.split(separator: " ").prefix(2).joined(separator: " "))
        })
    #expect(try Answers(context) == before)
    // Catching up shows the other session's save.
    #expect(try context.catchUpWithStore() == .refreshed(droppedUndo: false))
    #expect(try Answers(context) == Answers(harness.openContext()))
    #expect((context.category(named: "Fresh") != nil) == (change == "add"))
    #expect((context.category(named: "Renamed") != nil) == (change == "rename"))
  }

  @Test func aCategoryAnotherSessionCreatedIsFoundAfterCatchingUpWhileDeferred() throws {
    let harness = try indexedHarness()
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    let other = try harness.openContext()
    _ = try other.createCategory(named: "Fresh")
    try other.save()
    #expect(try context.catchUpWithStore() == .refreshed(droppedUndo: false))
    let fresh = try #require(context.category(named: "Fresh"))
    #expect(try context.documents(in: fresh.id).isEmpty)
    #expect(try Answers(context) == Answers(harness.openContext()))
  }

  @Test func aChangeInALookedUpCategoryIsUndoneAndSavedAsWithTheListRead() throws {
    let harness = try indexedHarness()
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    let category = try #require(context.category(named: "Cat 2"))
    #expect(context.isCategoryListDeferred)
    _ = try context.performChanges("new") {
      try context.createDocument(named: "Added", in: category.id, content: "added")
    }
    #expect(!context.isCategoryListDeferred)
    #expect(try context.hasChanges)
    #expect(try context.undo() == "new")
    #expect(try !context.hasChanges)
    #expect(
      try context.documents(in: category.id).map(\.name.text) == [
        "Doc 2.0", "Doc 2.1", "Doc 2.2", "Doc 2.3",
      ])
    #expect(try context.redo() == "new")
    try context.save()
    let plain = try harness.openContext()
    #expect(try Answers(plain) == Answers(context))
    #expect(try plain.document(named: "Added", in: category.id) != nil)
    #expect(plain.categories().count == 3)
  }

  @Test func aMergeOfAnotherSessionsSaveWorksFromADeferredList() throws {
    let harness = try indexedHarness()
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    let category = try #require(context.category(named: "Cat 0"))
    let other = try harness.openContext()
    _ = try other.createCategory(named: "Theirs")
    try other.save()
    try context.createDocument(named: "Mine", in: category.id, content: "mine")
    try context.save()
    let plain = try harness.openContext()
    #expect(plain.category(named: "Theirs") != nil)
    #expect(try plain.document(named: "Mine", in: category.id) != nil)
    #expect(try Answers(context) == Answers(plain))
  }

  @Test(arguments: [1, 3])
  func aListReadFromTheLoadedFileAfterAnotherSessionsSavesSavesWithTheirs(saves: Int) throws {
    let harness = try indexedHarness()
    let (context, store) = try harness.openIndexed(now: Harness.lateClock)
    // Other sessions save to the log through the index: the index describes their file, so
    // the list comes from this session's loaded file.
    for number in 0..<saves {
      let (other, _) = try harness.openIndexed(now: Harness.lateClock)
      let category = try #require(other.category(named: "Cat 1"))
      try other.createDocument(named: "Theirs \(number)", in: category.id, content: "theirs")
      try other.save()
    }
    try context.readCategoryList()
    #expect(context.category(named: "Cat 1") != nil)
    #expect(
      try context.document(named: "Theirs 0", in: #require(context.category(named: "Cat 1")).id)
        == nil)
    let category = try #require(context.category(named: "Cat 2"))
    try context.createDocument(named: "Mine", in: category.id, content: "mine")
    try context.save()
    #expect(context.storeWarning == nil)
    #expect(store.indexWarning == nil)
    let plain = try harness.openContext()
    #expect(plain.storeWarning == nil)
    let cat1 = try #require(plain.category(named: "Cat 1"))
    for number in 0..<saves {
      #expect(try plain.document(named: "Theirs \(number)", in: cat1.id) != nil)
    }
    #expect(try plain.document(named: "Mine", in: category.id) != nil)
    #expect(try Answers(plain) == Answers(context))
    let (reopened, _) = try harness.openIndexed(now: Harness.lateClock)
    #expect(try Answers(reopened) == Answers(plain))
    #expect(reopened.check().problems.isEmpty)
  }

  @Test func aListThatCannotBeReadFailsAndTheStoreIsNeverSavedOver() throws {
    let harness = try indexedHarness()
    let files = FaultInjectingFileSystem()
    let (context, store) = try harness.openIndexed(fileSystem: files, now: Harness.lateClock)
    #expect(context.isCategoryListDeferred)
    // Another session's save through the index: it no longer describes the loaded file,
    // which must be read, and cannot be.
    let (other, _) = try harness.openIndexed(now: Harness.lateClock)
    _ = try other.createCategory(named: "Fresh")
    try other.save()
    files.arm(.operation("pread", occurrence: 1))
    #expect(throws: ContextError.self) { try context.readCategoryList() }
    files.disarm()
    #expect(throws: ContextError.self) { try context.checkCategoryList() }
    #expect(throws: ContextError.self) { try context.readCategoryList() }
    // The graph it was left with is empty: a change made to it is never saved, even once
    // the store has read its file whole again (which takes back the store's own refusal).
    _ = try context.createCategory(named: "Cat 0")
    #expect(throws: (any Error).self) { try context.save() }
    _ = try store.scanLoadedFile()
    #expect(throws: ContextError.self) { try context.save() }
    #expect(throws: ContextError.self) { try context.foldSaveLog() }
    let categories = try harness.openContext().categories().map(\.name.text)
    #expect(categories == ["Cat 0", "Cat 1", "Cat 2", "Fresh"])
  }
}

/// The real SQLite, recording every statement prepared.
final class PreparingSQLite: ForwardingSQLite {
  private(set) var prepared: [String] = []
  let real = SystemSQLite()

  func prepare(_ connection: OpaquePointer, _ sql: String) throws(SQLiteError) -> OpaquePointer {
    prepared.append(sql)
    return try real.prepare(connection, sql)
  }
}
