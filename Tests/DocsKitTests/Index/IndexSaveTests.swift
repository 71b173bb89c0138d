import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Saves keep the index in step, a failing index never fails a save, and two sessions on
/// one store each see a correct index.
@Suite struct IndexSaveTests {
  /// Makes changes of every kind in `context`: content, rename, move, delete, new, rmdir.
  static func changeEverything(_ context: Context) throws {
    let categories = context.categories()
    let first = try context.documents(in: categories[0].id)
    try context.setContent("rewritten café", of: first[0].id)
    try context.renameDocument(first[1].id, to: "Renamed")
    try context.moveDocument(first[2].id, to: categories[1].id, renamingTo: "Moved")
    try context.deleteDocument(first[3].id)
    try context.createDocument(named: "Fresh", in: categories[1].id, content: "fresh naïve words")
    try context.deleteCategory(categories[2].id)
    try context.createCategory(named: "Empty")
  }

  @Test func everySQLiteCallOfASaveFailingStillSavesAndTheNextOpenIsRight() throws {
    var number = 1
    var failures = 0
    while true {
      let harness = try Harness("sqlfault\(number)")
      try harness.seed()
      _ = try harness.openIndexed(now: Harness.lateClock)
      // Build the full text too, so a save has it to keep in step.
      let (builder, _) = try harness.openIndexed(now: Harness.lateClock)
      _ = try builder.search(SearchQuery("content"))
      let sqlite = FaultInjectingSQLite()
      let (context, store) = try harness.openIndexed(sqlite: sqlite, now: Harness.lateClock)
      try IndexSaveTests.changeEverything(context)
      let expected = try snapshot(of: context)
      sqlite.arm(failAt: number)
      let result = Result { () throws(ContextError) in try context.save() }
      sqlite.disarm()
      let where_ = "SQLite call \(number) (\(sqlite.injected ?? "none"))"
      #expect(throws: Never.self, "\(where_)") { try result.get() }
      #expect(try snapshot(of: harness.openContext()) == expected, "\(where_): the store")
      #expect(try !context.hasChanges, "\(where_)")
      let (reopened, reopenedStore) = try harness.openIndexed(now: Harness.lateClock)
      #expect(try Answers(reopened) == Answers(harness.openContext()), "\(where_): next open")
      #expect(
        Set(
          try reopened.search(SearchQuery("fresh OR rewritten"), limit: 0).map(\.document.name.text)
        )
          == ["Fresh", "Doc 0.0"], "\(where_): search after")
      #expect(
        try reopened.search(SearchQuery("content -fresh"), limit: 0).count == 6,
        "\(where_): search after")
      guard sqlite.injected != nil else { break }
      failures += 1
      #expect(store.indexWarning != nil, "\(where_): no warning")
      _ = reopenedStore
      number += 1
    }
    #expect(failures > 10)
  }

  @Test func twoSessionsEachReadTheirOwnFileThroughTheIndex() throws {
    let harness = try Harness()
    try harness.seed(categories: 3, documents: 5)
    _ = try harness.openIndexed(now: Harness.lateClock)
    let (a, _) = try harness.openIndexed(now: Harness.lateClock)
    let (b, _) = try harness.openIndexed(now: Harness.lateClock)
    let mineBefore = try Answers(harness.openContext())
    // B rewrites the first category (shifting every byte after it) and saves: the index now
    // describes B's file. A still reads the file it opened and must not use B's ranges.
    let bFirst = try #require(b.categories().first)
    for document in try b.documents(in: bFirst.id) {
      try b.setContent(String(repeating: "longer ", count: 40), of: document.id)
    }
    try b.save()
    #expect(try Answers(a) == mineBefore)
    #expect(try a.documents(nameContaining: "Doc 2.").count == 5)
    // A saves: merges onto B's save.
    let aLast = try #require(a.categories().last)
    try a.createDocument(named: "From A", in: aLast.id, content: "a's")
    try a.save()
    let merged = try Answers(harness.openContext())
    #expect(try Answers(a) == merged)
    let (c, store) = try harness.openIndexed(now: Harness.lateClock)
    #expect(store.indexState == .trusted)
    #expect(try Answers(c) == merged)
    #expect(c.check().index == .trusted)
  }

  @Test func progressIsReportedWhileIndexing() throws {
    let harness = try Harness()
    try harness.seed(categories: 2, documents: 600)
    let recorder = ProgressRecorder()
    let (context, _) = try harness.openIndexed(progress: recorder, now: Harness.lateClock)
    let size = try status(of: harness.storePath).size
    #expect(recorder.events.first == "begin indexing the store \(size)")
    #expect(recorder.events.last == "end")
    #expect(recorder.events.contains { $0.hasPrefix("advance") })
    recorder.events = []
    let (again, _) = try harness.openIndexed(progress: recorder, now: Harness.lateClock)
    #expect(recorder.events.isEmpty)
    _ = try again.search(SearchQuery("content"))
    #expect(recorder.events.first == "begin building the search index \(size)")
    #expect(recorder.events.last == "end")
    recorder.events = []
    #expect(again.check().isSound)
    #expect(recorder.events.first == "begin checking the store \(size)")
    #expect(recorder.events.last == "end")
    let advances = recorder.events.filter { $0.hasPrefix("advance") }.compactMap {
      Int($0.split(separator: " ").last ?? "")
    }
    #expect(advances.count > 2 && advances == advances.sorted(), "\(recorder.events)")
    _ = context
  }
}

