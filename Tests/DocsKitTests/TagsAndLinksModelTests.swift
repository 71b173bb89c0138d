import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Tags and links in the model: validation and keys, the inverse kept by the context, undo,
/// change tracking, the merge of two sessions, the parsing of links.
@Suite struct TagsAndLinksModelTests {
  let folder: URL
  let path: String

  init() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("docsh-tags-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    path = folder.appendingPathComponent("store.json").path
    let seed = try Context(store: JSONStore(path: path))
    let work = try seed.createCategory(named: "Work")
    try seed.createDocument(named: "X", in: work.id, content: "x0")
    try seed.createDocument(named: "Y", in: work.id, content: "y0")
    try seed.save()
  }

  func open() throws -> Context { try Context(store: JSONStore(path: path)) }

  func document(_ context: Context, _ name: String) throws -> Document {
    let category = try #require(context.category(named: "Work"))
    return try #require(try context.document(named: name, in: category.id))
  }

  func tags(_ names: String...) throws -> [DocsKit.Tag] { try names.map { try DocsKit.Tag($0) } }

  // MARK: - Tags

  @Test(arguments: ["a", "project/docsh", "Café", "v1_2-3", "日本語", "#hash"])
  func acceptsWords(_ text: String) throws {
    #expect(try DocsKit.Tag(text).text == (text.hasPrefix("#") ? String(text.dropFirst()) : text))
  }

  @Test(arguments: ["", "#", "a b", "a.b", "/a", "a/", "a//b", "a\u{0}", "a\"b", "a,b"])
  func refusesWhatIsNoWord(_ text: String) {
    #expect(throws: TagError.self) { try DocsKit.Tag(text) }
  }

  @Test func keysIgnoreCaseAndAccents() throws {
    #expect(try DocsKit.Tag("Café").key == DocsKit.Tag("CAFE").key)
    #expect(try DocsKit.Tag("cafe\u{301}").key == DocsKit.Tag("café").key)
    #expect(try DocsKit.Tag("a").key != DocsKit.Tag("b").key)
  }

  @Test func theInverseFollowsEveryChangeAndUndo() throws {
    let context = try open()
    let x = try document(context, "X")
    let y = try document(context, "Y")
    try context.tag([x.id, y.id], with: tags("t"))
    #expect(try context.documents(taggedWith: tags("T")).map(\.name.text) == ["X", "Y"])
    try context.deleteDocument(y.id)
    #expect(try context.tags().map(\.count) == [1])
    try context.untag([x.id], removing: tags("t"))
    // A tag no document holds is gone.
    #expect(try context.tags().isEmpty)
    try context.undo()
    try context.undo()
    #expect(try context.tags() == [TagCount(tag: try DocsKit.Tag("t"), count: 2)])
  }

  @Test func taggingIsAChangeOfTagsAloneAndKeepsTheDate() throws {
    let context = try open()
    let x = try document(context, "X")
    try context.tag([x.id], with: tags("new"))
    let changes = try context.changes()
    #expect(changes.updatedDocuments.map(\.properties) == [[.tags]])
    #expect(try document(context, "X").modified == x.modified)
    try context.untag([x.id], removing: tags("new"))
    #expect(try !context.hasChanges)
  }

  @Test func aTagTakesTheSpellingAnotherDocumentHolds() throws {
    let context = try open()
    try context.tag([try document(context, "X").id], with: tags("Swift"))
    try context.tag([try document(context, "Y").id], with: tags("SWIFT"))
    #expect(try document(context, "Y").tags.map(\.text) == ["Swift"])
  }

  @Test func twoSessionsAddingTagsKeepBothAndARemovalHolds() throws {
    let seed = try open()
    try seed.tag([try document(seed, "X").id], with: tags("shared", "gone"))
    try seed.save()
    let mine = try open()
    let theirs = try open()
    try theirs.tag([try document(theirs, "X").id], with: tags("theirs"))
    try theirs.untag([try document(theirs, "X").id], removing: tags("gone"))
    try theirs.save()
    try mine.tag([try document(mine, "X").id], with: tags("mine"))
    try mine.save()
    #expect(mine.conflicts.isEmpty)
    #expect(try document(open(), "X").tags.map(\.text) == ["mine", "shared", "theirs"])
  }

  @Test func theThreeWayMergeOfTagsIsPerElement() throws {
    let (a, b, c, d) = (
      try DocsKit.Tag("a"), try DocsKit.Tag("b"), try DocsKit.Tag("c"), try DocsKit.Tag("d")
    )
    #expect(DocsKit.Tag.merged(base: [a, b], current: [a, b, c], other: [b, d]) == [b, c, d])
    #expect(DocsKit.Tag.merged(base: nil, current: [a], other: [b]) == [a, b])
    #expect(DocsKit.Tag.merged(base: [a], current: [], other: [a]) == [])
  }

  @Test func tagsRoundTripThroughTheStoreFile() throws {
    let context = try open()
    try context.tag([try document(context, "X").id], with: tags("z", "A", "m/n"))
    try context.save()
    #expect(try document(open(), "X").tags.map(\.text) == ["A", "m/n", "z"])
  }

  // MARK: - Links

  @Test func parsesLinksWithTheirLinesAndShownText() {
    let links = DocumentLink.links(
      in: "a [[One]] b\n[[Work/Two|two]] [[ bad/ /x ]] [[]] [[a/b/c]]\n[[[Three]]] [[no\nend]]")
    #expect(links.map(\.target) == ["One", "Work/Two", "Three"])
    #expect(links.map(\.line) == [1, 2, 3])
    #expect(links.map(\.shownText) == [nil, "two", nil])
  }

  @Test func rewritingReplacesOnlyTheTargets() {
    let text = "x [[Old|shown]] y [[Old]]"
    let links = DocumentLink.links(in: text)
    #expect(
      Context.rewriting(text, links.map { ($0, "Work/New") })
        == "x [[Work/New|shown]] y [[Work/New]]")
  }

  @Test func unsavedTagsSurviveTheRecoveryJournal() throws {
    let context = try open()
    try context.tag([try document(context, "X").id], with: tags("kept", "b/c"))
    let record = RecoveryRecord(
      storeIdentity: path, processID: 1, started: TestClock.reading(1),
      written: TestClock.reading(2), pending: try context.pendingChanges())
    let decoded = try RecoveryFileFormat.decode(RecoveryFileFormat.encode(record))
    #expect(decoded == record)
    let fresh = try open()
    try fresh.recover(decoded.pending)
    #expect(try document(fresh, "X").tags.map(\.text) == ["b/c", "kept"])
  }

  @Test func backlinksShowTheLineAsGrepSplitsIt() throws {
    let context = try open()
    let work = try #require(context.category(named: "Work"))
    try context.createDocument(named: "Z", in: work.id, content: "one\r\ntwo [[X]]\r\nthree")
    let backlinks = try context.backlinks(to: try document(context, "X").id)
    #expect(backlinks.map(\.lineText) == ["two [[X]]"])
    #expect(backlinks.map(\.link.line) == [2])
  }
}
