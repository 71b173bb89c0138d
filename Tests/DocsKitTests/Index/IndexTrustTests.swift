import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// The index is used only when it provably describes the store file; every other case is
/// noticed, rebuilt from the JSON, and never shows the user anything but the store.
@Suite struct IndexTrustTests {
  /// A seeded store with a trusted index, the answers of the file alone, and the harness.
  struct Indexed {
    let harness: Harness
    init(_ label: String = #function) throws {
      harness = try Harness(label)
      try harness.seed()
      let (_, store) = try harness.openIndexed(now: Harness.lateClock)
      #expect(store.indexState != .trusted)
      let (_, again) = try harness.openIndexed(now: Harness.lateClock)
      #expect(again.indexState == .trusted)
    }

    var indexPath: String {
      get throws {
        let store = IndexedStore(path: harness.storePath, cacheFolder: harness.cachePath)
        return try #require(store.indexPath)
      }
    }

    /// Another version of the store, written by a plain context (no index).
    func writeOtherVersion(_ change: (Context) throws -> Void) throws -> Answers {
      let context = try harness.openContext()
      try change(context)
      try context.save()
      // Another version of the store file itself: written whole, the log folded in.
      try context.foldSaveLog()
      return try Answers(harness.openContext())
    }

    /// Opens with the index and checks every answer against the file alone.
    func expectAnswersMatchTheFile(_ comment: Comment) throws -> IndexState {
      let (context, store) = try harness.openIndexed(now: Harness.lateClock)
      #expect(try Answers(context) == Answers(harness.openContext()), comment)
      #expect(
        Set(try context.documents(nameContaining: "doc").map(\.name.text))
          == Set(try harness.openContext().documents(nameContaining: "doc").map(\.name.text)),
        comment)
      return store.indexState
    }
  }

  // MARK: - Foreign edits

  @Test(arguments: [false, true])
  func aNewFileRenamedOverTheStoreIsNoticed(keepingSizeAndTime: Bool) throws {
    let indexed = try Indexed("renamed\(keepingSizeAndTime)")
    let path = indexed.harness.storePath
    let before = try status(of: path)
    var text = try String(contentsOfFile: path, encoding: .utf8)
    // Same length: one letter of a content changed.
    let range = try #require(text.range(of: "content 1.2"))
    text.replaceSubrange(range, with: "CONTENT 1.2")
    let other = indexed.harness.folder.path("editor.tmp")
    try text.write(toFile: other, atomically: false, encoding: .utf8)
    if keepingSizeAndTime {
      #expect(setFileTimes(of: other, toNanoseconds: before.modificationNanoseconds))
      #expect(try status(of: other).size == before.size)
    }
    #expect(rename(other, path) == 0)
    let state = try indexed.expectAnswersMatchTheFile("renamed over")
    #expect(state == .rebuilt(reason: "the store file changed since it was indexed"))
    let (context, _) = try indexed.harness.openIndexed(now: Harness.lateClock)
    let category = try #require(context.category(named: "Cat 1"))
    let document = try #require(try context.document(named: "Doc 1.2", in: category.id))
    #expect(try context.content(of: document.id).hasPrefix("CONTENT 1.2"))
  }

  @Test func aCopyOfTheBackupOverTheStoreIsNoticed() throws {
    let indexed = try Indexed()
    _ = try indexed.writeOtherVersion { try $0.createCategory(named: "Later") }
    _ = try indexed.expectAnswersMatchTheFile("after a save by a plain context")
    let path = indexed.harness.storePath
    try FileManager.default.removeItem(atPath: path)
    try FileManager.default.copyItem(atPath: path + ".bak", toPath: path)
    #expect(try indexed.expectAnswersMatchTheFile("backup copied") != .trusted)
    let (context, _) = try indexed.harness.openIndexed(now: Harness.lateClock)
    #expect(context.category(named: "Later") == nil)
  }

  @Test func anInPlaceRewriteKeepingSizeAndModificationTimeIsNoticed() throws {
    let indexed = try Indexed()
    let path = indexed.harness.storePath
    let before = try status(of: path)
    var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    let text = String(decoding: bytes, as: UTF8.self)
    let offset = try #require(text.utf8.firstRange(of: "content 0.1".utf8)).lowerBound
    let index = text.utf8.distance(from: text.utf8.startIndex, to: offset)
    bytes[index] = UInt8(ascii: "C")
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.write(contentsOf: bytes)
    try handle.close()
    #expect(setFileTimes(of: path, toNanoseconds: before.modificationNanoseconds))
    let after = try status(of: path)
    #expect(after.inode == before.inode && after.size == before.size)
    #expect(after.modificationNanoseconds == before.modificationNanoseconds)
    #expect(try indexed.expectAnswersMatchTheFile("rewritten in place") != .trusted)
  }

  @Test func aStoreModifiedInTheSameInstantItWasIndexedIsVerified() throws {
    let harness = try Harness()
    try harness.seed()
    // The index records its identity at the store's own modification time: racily clean.
    // A category's name rewritten in place, same size, same time: only verification sees it.
    let clock = try harness.rewriteRacilyClean("Cat 2", with: "Cat 9")
    let (context, _) = try harness.openIndexed(now: clock)
    #expect(context.category(named: "Cat 9") != nil)
    #expect(context.category(named: "Cat 2") == nil)
  }

  // MARK: - Damaged indexes

  enum Damage: String, CaseIterable, Sendable {
    case randomBytes, truncated, empty, anotherStoresIndex, newerSchema, olderSchema, lyingRow
    case wrongCount
  }

  @Test(arguments: Damage.allCases)
  func aDamagedIndexIsRebuiltAndNeverShown(damage: Damage) throws {
    let indexed = try Indexed("damage\(damage.rawValue)")
    let indexPath = try indexed.indexPath
    for suffix in ["-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: indexPath + suffix)
    }
    switch damage {
    case .randomBytes:
      var generator = SeededGenerator(seed: 11)
      let bytes = (0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) }
      try Data(bytes).write(to: URL(fileURLWithPath: indexPath))
    case .truncated:
      let data = try Data(contentsOf: URL(fileURLWithPath: indexPath))
      try data.prefix(data.count / 3).write(to: URL(fileURLWithPath: indexPath))
    case .empty:
      try Data().write(to: URL(fileURLWithPath: indexPath))
    case .anotherStoresIndex:
      let other = try Harness("other")
      try other.seed(categories: 2, documents: 1)
      let (_, otherStore) = try other.openIndexed(cache: indexed.harness.folder.path("othercache"))
      let otherPath = try #require(otherStore.indexPath)
      _ = try other.openIndexed(cache: indexed.harness.folder.path("othercache"))
      try FileManager.default.removeItem(atPath: indexPath)
      try FileManager.default.copyItem(atPath: otherPath, toPath: indexPath)
    case .newerSchema:
      try sqlite(indexPath, "PRAGMA user_version = 99")
    case .olderSchema:
      // As version 7 made it: links without their lines.
      try sqlite(
        indexPath,
        """
        DROP TABLE links;
        CREATE TABLE links(
          source INTEGER NOT NULL, line INTEGER NOT NULL, category_key TEXT,
          name_key TEXT NOT NULL, target TEXT NOT NULL);
        PRAGMA user_version = 7;
        """)
    case .lyingRow:
      // Every content range of one category shifted by one byte: not a JSON string.
      try sqlite(indexPath, "UPDATE documents SET content_offset = content_offset + 1")
    case .wrongCount:
      try sqlite(indexPath, "UPDATE categories SET document_count = document_count + 1")
    }
    if damage == .wrongCount {
      // A total the index alone holds shows until the category is read, which contradicts
      // it: from then on the documents are the file's, and the index is rebuilt.
      let (context, store) = try indexed.harness.openIndexed(now: Harness.lateClock)
      for category in context.categories() {
        #expect(
          try context.documents(in: category.id).map(\.name)
            == (try indexed.harness.openContext()).documents(in: category.id).map(\.name))
      }
      #expect(store.indexState == .rebuilt(reason: "the store contradicted it"))
    }
    let state = try indexed.expectAnswersMatchTheFile("\(damage)")
    #expect(state != .trusted || damage == .lyingRow || damage == .wrongCount)
    // After it, the index is sound again.
    let (context, _) = try indexed.harness.openIndexed(now: Harness.lateClock)
    let report = context.check()
    #expect(report.isSound)
    #expect(report.index != nil)
    let (_, store) = try indexed.harness.openIndexed(now: Harness.lateClock)
    #expect(store.indexState == .trusted, "\(damage)")
  }

  @Test func aLockedIndexStillGivesTheRightAnswers() throws {
    let indexed = try Indexed()
    let indexPath = try indexed.indexPath
    let locker = try SQLiteDatabase(path: indexPath, create: false, library: SystemSQLite())
    try locker.execute("PRAGMA locking_mode = EXCLUSIVE")
    try locker.execute("BEGIN EXCLUSIVE")
    let state = try indexed.expectAnswersMatchTheFile("locked")
    #expect(state != .trusted)
    try locker.execute("COMMIT")
    let (_, store) = try indexed.harness.openIndexed(now: Harness.lateClock)
    _ = store
    let (_, again) = try indexed.harness.openIndexed(now: Harness.lateClock)
    #expect(again.indexState == .trusted)
  }

  @Test func checkSaysWhenItRebuiltTheIndex() throws {
    let indexed = try Indexed()
    try sqlite(try indexed.indexPath, "UPDATE documents SET size = size + 1 WHERE position = 0")
    let (context, _) = try indexed.harness.openIndexed(now: Harness.lateClock)
    let report = context.check()
    guard case .rebuilt(let reason)? = report.index else {
      Issue.record("expected a rebuild, got \(String(describing: report.index))")
      return
    }
    #expect(reason.contains("disagreed"))
    #expect(context.check().index == .trusted)
  }

  // MARK: - No cache

  @Test(arguments: ["file", "readonly"])
  func aCacheThatCannotBeUsedMeansWorkingFromTheFileWithOneWarning(kind: String) throws {
    let harness = try Harness("nocache\(kind)")
    try harness.seed()
    let cache = harness.folder.path("cache")
    if kind == "file" {
      try "not a folder".write(toFile: cache, atomically: true, encoding: .utf8)
    } else {
      try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
      #expect(chmod(cache, 0o500) == 0)
    }
    defer { chmod(cache, 0o700) }
    if kind == "readonly" && geteuid() == 0 {
      // Root writes through permission bits: use a path below a file instead.
      let (context, store) = try harness.openIndexed(cache: harness.folder.path("store.json/x"))
      #expect(store.indexWarning != nil)
      #expect(try Answers(context) == Answers(harness.openContext()))
      return
    }
    let (context, store) = try harness.openIndexed(cache: cache)
    let warning = try #require(store.indexWarning)
    #expect(warning.description.contains("working from the store file alone"))
    #expect(context.indexWarning == warning)
    #expect(try Answers(context) == Answers(harness.openContext()))
    let category = try #require(context.category(named: "Cat 0"))
    try context.createDocument(named: "More", in: category.id, content: "saved all the same")
    try context.save()
    #expect(try harness.openContext().document(named: "More", in: category.id) != nil)
    #expect(store.indexWarning == warning)
    #expect(try context.search(SearchQuery("saved")).map(\.document.name.text) == ["More"])
  }

  @Test func theIndexFilesArePrivate() throws {
    let indexed = try Indexed()
    let path = try indexed.indexPath
    #expect(try status(of: indexed.harness.cachePath).permissions == 0o700)
    for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
      #expect(try status(of: path + suffix).permissions == 0o600, "\(suffix)")
    }
  }
}

/// Runs SQL on a database file with the real SQLite (for damaging indexes in tests).
func sqlite(_ path: String, _ sql: String) throws {
  let database = try SQLiteDatabase(path: path, create: false, library: SystemSQLite())
  try database.execute(sql)
}
