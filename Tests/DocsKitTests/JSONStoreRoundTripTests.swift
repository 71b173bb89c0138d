import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

@Suite struct JSONStoreRoundTripTests {
  static let awkwardContents: [String] = [
    "",
    "plain",
    "Café crème, naïve, Ångström, e\u{301} (NFD)",
    "日本語のテキスト 中文 한국어",
    "😀 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 𝄞",
    "line 1\nline 2\n\nline 4\n",
    "windows\r\nline\r\n",
    "\"quoted\" and 'single'",
    "back\\slash \\\\ double \\n not a newline \\u0041",
    "tab\there\ttoo",
    "controls \u{0} \u{1} \u{8} \u{B} \u{C} \u{1B}[0m \u{1F} \u{7F} \u{85}",
    "separators \u{2028} \u{2029} bom \u{FEFF} rlo \u{202E}",
    "slash / and </script>",
    "{\"content\":\"not really\",\"size\":3}",
    "\\",
    "\"",
    "ends with backslash \\",
    " ",
  ]

  @Test(arguments: awkwardContents)
  func contentRoundTripsExactly(content: String) throws {
    let harness = try Harness()
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    let document = try context.createDocument(named: "Doc", in: work.id, content: content)
    try context.save()
    // From the same context (now a fault into the new file) …
    #expect(Array(try context.content(of: document.id).utf8) == Array(content.utf8))
    // … and from a fresh one.
    let reloaded = try harness.openContext()
    #expect(Array(try reloaded.content(of: document.id).utf8) == Array(content.utf8))
    #expect(try reloaded.document(withID: document.id)?.size == content.utf8.count)
    // Another JSON reader agrees.
    let json = try jsonObject(at: harness.storePath)
    let categories = try #require(json["categories"] as? [[String: Any]])
    let documents = try #require(categories.first?["documents"] as? [[String: Any]])
    let text = try #require(documents.first?["content"] as? String)
    #expect(Array(text.utf8) == Array(content.utf8))
  }

