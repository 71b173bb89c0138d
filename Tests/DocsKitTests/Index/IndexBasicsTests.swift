import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

@Suite struct IndexBasicsTests {
  @Test func sqliteHasFTS5() {
    let hasFTS5 = DocsKit.sqliteHasFTS5()
    #expect(hasFTS5)
  }

  /// The -wal file stays between processes but is emptied when the last connection closes:
  /// otherwise a rebuild's whole write would be read back by every later open.
  @Test func theWriteAheadLogIsEmptiedWhenTheIndexCloses() throws {
    let harness = try Harness()
    try harness.seed(categories: 4, documents: 300)
    var walPath: String?
    do {
      let (context, store) = try harness.openIndexed(now: Harness.lateClock)
      _ = try context.search(SearchQuery("content"))  // the full-text part: a large write
      walPath = try #require(store.indexPath) + "-wal"
    }
    let wal = try #require(walPath)
    #expect(FileManager.default.fileExists(atPath: wal), "the -wal file is kept")
    let size = try status(of: wal).size
    #expect(size == 0, "the -wal file holds \(size) bytes")
  }

  @Test func aTrustedIndexLoadsCategoriesOnlyAndFaultsDocumentsIn() throws {
    let harness = try Harness()
    try harness.seed()
    let expected = try Answers(harness.openContext())
    // The first open builds the index; the second trusts it.
    let (first, firstStore) = try harness.openIndexed(now: Harness.lateClock)
    #expect(firstStore.indexState == .rebuilt(reason: "there was none"))
    #expect(try Answers(first) == expected)
    let (context, store) = try harness.openIndexed(now: Harness.lateClock)
    #expect(store.indexState == .trusted)
    let categories = context.categories()
    #expect(categories.count == 3)
    #expect(categories.allSatisfy { !context.isLoaded($0.id) })
    #expect(context.summary(of: categories[1].id).documentCount == 4)
    #expect(context.documentCount == 12)
    _ = try context.documents(in: categories[1].id)
    #expect(context.isLoaded(categories[1].id))
    #expect(!context.isLoaded(categories[0].id))
    #expect(try Answers(context) == expected)
  }

  /// The open that builds the index answers from it too: a first save after it writes what
  /// changed, not every document the build read (row 3 of the benchmark).
  @Test func theOpenThatBuildsTheIndexAlsoLoadsCategoriesOnly() throws {
    let harness = try Harness()
    try harness.seed()
    let expected = try Answers(harness.openContext())
    let (context, store) = try harness.openIndexed(now: Harness.lateClock)
    #expect(store.indexState == .rebuilt(reason: "there was none"))
    let categories = context.categories()
    #expect(categories.count == 3)
    #expect(categories.allSatisfy { !context.isLoaded($0.id) })
    let document = try #require(try context.document(named: "Doc 1.1", in: categories[1].id))
    try context.setContent("rewritten on the first open", of: document.id)
    try context.save()
    #expect(!context.isLoaded(categories[0].id) && !context.isLoaded(categories[2].id))
    #expect(store.indexState == .rebuilt(reason: "there was none"))
    let (reopened, reopenedStore) = try harness.openIndexed(now: Harness.lateClock)
    #expect(reopenedStore.indexState == .trusted)
    #expect(try Answers(reopened) == Answers(harness.openContext()))
    #expect(try Answers(reopened) != expected)
    #expect(reopened.check().index == .trusted)
  }

  @Test func findAndContentOfUnloadedCategoriesComeFromTheIndex() throws {
    let harness = try Harness()
    try harness.seed()
    _ = try harness.openIndexed(now: Harness.lateClock)
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    let found = try context.documents(nameContaining: "2.3")
    #expect(found.map(\.name.text) == ["Doc 2.3"])
    #expect(context.categories().allSatisfy { !context.isLoaded($0.id) })
    let document = try #require(found.first)
    #expect(try context.content(of: document.id) == "content 2.3 café naïve")
    #expect(context.isLoaded(document.categoryID))
    #expect(try context.documents(nameContaining: "doc").count == 12)
  }

  @Test func editsAndSavesKeepTheIndexInStep() throws {
    let harness = try Harness()
    try harness.seed()
    _ = try harness.openIndexed(now: Harness.lateClock)
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    let categories = context.categories()
    let document = try #require(try context.document(named: "Doc 1.1", in: categories[1].id))
    try context.setContent("rewritten and much longer than before", of: document.id)
    try context.createDocument(named: "New", in: categories[0].id, content: "new one")
    try context.renameCategory(categories[2].id, to: "Renamed")
    try context.save()
    #expect(!context.isLoaded(categories[2].id))
    let expected = try Answers(harness.openContext())
    #expect(try Answers(context) == expected)
    let (reopened, store) = try harness.openIndexed(now: Harness.lateClock)
    #expect(store.indexState == .trusted)
    #expect(try Answers(reopened) == expected)
    #expect(reopened.check().index == .trusted)
  }

  @Test func rankedSearchFindsWordsIgnoringCaseAndAccents() throws {
    let harness = try Harness()
    try harness.seed { c, d in d == 2 ? "The Café opens at nine; café café" : "plain words \(c)" }
    _ = try harness.openIndexed(now: Harness.lateClock)
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    let hits = try context.search(SearchQuery("cafe"))
    #expect(Set(hits.map(\.document.name.text)) == ["Doc 0.2", "Doc 1.2", "Doc 2.2"])
    let first = try #require(hits.first)
    #expect(
      first.snippet.highlights.map { String(first.snippet.text[$0]) } == ["Café", "café", "café"])
    // A change not yet saved is searched as it is now.
    let other = try #require(try context.document(named: "Doc 0.1", in: context.categories()[0].id))
    try context.setContent("now about a cafe", of: other.id)
    try context.deleteDocument(first.document.id)
    let now = try context.search(SearchQuery("café"), limit: 0)
    #expect(now.contains { $0.document.id == other.id })
    #expect(!now.contains { $0.document.id == first.document.id })
  }
}
