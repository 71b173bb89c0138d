import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// What a command touches and no more: a name, an id, the documents of a name and the tags
/// are answered from the index's rows of them, with no category faulted in, and give the
/// answers the store file gives.
@Suite struct IndexLookupTests {
  /// A store of three categories whose documents link to `Doc 1.1` in the ways a link can,
  /// one of them tagged, indexed once so that the contexts the tests open trust the index.
  func linkedHarness(_ name: String) throws -> Harness {
    let harness = try Harness(name)
    try harness.seed { c, d in
      switch (c, d) {
      case (0, 0): return "see [[Cat 1/Doc 1.1]]\r\nand [[Doc 1.1#Part]] too"
      case (1, 2): return "first\nthen [[Doc 1.1]]"
      case (1, 1): return "# Part\n[[#Part]]"
      default: return "content \(c).\(d)"
      }
    }
    let context = try harness.openContext()
    let doc = try #require(try context.document(named: "Doc 2.3", in: categoryID(context, 2)))
    try context.tag([doc.id], with: [try DocsKit.Tag("Project/Bench")])
    try context.save()
    _ = try harness.openIndexed(now: Harness.lateClock)
    return harness
  }

  func categoryID(_ context: Context, _ number: Int) throws -> ObjectID {
    try #require(context.category(named: "Cat \(number)")).id
  }

  @Test func aNameResolvesWithoutFaultingItsCategoryIn() throws {
    let harness = try linkedHarness("resolve")
    let (context, store) = try harness.openIndexed(now: Harness.lateClock)
    #expect(store.indexState == .trusted)
    let category = try categoryID(context, 1)
    let document = try #require(try context.document(named: "DOC 1.1", in: category))
    #expect(document.name.text == "Doc 1.1" && document.categoryID == category)
    #expect(try context.document(named: "Doc 1.9", in: category) == nil)
    #expect(context.categories().allSatisfy { !context.isLoaded($0.id) })
    // Its content faults the category in, as before.
    #expect(try context.content(of: document.id) == "# Part\n[[#Part]]")
    #expect(context.isLoaded(category))
  }

