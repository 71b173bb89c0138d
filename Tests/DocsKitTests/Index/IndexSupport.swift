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
