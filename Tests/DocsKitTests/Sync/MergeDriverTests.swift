import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// `docsh --merge-file BASE CURRENT OTHER`: three files merged, the result written into
/// CURRENT; anything that is not a store refused with CURRENT untouched.
@Suite struct MergeDriverTests {
  static let date = MergeDate(year: 2026, month: 5, day: 1)
  let folder: TemporaryFolder
  let base: String
  let current: String
  let other: String

  init() throws {
    folder = try TemporaryFolder("mergedriver")
    base = folder.path("base")
    current = folder.path(".merge_file_current")
    other = folder.path("other")
  }

  func write(_ store: StoreSnapshot, to path: String) throws {
    try Data(store.encoded()).write(to: URL(fileURLWithPath: path))
  }

  func read(_ path: String) throws -> StoreSnapshot {
    try StoreSnapshot(bytes: bytes(at: path), name: path)
  }

  @Test func threeStoresAreMergedIntoCurrentWithTheConflictsReturned() throws {
    let start = try StoreMergeTests.base()
    var mine = start
    mine.categories[0].documents[0].content = "mine"
    mine.generation = 7
    var theirs = start
    theirs.categories[0].documents[0].content = "theirs"
    theirs.categories[1].documents[0].content = "list theirs"
    theirs.generation = 9
    try write(start, to: base)
    try write(mine, to: current)
    try write(theirs, to: other)
    chmod(current, 0o640)

    let conflicts = try MergeDriver.mergeFiles(
      base: base, current: current, other: other, date: Self.date)

    let merged = try read(current)
    #expect(merged.generation == 10)
    #expect(
      merged.contentsByPath == [
        "Work/Plan": "mine", "Work/Plan (conflict 2026-05-01)": "theirs",
        "Work/Notes": "notes 0\n", "Home/List": "list theirs",
      ])
    #expect(conflicts.count == 1)
    #expect(conflicts.first?.path == "Work/Plan")
    #expect(try status(of: current).permissions == 0o640)
    #expect(try folder.entries() == [".merge_file_current", "base", "other"])
    // BASE and OTHER are read, never written.
    #expect(try read(other) == theirs)
  }

  @Test func anEmptyBaseIsAnEmptyStore() throws {
    let mine = try makeStore(
      2, [TestCategory(id: 1, name: "A", documents: [TestDocument(id: 2, name: "x", content: "1")])]
    )
    let theirs = try makeStore(
      3, [TestCategory(id: 5, name: "B", documents: [TestDocument(id: 6, name: "y", content: "2")])]
    )
    #expect(FileManager.default.createFile(atPath: base, contents: Data()))
    try write(mine, to: current)
    try write(theirs, to: other)
    let conflicts = try MergeDriver.mergeFiles(
      base: base, current: current, other: other, date: Self.date)
    #expect(conflicts.isEmpty)
    #expect(try read(current).contentsByPath == ["A/x": "1", "B/y": "2"])
  }

  static let valid =
    "{\"format\":\"docsh-store\",\"version\":1,\"generation\":1,\"categories\":[]}\n"

  /// Inputs that are not docsh stores, and the role they are given.
  static let notStores: [(label: String, role: MergeFileRole, text: String)] = [
    (
      "conflict markers", .current,
      "{\"format\":\"docsh-store\",\"version\":1,\n<<<<<<< ours\n\"generation\":3,\n=======\n\"generation\":4,\n>>>>>>> theirs\n\"categories\":[]}\n"
    ),
    ("another format", .other, "{\"format\":\"something-else\",\"version\":1}"),
    ("cut short", .other, String(valid.prefix(40))),
    ("an empty CURRENT", .current, ""),
    ("an empty OTHER", .other, ""),
    ("plain text", .base, "just some notes\n"),
    (
      "a newer version", .other,
      "{\"format\":\"docsh-store\",\"version\":3,\"generation\":1,\"categories\":[]}"
    ),
    (
      "a duplicate id", .current,
      "{\"format\":\"docsh-store\",\"version\":1,\"generation\":1,\"categories\":[{\"id\":\"00000000-0000-4000-8000-000000000001\",\"name\":\"A\",\"documents\":[]},{\"id\":\"00000000-0000-4000-8000-000000000001\",\"name\":\"B\",\"documents\":[]}]}"
    ),
  ]

  @Test(arguments: notStores.indices)
  func anInputThatIsNotAStoreIsRefusedAndCurrentStaysByteForByte(index: Int) throws {
    let (label, role, text) = Self.notStores[index]
    let good = try StoreMergeTests.base()
    try write(good, to: base)
    try write(good, to: current)
    try write(good, to: other)
    let path = [MergeFileRole.base: base, .current: current, .other: other][role] ?? base
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let before = try bytes(at: current)

    do {
      _ = try MergeDriver.mergeFiles(base: base, current: current, other: other, date: Self.date)
      Issue.record("\(label): merged")
    } catch {
      #expect(error.isNotAStore, "\(label): \(error)")
      guard case .notAStore(let refused, _) = error else { return }
      #expect(refused == role, "\(label)")
      #expect("\(error)".hasPrefix(role.rawValue + " is not a docsh store: "), "\(label)")
    }
    #expect(try bytes(at: current) == before, "\(label)")
    #expect(try folder.entries() == [".merge_file_current", "base", "other"], "\(label)")
  }

  @Test func conflictMarkersAreNamedAsSuch() throws {
    try Data(Self.notStores[0].text.utf8).write(to: URL(fileURLWithPath: current))
    try write(.empty, to: base)
    try write(.empty, to: other)
    #expect(
      throws: MergeFileError.notAStore(
        .current, .invalidStore(current, reason: "it holds the conflict markers of a text merge"))
    ) {
      try MergeDriver.mergeFiles(base: base, current: current, other: other, date: Self.date)
    }
  }

  @Test func aMissingInputIsUnreadableAndCurrentStays() throws {
    try write(.empty, to: current)
    try write(.empty, to: other)
    let before = try bytes(at: current)
    #expect(throws: MergeFileError.unreadable(.base, path: base, errno: ENOENT)) {
      try MergeDriver.mergeFiles(base: base, current: current, other: other, date: Self.date)
    }
    #expect(try bytes(at: current) == before)
  }
}
