import DocsKit
import DocsTestSupport
import Foundation
import Testing

/// `docsh --merge-file BASE CURRENT OTHER [PATH]`, the real binary: directly on three files,
/// and as the merge driver that `git merge` itself runs.
@Suite struct MergeFileTests {
  let folder: TemporaryFolder
  let base: String
  let current: String
  let other: String

  init() throws {
    folder = try TemporaryFolder("mergefile")
    base = folder.path("base.json")
    current = folder.path("current.json")
    other = folder.path("other.json")
  }

  /// Runs `docsh --merge-file` with `arguments`.
  func mergeFile(_ arguments: [String]) throws -> DocshProcess.Result {
    try DocshProcess.run(["--merge-file"] + arguments, home: folder.path("home"))
  }

  /// Opens the store at `path` with ids made after `firstID`, lets `body` change it, saves.
  func edit(_ path: String, idsAfter firstID: UInt64, _ body: (Context) throws -> Void) throws {
    let context = try Context(
      store: JSONStore(path: path), clock: TestClock().now,
      makeID: SequentialIDs(after: firstID).make)
    try body(context)
    try context.save()
    // The merge driver merges store files as git hands them over: whole, with no save log.
    try context.foldSaveLog()
  }

  /// Every category and document of the store at `path` (`Work/Plan` → content).
  func contents(_ path: String) throws -> [String: String] {
    let context = try Context(store: JSONStore(path: path))
    var result: [String: String] = [:]
    for category in context.categories() {
      result[category.name.text + "/"] = ""
      for document in try context.documents(in: category.id) {
        result[SyncMachine.withoutDates(category.name.text + "/" + document.name.text)] =
          try context.content(of: document.id)
      }
    }
    return result
  }

  /// The common ancestor: Work with Plan, Notes, Gone and Draft; Home with List; Old with Keep.
  func writeBase() throws {
    try edit(base, idsAfter: 0) { context in
      let work = try context.createCategory(named: "Work")
      for name in ["Plan", "Notes", "Gone", "Draft"] {
        try context.createDocument(named: name, in: work.id, content: name.lowercased())
      }
      let home = try context.createCategory(named: "Home")
      try context.createDocument(named: "List", in: home.id, content: "list")
      let old = try context.createCategory(named: "Old")
      try context.createDocument(named: "Keep", in: old.id, content: "keep")
    }
  }

  /// The document `name` of category `category`.
  func document(_ category: String, _ name: String, in context: Context) throws -> Document {
    let found = try #require(context.category(named: category))
    return try #require(try context.document(named: name, in: found.id))
  }

