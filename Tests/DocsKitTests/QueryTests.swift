import DocsTestSupport
import Testing

@testable import DocsKit

@Suite struct QueryTests {
  @Test func categoriesAreSortedByNameIgnoringCase() throws {
    let (context, _, _) = try makeMemoryContext()
    let names = ["banana", "Apple", "cherry", "apricot", "Zed", "éclair", "10", "2"]
    for name in names { try context.createCategory(named: name) }
    let expected = names.sorted { $0.lowercased() < $1.lowercased() }
    #expect(context.categories().map(\.name.text) == expected)
    #expect(context.categories().map(\.name.text).prefix(4) == ["10", "2", "Apple", "apricot"])
  }

  @Test(arguments: [
    ("work", "Work"), ("WORK", "Work"), (" Cafe\u{301} ", "Café"), ("missing", nil),
  ])
  func categoryNamedFindsIgnoringCaseAndNormalization(query: String, found: String?) throws {
    let (context, _, _) = try makeMemoryContext()
    try context.createCategory(named: "Work")
    try context.createCategory(named: "Café")
    #expect(context.category(named: query)?.name.text == found)
  }

  @Test(arguments: [
    (CategorySortKey.name, SortOrder.ascending, ["Bare", "busy", "Empty", "heavy"]),
    (CategorySortKey.name, SortOrder.descending, ["heavy", "Empty", "busy", "Bare"]),
    // Ties (the two empty categories, the two of 5 bytes) stay in name order either way.
    (CategorySortKey.size, SortOrder.descending, ["heavy", "Bare", "busy", "Empty"]),
    (CategorySortKey.size, SortOrder.ascending, ["Empty", "Bare", "busy", "heavy"]),
    (CategorySortKey.modified, SortOrder.descending, ["heavy", "busy", "Bare", "Empty"]),
    (CategorySortKey.modified, SortOrder.ascending, ["Empty", "Bare", "busy", "heavy"]),
  ])
  func categoryListingsSortByTheirSummaries(
    key: CategorySortKey, order: SortOrder, expected: [String]
  ) throws {
    let (context, _, _) = try makeMemoryContext()
    for name in ["heavy", "Empty", "busy", "Bare"] { try context.createCategory(named: name) }
    func category(_ name: String) throws -> ObjectID {
      try #require(context.category(named: name)).id
    }
    try context.createDocument(named: "a", in: category("Bare"), content: "12345")
    try context.createDocument(named: "a", in: category("busy"), content: "123")
    try context.createDocument(named: "b", in: category("busy"), content: "45")
    try context.createDocument(named: "a", in: category("heavy"), content: "123456789")
    let listings = context.categoryListings(sortedBy: key, order: order)
    #expect(listings.map(\.category.name.text) == expected)
    let busy = try #require(listings.first { $0.category.name.text == "busy" })
    #expect(busy.summary == context.summary(of: busy.category.id))
    #expect(busy.summary.documentCount == 2 && busy.summary.totalSize == 5)
  }

  @Test func anInvalidNameFindsNothing() throws {
    let (context, _, _) = try makeMemoryContext()
    try context.createCategory(named: "Work")
    #expect(context.category(named: "") == nil)
    #expect(context.category(named: "a/b") == nil)
  }

  /// Documents with deliberate ties in size and modification date.
  struct Listing {
    let context: Context
    let work: Category

    init() throws {
      // The clock reads whatever moment the next row asks for, so ties are deliberate.
      final class Shared { var value = TestClock.reading(1) }
      let shared = Shared()
      context = try Context(
        store: MemoryStore(), clock: { shared.value }, makeID: SequentialIDs().make)
      work = try context.createCategory(named: "Work")
      // name, content, clock reading
      let rows: [(String, String, Int)] = [
        ("delta", "12345", 3), ("Alpha", "1", 2), ("charlie", "123", 2), ("bravo", "123", 1),
        ("Echo", "", 3), ("foxtrot", "1234567", 1),
      ]
      for (name, content, reading) in rows {
        shared.value = TestClock.reading(reading)
        try context.createDocument(named: name, in: work.id, content: content)
      }
    }
  }

