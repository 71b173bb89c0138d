import DocsTestSupport

@testable import DocsKit

// Small stores written as values, for the merge tests: ids are sequential numbers, dates
// readings of the test clock.

/// A document of a test store: id number, name, content (and the reading its date is).
struct TestDocument {
  var id: UInt64
  var name: String
  var content: String
  var reading: Int = 1
}

/// A category of a test store.
struct TestCategory {
  var id: UInt64
  var name: String
  var documents: [TestDocument] = []
}

/// A store of `categories` at `generation`.
func makeStore(_ generation: Int = 1, _ categories: [TestCategory]) throws -> StoreSnapshot {
  StoreSnapshot(
    generation: generation,
    categories: try categories.map { category in
      SnapshotCategory(
        id: SequentialIDs.id(category.id), name: try Name(category.name),
        documents: try category.documents.map { document in
          SnapshotDocument(
            id: SequentialIDs.id(document.id), name: try Name(document.name),
            size: document.content.utf8.count, modified: TestClock.reading(document.reading),
            content: document.content)
        })
    })
}

extension StoreSnapshot {
  /// Every document with its category's name: `Category/Name` → content.
  var contentsByPath: [String: String] {
    var result: [String: String] = [:]
    for category in categories {
      for document in category.documents {
        result[category.name.text + "/" + document.name.text] = document.content
      }
    }
    return result
  }

  /// The document `id` and its category, if present.
  func document(_ id: ObjectID) -> (category: SnapshotCategory, document: SnapshotDocument)? {
    for category in categories {
      if let document = category.documents.first(where: { $0.id == id }) {
        return (category, document)
      }
    }
    return nil
  }

  /// The category named `name`.
  func category(named name: String) -> SnapshotCategory? {
    categories.first { $0.name.key == NameKey(name) }
  }

  /// The same store at another generation.
  func at(generation: Int) -> StoreSnapshot {
    var copy = self
    copy.generation = generation
    return copy
  }
}
