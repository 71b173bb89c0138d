import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

extension Harness {
  /// The cache folder the indexed contexts of this harness share.
  var cachePath: String { folder.path("cache") }

  /// A context on the harness's store with its index in the harness's cache folder.
  func openIndexed(
    cache: String? = nil, sqlite: any SQLiteLibrary = SystemSQLite(),
    fileSystem: any FileSystem = SystemFileSystem(), progress: (any ProgressObserver)? = nil,
    busyTimeout: Int = 200, now: @escaping () -> Int64 = IndexedStore.realtimeNanoseconds
  ) throws -> (Context, IndexedStore) {
    let store = IndexedStore(
      path: storePath, cacheFolder: cache ?? cachePath, progress: progress,
      fileSystem: fileSystem, sqlite: sqlite, busyTimeoutMilliseconds: busyTimeout, now: now)
    return (try Context(store: store, clock: clock.now, makeID: ids.make), store)
  }

  /// A clock for indexes that records every identity long after the store was modified, so
  /// that no test depends on the racily-clean check unless it means to.
  static func lateClock() -> Int64 { IndexedStore.realtimeNanoseconds() + 3_600_000_000_000 }

  /// Indexes the seeded store racily clean (at its own modification time), then replaces
  /// the first `text` in the file with `replacement` of the same length, in place and at
  /// the same time: a change only verification sees. The clock to open it with.
  func rewriteRacilyClean(_ text: String, with replacement: String) throws -> () -> Int64 {
    let modified = try status(of: storePath).modificationNanoseconds
    _ = try openIndexed(now: { modified })
    var bytes = try Data(contentsOf: URL(fileURLWithPath: storePath))
    let whole = String(decoding: bytes, as: UTF8.self)
    let offset = whole.utf8.distance(
      from: whole.utf8.startIndex,
      to: try #require(whole.utf8.firstRange(of: text.utf8)).lowerBound)
    try #require(replacement.utf8.count == text.utf8.count)
    bytes.replaceSubrange(offset..<offset + text.utf8.count, with: Array(replacement.utf8))
    try bytes.write(to: URL(fileURLWithPath: storePath))
    #expect(setFileTimes(of: storePath, toNanoseconds: modified))
    return { modified }
  }

  /// Fills the store with `categories` × `documents` and saves it.
  func seed(
    categories: Int = 3, documents: Int = 4,
    words: (Int, Int) -> String = { c, d in
      "content \(c).\(d) café naïve"
    }
  ) throws {
    let context = try openContext()
    for c in 0..<categories {
      let category = try context.createCategory(named: "Cat \(c)")
      for d in 0..<documents {
        try context.createDocument(named: "Doc \(c).\(d)", in: category.id, content: words(c, d))
      }
    }
    try context.save()
  }
}

/// What a context answers, in plain values: categories with totals, their listings, contents.
struct Answers: Equatable, CustomStringConvertible {
  var categories: [String]
  var listings: [String: [String]]
  var contents: [String: String]

  var description: String { "\(categories)\n\(listings)" }

  init(_ context: Context, contents: Bool = true) throws {
    categories = context.categoryListings().map {
      "\($0.category.name) \($0.summary.documentCount) \($0.summary.totalSize) \(String(describing: $0.summary.latestModification))"
    }
    listings = [:]
    self.contents = [:]
    for category in context.categories() {
      let documents = try context.documents(in: category.id)
      listings[category.name.text] = documents.map { "\($0.name) \($0.size) \($0.modified)" }
      if contents {
        for document in documents {
          self.contents["\(category.name)/\(document.name)"] = try context.content(of: document.id)
        }
      }
    }
  }
}

/// Records the progress reported to it.
final class ProgressRecorder: ProgressObserver {
  var events: [String] = []
  func beginTask(_ task: ProgressTask, totalBytes: Int) {
    events.append("begin \(task) \(totalBytes)")
  }
  func advanceTask(to completedBytes: Int) { events.append("advance \(completedBytes)") }
  func endTask() { events.append("end") }
}