/// The progress of a first open: reading the file and indexing it, one task on one line, the
/// reading reported while it parses (so that a large store shows a line within the delay
/// whatever part of the work takes the time).
@Suite struct OpeningProgressTests {
  /// The values of the advances `recorder` heard.
  static func advances(_ recorder: ProgressRecorder) -> [Int] {
    recorder.events.filter { $0.hasPrefix("advance") }.compactMap {
      Int($0.split(separator: " ").last ?? "")
    }
  }

  @Test func aFirstOpenReportsReadingThenIndexingAsOneTask() throws {
    let harness = try Harness()
    // Some 800 KB: the reader fills its 64 KiB buffer more than ten times.
    try harness.seed(categories: 3, documents: 1_500)
    let size = try status(of: harness.storePath).size
    #expect(size > 10 * 65_536)
    let recorder = ProgressRecorder()
    let (context, store) = try harness.openIndexed(progress: recorder, now: Harness.lateClock)
    #expect(store.indexState != .trusted)
    #expect(
      recorder.events.filter { $0.hasPrefix("begin") } == ["begin indexing the store \(size)"])
    #expect(recorder.events.first?.hasPrefix("begin") == true)
    #expect(recorder.events.filter { $0 == "end" }.count == 1 && recorder.events.last == "end")
    let advances = Self.advances(recorder)
    #expect(advances == advances.sorted() && (advances.last ?? 0) <= size, "\(advances)")
    // Reading is the first half of the line, heard while it parses; indexing the second.
    #expect(advances.filter { $0 <= size / 2 }.count >= 8, "\(advances)")
    #expect(advances.contains { $0 > size / 2 }, "\(advances)")
    #expect(!context.categories().isEmpty)
  }

  @Test func withoutAnIndexReadingIsTheWholeLine() throws {
    let harness = try Harness()
    try harness.seed(categories: 3, documents: 1_500)
    let size = try status(of: harness.storePath).size
    let recorder = ProgressRecorder()
    let store = IndexedStore(path: harness.storePath, cacheFolder: nil, progress: recorder)
    let context = try Context(store: store)
    #expect(recorder.events.first == "begin reading the store \(size)")
    #expect(recorder.events.last == "end")
    let advances = Self.advances(recorder)
    #expect(advances.count >= 8 && advances == advances.sorted(), "\(advances)")
    #expect(advances.last == size, "\(advances)")
    #expect(context.categories().count == 3)
  }

  @Test func aStoreThatFailsToParseStillEndsItsTask() throws {
    let harness = try Harness()
    try harness.seed(categories: 1, documents: 500)
    var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: harness.storePath)))
    bytes.removeLast(40)
    try Data(bytes).write(to: URL(fileURLWithPath: harness.storePath))
    let recorder = ProgressRecorder()
    #expect(throws: (any Error).self) {
      _ = try harness.openIndexed(progress: recorder, now: Harness.lateClock)
    }
    #expect(recorder.events.first?.hasPrefix("begin indexing the store") == true)
    #expect(recorder.events.last == "end", "\(recorder.events)")
  }
}