  @Test(arguments: [
    "with spaces", "\"quoted\"", "it's", "back\\slash", "Café", "Cafe\u{301}", "日本", "👍🏽 ok",
    "{braces}", "tab-less, comma", String(repeating: "é", count: 127),
  ])
  func namesRoundTripAsTyped(name: String) throws {
    let harness = try Harness()
    let context = try harness.openContext()
    let category = try context.createCategory(named: name)
    let document = try context.createDocument(named: name, in: category.id, content: "x")
    try context.save()
    let reloaded = try harness.openContext()
    #expect(
      reloaded.category(withID: category.id).map { Array($0.name.text.unicodeScalars) }
        == Array(name.unicodeScalars))
    #expect(
      try reloaded.document(withID: document.id).map { Array($0.name.text.unicodeScalars) }
        == Array(name.unicodeScalars))
  }

  @Test func aMegabyteContentRoundTripsIncludingAcrossTheReadersBuffer() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    // Escapes (backslashes, quotes, newlines) all the way through, so some fall on the
    // reader's 1 MiB buffer boundary whatever the exact offsets are.
    var content = ""
    var generator = SeededGenerator(seed: 7)
    while content.utf8.count < 1 << 20 {
      content +=
        ["abc", "\\", "\"", "\n", "é", "\\\\\"", "👍🏽", String(repeating: "\\", count: 5)]
        .randomElement(using: &generator) ?? ""
    }
    let big = try context.createDocument(named: "Big", in: work.id, content: content)
    let after = try context.createDocument(named: "After", in: work.id, content: "after \"it\"")
    try context.save()
    let reloaded = try harness.openContext()
    #expect(try reloaded.content(of: big.id) == content)
    #expect(try reloaded.document(withID: big.id)?.size == content.utf8.count)
    #expect(try reloaded.content(of: after.id) == "after \"it\"")
    #expect(try reloaded.document(withID: after.id)?.name.text == "After")
  }

  @Test func manyBackslashesRightAtTheBufferBoundaryAreRead() throws {
    // Shift a run of backslashes and a quote across the 1 MiB boundary one byte at a time.
    for shift in 0..<4 {
      let harness = try Harness("boundary\(shift)")
      let context = try harness.openContext()
      let work = try context.createCategory(named: "Work")
      let padding = String(repeating: "p", count: (1 << 20) - 200 + shift)
      let tail = String(repeating: "\\", count: 301) + "\"" + String(repeating: "\\", count: 2)
      let first = try context.createDocument(named: "A", in: work.id, content: padding + tail)
      let second = try context.createDocument(named: "B", in: work.id, content: "second")
      try context.save()
      let reloaded = try harness.openContext()
      #expect(try reloaded.content(of: first.id) == padding + tail, "shift \(shift)")
      #expect(try reloaded.content(of: second.id) == "second", "shift \(shift)")
    }
  }

  @Test func reloadEqualsWhatWasSavedIncludingIdsSizesAndDatesToTheMillisecond() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    let home = try context.createCategory(named: "Home")
    try context.createCategory(named: "Empty")
    for (index, content) in JSONStoreRoundTripTests.awkwardContents.enumerated() {
      try context.createDocument(
        named: "doc \(index)", in: index % 2 == 0 ? work.id : home.id, content: content)
    }
    let saved = try snapshot(of: context)
    try context.save()
    let reloaded = try snapshot(of: harness.openContext())
    #expect(reloaded == saved)
    // The dates really carry milliseconds (the clock's readings all end in non-zero ms).
    #expect(
      reloaded.categories.flatMap(\.documents).allSatisfy {
        $0.modified.millisecondsSince1970 % 1000 != 0
      })
  }

  @Test func generationGrowsByOnePerSave() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    #expect(context.generation == 0)
    let work = try context.createCategory(named: "Work")
    for round in 1...4 {
      try context.createDocument(named: "d\(round)", in: work.id, content: "\(round)")
      try context.save()
      #expect(context.generation == round)
      #expect(try JSONStore(path: harness.storePath).currentGeneration() == round)
      #expect(try harness.openContext().generation == round)
    }
    // The file itself says the generation once the log is folded into it (the first save,
    // of a store with no file yet, wrote it whole).
    #expect(try jsonObject(at: harness.storePath)["generation"] as? Int == 1)
    try context.foldSaveLog()
    #expect(try jsonObject(at: harness.storePath)["generation"] as? Int == 4)
    #expect(context.generation == 4)
  }

  @Test func savingWithNoChangesWritesNothing() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    try context.save()
    try context.createDocument(named: "Plan", in: work.id, content: "x")
    try context.save()
    try context.foldSaveLog()  // the file written whole again, so there is a backup too
    // Both files dated a day back: a rewrite, however soon, would date them now.
    let dayBack = IndexedStore.realtimeNanoseconds() - 86_400_000_000_000
    #expect(setFileTimes(of: harness.storePath, toNanoseconds: dayBack))
    #expect(setFileTimes(of: harness.storePath + ".bak", toNanoseconds: dayBack))
    let before = try bytes(at: harness.storePath)
    let statusBefore = try status(of: harness.storePath)
    let backupBefore = try status(of: harness.storePath + ".bak")
    try context.save()
    let reopened = try harness.openContext()
    try reopened.save()
    #expect(context.generation == 2 && reopened.generation == 2)
    #expect(try bytes(at: harness.storePath) == before)
    #expect(try status(of: harness.storePath) == statusBefore)
    #expect(try status(of: harness.storePath + ".bak") == backupBefore)
  }

  @Test func aNewEmptyContextSavesNothingAndCreatesNoFile() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    try context.save()
    #expect(try harness.folder.entries().isEmpty)
  }

  @Test func theFileHasExactlyTheDocumentedShape() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    try context.createCategory(named: "Empty")
    let plan = try context.createDocument(named: "Plan", in: work.id, content: "é\n")
    try context.save()
    let json = try jsonObject(at: harness.storePath)
    #expect(Set(json.keys) == ["format", "version", "generation", "epoch", "categories"])
    #expect(json["format"] as? String == "docsh-store")
    #expect(json["version"] as? Int == 2)
    #expect((json["epoch"] as? String).flatMap(StoreEpoch.init) != nil)
    #expect(json["generation"] as? Int == 1)
    let categories = try #require(json["categories"] as? [[String: Any]])
    #expect(categories.count == 2)
    for category in categories {
      #expect(Set(category.keys) == ["id", "name", "documents"])
      #expect((category["id"] as? String).flatMap(UUID.init(uuidString:)) != nil)
      #expect(category["documents"] is [[String: Any]])
    }
    let workJSON = try #require(categories.first { $0["name"] as? String == "Work" })
    #expect(workJSON["id"] as? String == work.id.description)
    let documents = try #require(workJSON["documents"] as? [[String: Any]])
    #expect(documents.count == 1)
    let document = try #require(documents.first)
    #expect(Set(document.keys) == ["id", "name", "content", "size", "modified"])
    #expect(document["id"] as? String == plan.id.description)
    #expect(document["name"] as? String == "Plan")
    #expect(document["content"] as? String == "é\n")
    #expect(document["size"] as? Int == 3)
    let modified = try #require(document["modified"] as? String)
    #expect(modified == plan.modified.iso8601)
    // ISO 8601 in UTC with milliseconds, as another tool reads it.
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let date = try #require(formatter.date(from: modified))
    #expect(
      Int64((date.timeIntervalSince1970 * 1000).rounded()) == plan.modified.millisecondsSince1970)
    #expect(modified.hasSuffix("Z") && modified.count == 24)
  }

  @Test func contentsStayReadableFromTheSameContextAfterSaves() throws {
    let harness = try Harness()
    let setup = try harness.openContext()
    let work = try setup.createCategory(named: "Work")
    let home = try setup.createCategory(named: "Home")
    let contents = (0..<6).map {
      "content \($0) \"é\" \\ \n" + String(repeating: "x", count: $0 * 100)
    }
    var ids: [ObjectID] = []
    for (index, content) in contents.enumerated() {
      ids.append(
        try setup.createDocument(
          named: "d\(index)", in: index < 3 ? work.id : home.id, content: content
        ).id)
    }
    try setup.save()
    let context = try harness.openContext()  // every content is a fault now
    try context.renameDocument(ids[1], to: "renamed")  // never loaded, re-encoded
    try context.moveDocument(ids[4], to: work.id)  // never loaded, moved
    try context.deleteDocument(ids[2])  // a hole in the middle of a run
    try context.save()
    for index in [0, 1, 3, 4, 5] {
      #expect(try context.content(of: ids[index]) == contents[index], "d\(index) after save 1")
    }
    try context.setContent("changed", of: ids[0])
    try context.renameCategory(home.id, to: "House")
    try context.save()
    try context.createDocument(named: "new", in: home.id, content: "new")
    try context.save()
    let expected = try snapshot(of: context)
    #expect(try context.content(of: ids[0]) == "changed")
    for index in [1, 3, 4, 5] {
      #expect(try context.content(of: ids[index]) == contents[index], "d\(index) after save 3")
    }
    #expect(try snapshot(of: harness.openContext()) == expected)
    #expect(context.generation == 4)
  }

  // MARK: - Files, folders and permissions

  @Test func aMissingFileIsAnEmptyStore() throws {
    let harness = try Harness()
    let context = try harness.openContext(at: harness.folder.path("no/such/folder/store.json"))
    #expect(context.categories().isEmpty)
    #expect(context.documentCount == 0)
    #expect(context.generation == 0)
    #expect(try !context.hasChanges)
  }

  @Test func theFirstSaveCreatesMissingFoldersPrivateAndTheFile0600() throws {
    let harness = try Harness()
    let path = harness.folder.path("a/b/c/store.json")
    let context = try harness.openContext(at: path)
    try context.createCategory(named: "Work")
    try context.save()
    for folder in ["a", "a/b", "a/b/c"] {
      #expect(try status(of: harness.folder.path(folder)).permissions == 0o700, "\(folder)")
    }
    #expect(try status(of: path).permissions == 0o600)
    #expect(try harness.openContext(at: path).category(named: "work") != nil)
  }

  @Test(arguments: [0o640 as UInt32, 0o644, 0o600, 0o660, 0o400])
  func permissionsOfAnExistingStoreAreKept(mode: UInt32) throws {
    let harness = try Harness()
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    try context.save()
    #expect(chmod(harness.storePath, mode_t(mode)) == 0)
    let again = try harness.openContext()
    try again.createDocument(named: "d", in: work.id)
    try again.save()
    #expect(try status(of: harness.storePath).permissions == mode)
    try again.createDocument(named: "e", in: work.id)
    try again.save()
    #expect(try status(of: harness.storePath).permissions == mode)
  }

  @Test func theBackupHoldsThePreviousGeneration() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    try context.save()
    #expect(!FileManager.default.fileExists(atPath: harness.storePath + ".bak"))
    var previous = try bytes(at: harness.storePath)
    for round in 1...3 {
      try context.createDocument(named: "d\(round)", in: work.id, content: "\(round)")
      try context.save()
      try context.foldSaveLog()
      #expect(try bytes(at: harness.storePath + ".bak") == previous, "round \(round)")
      #expect(try jsonObject(at: harness.storePath + ".bak")["generation"] as? Int == round)
      previous = try bytes(at: harness.storePath)
    }
    // Nothing else is left in the folder but the store, its backup, its lock, the file its
    // sessions hold and its log, emptied by the fold for the next save.
    #expect(
      try harness.folder.entries() == [
        "store.json", "store.json.bak", "store.json.lock", "store.json.sessions",
        "store.json.wal",
      ])
    #expect(try bytes(at: harness.storePath + ".wal").isEmpty)
  }
}