  /// CURRENT and OTHER changed from BASE so that every kind of conflict arises once.
  func writeEveryConflict() throws {
    try writeBase()
    try FileManager.default.copyItem(atPath: base, toPath: current)
    try FileManager.default.copyItem(atPath: base, toPath: other)
    try edit(current, idsAfter: 100) { context in
      let work = try #require(context.category(named: "Work"))
      try context.setContent("plan mine", of: try document("Work", "Plan", in: context).id)
      try context.setContent("notes mine", of: try document("Work", "Notes", in: context).id)
      try context.deleteDocument(try document("Work", "Gone", in: context).id)
      try context.createDocument(named: "New", in: work.id, content: "new mine")
      try context.createDocument(named: "Taken", in: work.id, content: "taken mine")
      try context.renameCategory(try #require(context.category(named: "Home")).id, to: "House")
      let old = try #require(context.category(named: "Old"))
      try context.createDocument(named: "Added", in: old.id, content: "added mine")
    }
    try edit(other, idsAfter: 200) { context in
      let work = try #require(context.category(named: "Work"))
      try context.setContent("plan theirs", of: try document("Work", "Plan", in: context).id)
      try context.deleteDocument(try document("Work", "Notes", in: context).id)
      try context.setContent("gone theirs", of: try document("Work", "Gone", in: context).id)
      try context.createDocument(named: "New", in: work.id, content: "new theirs")
      try context.renameDocument(try document("Work", "Draft", in: context).id, to: "Taken")
      try context.renameCategory(try #require(context.category(named: "Home")).id, to: "Casa")
      try context.deleteCategory(try #require(context.category(named: "Old")).id)
    }
  }

  /// In the merged store's order: categories first, then documents.
  static let everyConflict = [
    "House/: renamed on both sides (the other side named it Casa); kept this name",
    "Old/: changed here, deleted on the other side; kept",
    "Work/Plan: content changed on both sides; the other side's version is Work/Plan (conflict DATE)",
    "Work/Notes: changed here, deleted on the other side; kept",
    "Work/Taken: the name is taken in the merged store; renamed Work/Taken (conflict DATE)",
    "Work/Gone: deleted here, changed on the other side; kept",
    "Work/New: created on both sides; the other side's is Work/New (conflict DATE)",
  ]

  static let everyConflictMerged = [
    "Work/": "", "House/": "", "Old/": "", "Work/Plan": "plan mine",
    "Work/Plan (conflict DATE)": "plan theirs", "Work/Notes": "notes mine",
    "Work/Gone": "gone theirs", "Work/New": "new mine", "Work/New (conflict DATE)": "new theirs",
    "Work/Taken": "taken mine", "Work/Taken (conflict DATE)": "draft", "House/List": "list",
    "Old/Added": "added mine",
  ]

  @Test func threeStoresAreMergedIntoCurrentWithEveryConflictOnStandardError() throws {
    try writeEveryConflict()
    let baseBytes = try Data(contentsOf: URL(fileURLWithPath: base))
    let otherBytes = try Data(contentsOf: URL(fileURLWithPath: other))
    let entries = try folder.entries()
    let result = try mergeFile([base, current, other, "notes/store.json"])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output == "")
    let lines = SyncMachine.withoutDates(result.errors).split(separator: "\n").map(String.init)
    #expect(lines == Self.everyConflict.map { "docsh: conflict: " + $0 })
    #expect(try contents(current) == Self.everyConflictMerged)
    // BASE and OTHER are read, never written; nothing is left beside them.
    #expect(try Data(contentsOf: URL(fileURLWithPath: base)) == baseBytes)
    #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == otherBytes)
    #expect(try folder.entries() == entries)
  }

  @Test func changesOnDifferentThingsMergeWithoutAWord() throws {
    try writeBase()
    try FileManager.default.copyItem(atPath: base, toPath: current)
    try FileManager.default.copyItem(atPath: base, toPath: other)
    try edit(current, idsAfter: 100) { context in
      try context.setContent("plan mine", of: try document("Work", "Plan", in: context).id)
      try context.renameDocument(try document("Work", "Notes", in: context).id, to: "Minutes")
    }
    try edit(other, idsAfter: 200) { context in
      try context.setContent("notes theirs", of: try document("Work", "Notes", in: context).id)
      try context.deleteDocument(try document("Work", "Gone", in: context).id)
    }
    let result = try mergeFile([base, current, other])
    #expect(result.status == 0)
    #expect(result.errors == "")
    #expect(
      try contents(current) == [
        "Work/": "", "Home/": "", "Old/": "", "Work/Plan": "plan mine",
        "Work/Minutes": "notes theirs", "Work/Draft": "draft", "Home/List": "list",
        "Old/Keep": "keep",
      ])
  }

  @Test func editsOfDifferentLinesOfOneDocumentMergeWithoutAConflictCopy() throws {
    try edit(base, idsAfter: 0) { context in
      let work = try context.createCategory(named: "Work")
      try context.createDocument(named: "Plan", in: work.id, content: "one\ntwo\nthree\nfour\n")
      try context.createDocument(named: "Log", in: work.id, content: "start\n")
    }
    try FileManager.default.copyItem(atPath: base, toPath: current)
    try FileManager.default.copyItem(atPath: base, toPath: other)
    try edit(current, idsAfter: 100) { context in
      try context.setContent(
        "ONE\ntwo\nthree\nfour\n", of: try document("Work", "Plan", in: context).id)
      try context.setContent("start\nmine\n", of: try document("Work", "Log", in: context).id)
    }
    try edit(other, idsAfter: 200) { context in
      try context.setContent(
        "one\ntwo\nthree\nFOUR\n", of: try document("Work", "Plan", in: context).id)
      try context.setContent("start\ntheirs\n", of: try document("Work", "Log", in: context).id)
    }
    let result = try mergeFile([base, current, other])
    #expect(result.status == 0)
    #expect(result.errors == "")
    #expect(
      try contents(current) == [
        "Work/": "", "Work/Plan": "ONE\ntwo\nthree\nFOUR\n", "Work/Log": "start\nmine\ntheirs\n",
      ])
  }

