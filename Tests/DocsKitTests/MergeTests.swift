import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Two sessions on one store: a save after the other session's merges three-way.
@Suite struct MergeTests {
  let folder: URL
  let path: String

  init() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("docsh-merge-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    path = folder.appendingPathComponent("store.json").path
    let seed = try Context(store: JSONStore(path: path))
    let work = try seed.createCategory(named: "Work")
    try seed.createDocument(named: "X", in: work.id, content: "x0")
    try seed.createDocument(named: "Y", in: work.id, content: "y0")
    try seed.createCategory(named: "Old")
    try seed.save()
  }

  func open() throws -> Context { try Context(store: JSONStore(path: path)) }

  func document(_ context: Context, _ category: String, _ name: String) throws -> Document {
    let category = try #require(context.category(named: category))
    return try #require(try context.document(named: name, in: category.id))
  }

  func onDisk() throws -> Context { try open() }

  @Test func changesToDifferentPropertiesCombine() throws {
    let mine = try open()
    let theirs = try open()
    try theirs.renameDocument(try document(theirs, "Work", "X").id, to: "X renamed")
    try theirs.save()
    try mine.setContent("x mine", of: try document(mine, "Work", "X").id)
    try mine.save()
    let result = try onDisk()
    #expect(try result.content(of: try document(result, "Work", "X renamed").id) == "x mine")
    #expect(result.generation == 3)
    #expect(mine.conflicts.isEmpty)
    #expect(try !mine.hasChanges)
  }

  @Test func aTouchSurvivesTheOtherSessionsSave() throws {
    // Mine's clock runs a day ahead, so its touch is the later date for certain.
    let clock = TestClock(start: Timestamp.now().millisecondsSince1970 + 86_400_000)
    let mine = try Context(store: JSONStore(path: path), clock: clock.now)
    let theirs = try open()
    try theirs.setContent("y theirs", of: try document(theirs, "Work", "Y").id)
    try theirs.save()
    let touched = try mine.touchDocument(try document(mine, "Work", "X").id)
    try mine.save()
    let result = try onDisk()
    #expect(try document(result, "Work", "X").modified == touched.modified)
    #expect(try result.content(of: try document(result, "Work", "Y").id) == "y theirs")
    #expect(try !mine.hasChanges)
  }

  @Test func aTouchOfWhatTheOtherChangedKeepsTheirContentAndTheLaterDate() throws {
    let clock = TestClock(start: Timestamp.now().millisecondsSince1970 + 86_400_000)
    let mine = try Context(store: JSONStore(path: path), clock: clock.now)
    let theirs = try open()
    try theirs.setContent("x theirs", of: try document(theirs, "Work", "X").id)
    try theirs.save()
    let touched = try mine.touchDocument(try document(mine, "Work", "X").id)
    try mine.save()
    let result = try onDisk()
    let x = try document(result, "Work", "X")
    #expect(try result.content(of: x.id) == "x theirs")
    #expect(x.modified == touched.modified)
    #expect(mine.conflicts.isEmpty)
  }