  @Test func backlinksReadTheLinkingDocumentsAloneAndAnswerAsTheFileDoes() throws {
    let harness = try linkedHarness("backlinks")
    func answer(_ context: Context) throws -> [String] {
      let target = try #require(try context.document(named: "Doc 1.1", in: categoryID(context, 1)))
      return try context.backlinks(to: target.id).map {
        "\($0.source.name):\($0.link.line): \($0.lineText)"
      }
    }
    let expected = try answer(harness.openContext())
    #expect(
      expected == [
        "Doc 0.0:1: see [[Cat 1/Doc 1.1]]", "Doc 0.0:2: and [[Doc 1.1#Part]] too",
        "Doc 1.1:2: [[#Part]]", "Doc 1.2:2: then [[Doc 1.1]]",
      ])
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    #expect(try answer(context) == expected)
    #expect(context.categories().allSatisfy { !context.isLoaded($0.id) })
  }

  /// Once the links are indexed, each comes with its line from the index's rows: no
  /// linking content is read (nor the target's, for its `[[#Heading]]` links).
  @Test func backlinksReadNoContentOnceTheLinksAreIndexed() throws {
    let harness = try linkedHarness("rows")
    let fileSystem = FaultInjectingFileSystem()
    let (context, _) = try harness.openIndexed(fileSystem: fileSystem, now: Harness.lateClock)
    let target = try #require(try context.document(named: "Doc 1.1", in: categoryID(context, 1)))
    let expected = try context.backlinks(to: target.id).map(\.lineText)  // indexes the links
    fileSystem.arm(nil)
    let answer = try context.backlinks(to: target.id).map(\.lineText)
    fileSystem.disarm()
    #expect(answer == expected && answer.count == 4)
    #expect(!fileSystem.calls.contains { $0 == "pread" || $0 == "read" }, "\(fileSystem.calls)")
  }

  /// While the index is racily clean (the file may have changed in the instant it was
  /// indexed), the rows say which documents link and the file gives their lines; otherwise
  /// the rows give them.
  @Test(arguments: [false, true])
  func aRacilyCleanIndexShowsTheLinesOfTheFile(racy: Bool) throws {
    let harness = try linkedHarness("racy\(racy)")
    var clock = Harness.lateClock
    if racy {
      try FileManager.default.removeItem(atPath: harness.cachePath)
      let modified = try status(of: harness.storePath).modificationNanoseconds
      clock = { modified }
    }
    let (context, store) = try harness.openIndexed(now: clock)
    let target = try #require(try context.document(named: "Doc 1.1", in: categoryID(context, 1)))
    let expected = try context.backlinks(to: target.id).map(\.lineText)
    #expect(expected.contains("then [[Doc 1.1]]"))
    // Rows that no longer say what the file holds, as a change in that instant leaves them.
    try sqlite(
      try #require(store.indexPath),
      "UPDATE links SET line_text = replace(line_text, 'then', 'THEN')")
    let answer = try context.backlinks(to: target.id).map(\.lineText)
    #expect(answer.contains("then [[Doc 1.1]]") == racy)
    #expect(answer.contains("THEN [[Doc 1.1]]") == !racy)
  }

  /// A name other spellings equal (NFD for NFC, U+037E for `;`) is not found by the bytes
  /// of its key: its links are found among every link, as names compare.
  @Test(arguments: [("Caf\u{E9}", "Cafe\u{301}"), ("a;b", "a\u{37E}b"), ("Plan", "PLAN")])
  func backlinksFindEverySpellingOfAName(name: String, written: String) throws {
    let harness = try Harness("spelled")
    let plain = try harness.openContext()
    let category = try plain.createCategory(named: "Cat")
    let named = try plain.createDocument(named: name, in: category.id, content: "x")
    try plain.createDocument(named: "From", in: category.id, content: "see [[\(written)]]")
    let other = try plain.createCategory(named: "Other")
    try plain.createDocument(named: "Far", in: other.id, content: "and [[Cat/\(written)]]")
    try plain.save()
    _ = try harness.openIndexed(now: Harness.lateClock)
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    let found = try context.backlinks(to: named.id).map { "\($0.source.name): \($0.lineText)" }
    #expect(found == ["From: see [[\(written)]]", "Far: and [[Cat/\(written)]]"])
    #expect(try harness.openContext().backlinks(to: named.id).map(\.lineText).count == 2)
  }

  /// A bare name from another category links only while no other document has the name:
  /// one made in this session counts, and so does one the index holds, without reading it.
  @Test func aBareNameFromAnotherCategoryLinksWhileTheNameIsUnique() throws {
    let harness = try linkedHarness("unique")
    func sources(_ context: Context) throws -> [String] {
      let target = try #require(try context.document(named: "Doc 1.1", in: categoryID(context, 1)))
      return try context.backlinks(to: target.id).map { "\($0.source.name):\($0.link.line)" }
    }
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    #expect(try sources(context) == ["Doc 0.0:1", "Doc 0.0:2", "Doc 1.1:2", "Doc 1.2:2"])
    try context.createDocument(named: "doc 1.1", in: categoryID(context, 2), content: "twin")
    let expected = ["Doc 0.0:1", "Doc 1.1:2", "Doc 1.2:2"]
    #expect(try sources(context) == expected)
    try context.save()
    let (reopened, _) = try harness.openIndexed(now: Harness.lateClock)
    #expect(try sources(reopened) == expected)
    #expect(reopened.categories().allSatisfy { !reopened.isLoaded($0.id) })
  }

  /// A document changed since the save links as the session has it, whatever its rows say.
  @Test func backlinksOfAChangedDocumentAreItsSessionsLinks() throws {
    let harness = try linkedHarness("changed")
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    let target = try #require(try context.document(named: "Doc 1.1", in: categoryID(context, 1)))
    _ = try context.backlinks(to: target.id)  // indexes the links
    let linking = try #require(try context.document(named: "Doc 1.2", in: categoryID(context, 1)))
    try context.setContent("now [[Doc 1.1#Else]]\nand [[Doc 1.1]]", of: linking.id)
    let unlinked = try #require(try context.document(named: "Doc 0.0", in: categoryID(context, 0)))
    try context.setContent("no link", of: unlinked.id)
    let found = try context.backlinks(to: target.id).map {
      "\($0.source.name):\($0.link.line): \($0.lineText)"
    }
    #expect(
      found == [
        "Doc 1.1:2: [[#Part]]", "Doc 1.2:1: now [[Doc 1.1#Else]]", "Doc 1.2:2: and [[Doc 1.1]]",
      ])
  }

  @Test func theDocumentsOfANameComeFromEveryCategory() throws {
    let harness = try Harness()
    try harness.seed { _, _ in "text" }
    let plain = try harness.openContext()
    try plain.createDocument(named: "doc 0.1", in: categoryID(plain, 2), content: "twin")
    try plain.save()
    _ = try harness.openIndexed(now: Harness.lateClock)
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    _ = try context.documents(in: categoryID(context, 2))  // one loaded, two from the index
    var names = DocumentsByName()
    let found = try context.documents(named: try Name("Doc 0.1"), names: &names)
    #expect(found.map(\.name.text) == ["Doc 0.1", "doc 0.1"])
    #expect(!context.isLoaded(try categoryID(context, 0)))
  }

  /// Keys that other spellings equal (NFD for NFC; U+037E for `;`) are not found by their
  /// bytes: the category's documents answer.
  @Test(arguments: [
    ("Cafe\u{301}", "Caf\u{E9}"), ("a\u{37E}b", "a;b"), ("Caf\u{E9}", "CAFE\u{301}"),
  ])
  func aNameIsFoundInEverySpellingEqualToIt(stored: String, typed: String) throws {
    let harness = try Harness("spelling")
    let plain = try harness.openContext()
    let category = try plain.createCategory(named: "Cat")
    try plain.createDocument(named: stored, in: category.id, content: "x")
    try plain.createCategory(named: "Other")
    try plain.save()
    _ = try harness.openIndexed(now: Harness.lateClock)
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    #expect(try context.document(named: typed, in: category.id)?.name.text == stored)
    var names = DocumentsByName()
    #expect(try context.documents(named: try Name(typed), names: &names).count == 1)
  }

  /// While the index is racily clean, a name is looked up in its category's documents as
  /// the file holds them: a name rewritten in place, same size and time, is seen.
  @Test func aRacilyCleanIndexResolvesNamesAsTheFileHoldsThem() throws {
    let harness = try Harness()
    try harness.seed()
    let clock = try harness.rewriteRacilyClean("Doc 1.1", with: "Doc 1.9")
    let (context, _) = try harness.openIndexed(now: clock)
    let category = try categoryID(context, 1)
    #expect(try context.document(named: "Doc 1.9", in: category) != nil)
    #expect(try context.document(named: "Doc 1.1", in: category) == nil)
  }

  @Test func tagsComeFromTheTagRowsAndAgreeWithTheFile() throws {
    let harness = try linkedHarness("tags")
    let expected = try harness.openContext().tags()
    #expect(expected == [TagCount(tag: try DocsKit.Tag("Project/Bench"), count: 1)])
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    #expect(try context.tags() == expected)
    #expect(try context.documents(taggedWith: []).map(\.name.text) == ["Doc 2.3"])
    #expect(context.categories().allSatisfy { !context.isLoaded($0.id) })
  }

  /// A document saved with a tag into an indexed store gets the rows of its tag with its
  /// own: at the next open it is found by the tag from the rows, no category read.
  @Test func aNewTaggedDocumentIsFoundByItsTagAfterTheSave() throws {
    let harness = try linkedHarness("newtag")
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    let made = try context.createDocument(named: "Tagged", in: categoryID(context, 0), content: "x")
    try context.tag([made.id], with: [try DocsKit.Tag("Fresh/One")])
    try context.save()
    let (reopened, store) = try harness.openIndexed(now: Harness.lateClock)
    #expect(store.indexState == .trusted)
    let found = try reopened.documents(taggedWith: [try DocsKit.Tag("fresh/one")])
    #expect(found.map(\.name.text) == ["Tagged"])
    #expect(reopened.categories().allSatisfy { !reopened.isLoaded($0.id) })
  }

  @Test(arguments: [
    (0, "one\r\ntwo", "one"), (5, "one\r\ntwo", "two"), (7, "one\r\ntwo", "two"),
    (8, "one\ntwo\n", ""), (0, "", ""), (2, "a\n\nb", ""), (3, "a\n\nb", "b"),
    (1, "a\rb\r\r\n", "a\rb\r"),
  ])
  func aLineIsCutAsGrepCutsIt(position: Int, text: String, line: String) {
    var text = text
    let cut = text.withUTF8 {
      DocumentLink.line(around: position, inUTF8: UnsafeRawBufferPointer($0))
    }
    #expect(cut.text == line)
    #expect(text.utf8.dropFirst(cut.start).starts(with: line.utf8))
  }

  @Test(arguments: [
    ("document 00042", "00042", true), ("document 00042", "0043", false),
    ("café", "fé", true), ("cafe\u{301}", "e", false), ("abc", "", false), ("ab", "abc", false),
  ])
  func aKeyContainsWhatStringContainsFinds(key: String, needle: String, found: Bool) {
    #expect(NameKey(key).contains(needle) == found)
    #expect(NameKey(key).contains(needle) == NameKey(key).folded.contains(needle))
  }
}

@Suite struct SQLiteColumnsTests {
  /// Columns are tried from the one after the last found; any order of reading, and a name
  /// two columns share, still find the first column of that name.
  @Test func aColumnIsFoundByItsNameInAnyOrderOfReading() {
    let columns = SQLiteColumns(names: ["a", "b", "a", "c"])
    #expect(columns.index(of: "a") == 0)
    #expect(columns.index(of: "b") == 1)
    #expect(columns.index(of: "a") == 0)
    #expect(columns.index(of: "c") == 3)
    #expect(columns.index(of: "b") == 1)
    #expect(columns.index(of: "d") == nil)
    #expect(columns.index(of: "c") == 3)
  }
}

extension SQLiteColumnsTests {
  /// Rows read in an order other than the statement's still find every column, row after row.
  @Test func rowsReadInAnotherOrderFindTheirColumns() {
    let columns = SQLiteColumns(names: ["id", "uuid", "name", "size"])
    for _ in 0..<3 {
      #expect(columns.index(of: "uuid") == 1)
      #expect(columns.index(of: "size") == 3)
      #expect(columns.index(of: "size") == 3)
      #expect(columns.index(of: "id") == 0)
      #expect(columns.index(of: "name") == 2)
    }
  }
}