  @Test(arguments: [
    (
      DocumentSortKey.name, SortOrder.ascending,
      ["Alpha", "bravo", "charlie", "delta", "Echo", "foxtrot"]
    ),
    (.name, .descending, ["foxtrot", "Echo", "delta", "charlie", "bravo", "Alpha"]),
    // sizes: Echo 0, Alpha 1, bravo 3, charlie 3, delta 5, foxtrot 7
    (.size, .ascending, ["Echo", "Alpha", "bravo", "charlie", "delta", "foxtrot"]),
    (.size, .descending, ["foxtrot", "delta", "charlie", "bravo", "Alpha", "Echo"]),
    // readings: bravo 1, foxtrot 1, Alpha 2, charlie 2, delta 3, Echo 3
    (.modified, .ascending, ["bravo", "foxtrot", "Alpha", "charlie", "delta", "Echo"]),
    (.modified, .descending, ["Echo", "delta", "charlie", "Alpha", "foxtrot", "bravo"]),
  ])
  func documentsSortByKeyWithTiesByName(key: DocumentSortKey, order: SortOrder, expected: [String])
    throws
  {
    let listing = try Listing()
    let documents = try listing.context.documents(in: listing.work.id, sortedBy: key, order: order)
    #expect(documents.map(\.name.text) == expected)
    // The order agrees with the rule stated independently.
    func value(_ document: Document) -> Int64 {
      switch key {
      case .name: return 0
      case .size: return Int64(document.size)
      case .modified: return document.modified.millisecondsSince1970
      }
    }
    for (a, b) in zip(documents, documents.dropFirst()) {
      let (x, y) = order == .ascending ? (a, b) : (b, a)
      #expect(
        value(x) < value(y)
          || (value(x) == value(y) && x.name.text.lowercased() < y.name.text.lowercased()))
    }
  }

  @Test func documentsDefaultToNameAscending() throws {
    let listing = try Listing()
    #expect(
      try listing.context.documents(in: listing.work.id).map(\.name.text)
        == ["Alpha", "bravo", "charlie", "delta", "Echo", "foxtrot"])
  }

  @Test func documentsOfAMissingCategoryAreNone() throws {
    let listing = try Listing()
    #expect(try listing.context.documents(in: SequentialIDs.id(999)).isEmpty)
  }

  @Test func nameContainingIgnoresCaseAndSpansCategories() throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    let home = try context.createCategory(named: "home")
    try context.createDocument(named: "Meeting NOTES", in: work.id)
    try context.createDocument(named: "notes", in: home.id)
    try context.createDocument(named: "Notebook", in: work.id)
    try context.createDocument(named: "Plan", in: work.id)
    try context.createDocument(named: "Café notes", in: home.id)
    let found = try context.documents(nameContaining: "NoTe")
    // Sorted by category name (home before Work), then by name.
    #expect(found.map(\.name.text) == ["Café notes", "notes", "Meeting NOTES", "Notebook"])
    #expect(found.map(\.categoryID) == [home.id, home.id, work.id, work.id])
    #expect(try context.documents(nameContaining: "zzz").isEmpty)
    #expect(try context.documents(nameContaining: "CAFÉ").map(\.name.text) == ["Café notes"])
    #expect(try context.documents(nameContaining: "").count == 5)
  }

  @Test func summaryCountsSizesAndLatestModification() throws {
    let listing = try Listing()
    let summary = listing.context.summary(of: listing.work.id)
    #expect(summary.documentCount == 6)
    #expect(summary.totalSize == 0 + 1 + 3 + 3 + 5 + 7)
    #expect(summary.latestModification == TestClock.reading(3))
    let (context, _, _) = try makeMemoryContext()
    let empty = try context.createCategory(named: "Empty")
    #expect(
      context.summary(of: empty.id)
        == CategorySummary(documentCount: 0, totalSize: 0, latestModification: nil))
  }
}