  @Test func deletionsOfUntouchedObjectsAndEditsElsewhereCombine() throws {
    let mine = try open()
    let theirs = try open()
    try theirs.deleteDocument(try document(theirs, "Work", "Y").id)
    try theirs.createDocument(
      named: "Z", in: try #require(theirs.category(named: "Work")).id, content: "z")
    try theirs.save()
    try mine.setContent("x mine", of: try document(mine, "Work", "X").id)
    try mine.deleteCategory(try #require(mine.category(named: "Old")).id)
    try mine.save()
    let result = try onDisk()
    let work = try #require(result.category(named: "Work"))
    #expect(try result.documents(in: work.id).map(\.name.text) == ["X", "Z"])
    #expect(result.category(named: "Old") == nil)
    #expect(try result.content(of: try document(result, "Work", "X").id) == "x mine")
  }

  @Test func bothChangingOneContentIsAConflictUntilMineIsChosen() throws {
    let mine = try open()
    let theirs = try open()
    try theirs.setContent("theirs", of: try document(theirs, "Work", "X").id)
    try theirs.save()
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    try mine.setContent("mine", of: try document(mine, "Work", "X").id)
    #expect(throws: ContextError.self) { try mine.save() }
    #expect(mine.conflicts == [MergeConflict(path: "Work/X", kind: .bothChanged("content"))])
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    #expect(try mine.hasChanges)
    // A plain save still refuses; --mine settles it.
    #expect(throws: ContextError.self) { try mine.save() }
    try mine.save(keepingMine: true)
    let result = try onDisk()
    #expect(try result.content(of: try document(result, "Work", "X").id) == "mine")
  }

  /// Work/X set to `content` and saved.
  func seedContent(_ content: String) throws {
    let seed = try open()
    try seed.setContent(content, of: try document(seed, "Work", "X").id)
    try seed.save()
  }

  static let paragraphs = "First paragraph.\n\nSecond, line one.\nSecond, line two.\n\nThird.\n"

  @Test func editsOfDifferentParagraphsAreBothSaved() throws {
    try seedContent(Self.paragraphs)
    let mine = try open()
    let theirs = try open()
    try theirs.setContent(
      "First paragraph, theirs.\n\nSecond, line one.\nSecond, line two.\n\nThird.\n",
      of: try document(theirs, "Work", "X").id)
    try theirs.save()
    try mine.setContent(
      "First paragraph.\n\nSecond, line one.\nSecond, line two.\n\nThird, mine.\n",
      of: try document(mine, "Work", "X").id)
    try mine.save()
    #expect(mine.conflicts.isEmpty)
    let merged =
      "First paragraph, theirs.\n\nSecond, line one.\nSecond, line two.\n\nThird, mine.\n"
    let result = try onDisk()
    let x = try document(result, "Work", "X")
    #expect(try result.content(of: x.id) == merged)
    #expect(x.size == merged.utf8.count)
    #expect(try mine.content(of: try document(mine, "Work", "X").id) == merged)
    #expect(try !mine.hasChanges)
  }

  @Test func linesAppendedByBothAreBothSavedMineFirst() throws {
    try seedContent("log\n")
    let mine = try open()
    let theirs = try open()
    try theirs.setContent("log\ntheirs\n", of: try document(theirs, "Work", "X").id)
    try theirs.save()
    try mine.setContent("log\nmine\n", of: try document(mine, "Work", "X").id)
    try mine.save()
    #expect(mine.conflicts.isEmpty)
    let result = try onDisk()
    #expect(try result.content(of: try document(result, "Work", "X").id) == "log\nmine\ntheirs\n")
  }

  @Test func editsOfOneLineInALongerTextStillConflict() throws {
    try seedContent(Self.paragraphs)
    let mine = try open()
    let theirs = try open()
    try theirs.setContent(
      "First paragraph.\n\nSecond, theirs.\nSecond, line two.\n\nThird, theirs.\n",
      of: try document(theirs, "Work", "X").id)
    try theirs.save()
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let myText = "First paragraph.\n\nSecond, mine.\nSecond, line two.\n\nThird.\n"
    try mine.setContent(myText, of: try document(mine, "Work", "X").id)
    #expect(throws: ContextError.self) { try mine.save() }
    #expect(mine.conflicts == [MergeConflict(path: "Work/X", kind: .bothChanged("content"))])
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    try mine.save(keepingMine: true)
    #expect(try (try onDisk()).content(of: try document(try onDisk(), "Work", "X").id) == myText)
  }

  @Test func revertTakesTheirsAfterAConflict() throws {
    let mine = try open()
    let theirs = try open()
    try theirs.setContent("theirs", of: try document(theirs, "Work", "X").id)
    try theirs.save()
    try mine.setContent("mine", of: try document(mine, "Work", "X").id)
    #expect(throws: ContextError.self) { try mine.save() }
    try mine.reload()
    #expect(try mine.content(of: try document(mine, "Work", "X").id) == "theirs")
    #expect(mine.conflicts.isEmpty)
    #expect(try !mine.hasChanges)
  }

  @Test func changingWhatTheOtherDeletedIsAConflict() throws {
    let mine = try open()
    let theirs = try open()
    try theirs.deleteDocument(try document(theirs, "Work", "X").id)
    try theirs.save()
    try mine.setContent("mine", of: try document(mine, "Work", "X").id)
    #expect(throws: ContextError.self) { try mine.save() }
    #expect(mine.conflicts == [MergeConflict(path: "Work/X", kind: .changedHereDeletedThere)])
    try mine.save(keepingMine: true)
    #expect(try (try onDisk()).content(of: try document(try onDisk(), "Work", "X").id) == "mine")
  }

  @Test func deletingWhatTheOtherChangedIsAConflict() throws {
    let mine = try open()
    let theirs = try open()
    try theirs.setContent("theirs", of: try document(theirs, "Work", "X").id)
    try theirs.save()
    try mine.deleteDocument(try document(mine, "Work", "X").id)
    #expect(throws: ContextError.self) { try mine.save() }
    #expect(mine.conflicts == [MergeConflict(path: "Work/X", kind: .deletedHereChangedThere)])
  }

  @Test func categoriesBothCreatedBecomeOne() throws {
    let mine = try open()
    let theirs = try open()
    let theirsNew = try theirs.createCategory(named: "New")
    try theirs.createDocument(named: "a", in: theirsNew.id, content: "a")
    try theirs.save()
    let mineNew = try mine.createCategory(named: "new")
    try mine.createDocument(named: "b", in: mineNew.id, content: "b")
    try mine.save()
    let result = try onDisk()
    let merged = try #require(result.category(named: "New"))
    #expect(result.categories().filter { $0.name.key == merged.name.key }.count == 1)
    #expect(try result.documents(in: merged.id).map(\.name.text) == ["a", "b"])
  }

  @Test func bothCreatingOneNameWithDifferentTextIsAConflict() throws {
    let mine = try open()
    let theirs = try open()
    try theirs.createDocument(
      named: "N", in: try #require(theirs.category(named: "Work")).id, content: "theirs")
    try theirs.save()
    try mine.createDocument(
      named: "n", in: try #require(mine.category(named: "Work")).id, content: "mine")
    #expect(throws: ContextError.self) { try mine.save() }
    #expect(mine.conflicts == [MergeConflict(path: "Work/n", kind: .bothChanged("content"))])
  }

  @Test func aNameTakenByTheOtherSessionIsNotSettledByMine() throws {
    let mine = try open()
    let theirs = try open()
    try theirs.createDocument(
      named: "Taken", in: try #require(theirs.category(named: "Work")).id, content: "t")
    try theirs.save()
    try mine.renameDocument(try document(mine, "Work", "X").id, to: "Taken")
    #expect(throws: ContextError.self) { try mine.save() }
    #expect(mine.conflicts.contains(MergeConflict(path: "Work/Taken", kind: .nameTaken)))
    #expect(throws: ContextError.self) { try mine.save(keepingMine: true) }
  }

  @Test func addingToACategoryTheOtherDeletedBringsItBackWithMine() throws {
    let mine = try open()
    let theirs = try open()
    try theirs.deleteCategory(try #require(theirs.category(named: "Old")).id)
    try theirs.save()
    try mine.createDocument(
      named: "kept", in: try #require(mine.category(named: "Old")).id, content: "k")
    #expect(throws: ContextError.self) { try mine.save() }
    #expect(mine.conflicts == [MergeConflict(path: "Old/", kind: .changedHereDeletedThere)])
    try mine.save(keepingMine: true)
    #expect(try (try onDisk()).content(of: try document(try onDisk(), "Old", "kept").id) == "k")
  }
}