  static let valid =
    "{\"format\":\"docsh-store\",\"version\":1,\"generation\":1,\"categories\":[]}\n"

  /// Inputs that are not docsh stores, and the file given them.
  static let notStores: [(label: String, role: String, text: String)] = [
    (
      "conflict markers of a text merge", "CURRENT",
      "{\"format\":\"docsh-store\",\"version\":1,\n<<<<<<< ours\n\"generation\":3,\n=======\n\"generation\":4,\n>>>>>>> theirs\n\"categories\":[]}\n"
    ),
    ("plain text", "OTHER", "shopping: milk, eggs\n"),
    ("an empty CURRENT", "CURRENT", ""),
    ("a store cut short", "OTHER", String(valid.prefix(40))),
    ("JSON of another program", "BASE", "{\"name\":\"package\",\"version\":\"1.0.0\"}\n"),
    (
      "a newer version", "OTHER",
      valid.replacingOccurrences(of: "\"version\":1", with: "\"version\":3")
    ),
  ]

  @Test(arguments: notStores.indices)
  func anInputThatIsNotAStoreExits3AndLeavesCurrentByteForByte(index: Int) throws {
    let (label, role, text) = Self.notStores[index]
    try writeBase()
    try FileManager.default.copyItem(atPath: base, toPath: current)
    try FileManager.default.copyItem(atPath: base, toPath: other)
    let path = ["BASE": base, "CURRENT": current, "OTHER": other][role] ?? base
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let before = try Data(contentsOf: URL(fileURLWithPath: current))
    let entries = try folder.entries()
    let result = try mergeFile([base, current, other, "store.json"])
    #expect(result.status == 3, "\(label)")
    #expect(result.output == "", "\(label)")
    #expect(result.errors.hasPrefix("docsh: error: \(role) is not a docsh store: "), "\(label)")
    #expect(result.errors.hasSuffix("; nothing was merged\n"), "\(label)")
    #expect(result.errors.split(separator: "\n").count == 1, "\(label)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: current)) == before, "\(label)")
    #expect(try folder.entries() == entries)
  }

  @Test func conflictMarkersAreNamedAsSuch() throws {
    try Data(Self.notStores[0].text.utf8).write(to: URL(fileURLWithPath: current))
    try Data(Self.valid.utf8).write(to: URL(fileURLWithPath: base))
    try Data(Self.valid.utf8).write(to: URL(fileURLWithPath: other))
    let result = try mergeFile([base, current, other])
    #expect(result.status == 3)
    #expect(result.errors.contains("it holds the conflict markers of a text merge"))
  }

  @Test func aMissingFileFailsAndAWrongNumberOfFilesIsABadInvocation() throws {
    try Data(Self.valid.utf8).write(to: URL(fileURLWithPath: current))
    try Data(Self.valid.utf8).write(to: URL(fileURLWithPath: other))
    let missing = try mergeFile([base, current, other])
    #expect(missing.status == 1)
    #expect(
      missing.errors
        == "docsh: error: BASE \(base): cannot be read: No such file or directory; nothing was merged\n"
    )
    #expect(try String(contentsOfFile: current, encoding: .utf8) == Self.valid)
    let two = try mergeFile([current, other])
    #expect(two.status == 2)
    #expect(
      two.errors.hasPrefix(
        "docsh: --merge-file takes BASE CURRENT OTHER and optionally PATH, as git's %O %A %B %P\n"))
  }
}