/// Thousands of random commands in two sessions; after every save, what a freshly opened
/// indexed context answers (listings, find, search hit sets) equals a scan of the file.
@Suite struct IndexAgreementTests {
  static let words = ["alpha", "beta", "gamma", "café", "naïve", "delta"]

  @Test(arguments: [1, 2, 3] as [UInt64])
  func theIndexAgreesWithTheFileAfterEverySave(seed: UInt64) throws {
    var generator = SeededGenerator(seed: seed)
    let harness = try Harness("agree\(seed)")
    try harness.seed(categories: 3, documents: 3) { c, d in "alpha \(c) beta \(d)" }
    _ = try harness.openIndexed(now: Harness.lateClock)
    var sessions = [
      try harness.openIndexed(now: Harness.lateClock).0,
      try harness.openIndexed(now: Harness.lateClock).0,
    ]
    func randomText() -> String {
      (0..<Int.random(in: 1...6, using: &generator)).map { _ in
        IndexAgreementTests.words.randomElement(using: &generator) ?? ""
      }.joined(separator: " ")
    }
    var saves = 0
    for step in 0..<700 {
      let context = sessions[Int.random(in: 0...1, using: &generator)]
      let categories = context.categories()
      let category = categories.randomElement(using: &generator)
      let documents = try category.map { try context.documents(in: $0.id) } ?? []
      let document = documents.randomElement(using: &generator)
      do {
        switch Int.random(in: 0..<13, using: &generator) {
        case 0: try context.createCategory(named: "C\(step)")
        case 1: if let category { try context.renameCategory(category.id, to: "R\(step)") }
        case 2: if let category, categories.count > 2 { try context.deleteCategory(category.id) }
        case 3, 4:
          if let category {
            try context.createDocument(named: "D\(step)", in: category.id, content: randomText())
          }
        case 5: if let document { try context.setContent(randomText(), of: document.id) }
        case 6: if let document { try context.renameDocument(document.id, to: "N\(step)") }
        case 7:
          if let document, let target = categories.randomElement(using: &generator) {
            try context.moveDocument(document.id, to: target.id)
          }
        case 8: if let document { try context.deleteDocument(document.id) }
        case 9: if context.canUndo { try context.undo() }
        case 10: if context.canRedo { try context.redo() }
        case 11:
          if Int.random(in: 0..<4, using: &generator) == 0 { try context.reload() }
        default:
          try context.save(keepingMine: true)
          saves += 1
          try IndexAgreementTests.expectAgreement(harness, "seed \(seed) step \(step)")
        }
      } catch let error as ContextError {
        switch error {
        case .duplicateCategoryName, .duplicateDocumentName, .conflicts: break
        default: Issue.record("seed \(seed) step \(step): \(error)")
        }
        if case .conflicts = error { try context.reload() }
      }
      if step % 150 == 149 {
        // Now and then a session starts again from what is saved.
        sessions[step % 2] = try harness.openIndexed(now: Harness.lateClock).0
      }
    }
    #expect(saves > 20)
  }

  static func expectAgreement(_ harness: Harness, _ comment: String) throws {
    let plain = try harness.openContext()
    let (indexed, store) = try harness.openIndexed(now: Harness.lateClock)
    #expect(store.indexState == .trusted, "\(comment): \(store.indexState)")
    #expect(try Answers(indexed) == Answers(plain), "\(comment)")
    for fragment in ["D", "n1", "doc", ""] {
      #expect(
        try indexed.documents(nameContaining: fragment).map(\.id)
          == plain.documents(nameContaining: fragment).map(\.id), "\(comment): find \(fragment)")
    }
    for word in words {
      let query = try SearchQuery(word)
      #expect(
        Set(try indexed.search(query, limit: 0).map(\.document.id))
          == Set(try plain.search(query, limit: 0).map(\.document.id)),
        "\(comment): search \(word)")
    }
  }
}
