// Reading the graph. Nothing here reads content except content(of:) and the content search.
extension Context {
  /// Every category, sorted by name (ignoring case).
  public func categories() -> [Category] {
    categoryRecords.values.map(\.category).sorted { Context.nameOrder($0.name, $1.name) }
  }

  /// The category named `name` (ignoring case and normalization), if there is one.
  public func category(named name: String) -> Category? {
    guard let valid = try? Name(name) else { return nil }
    if let found = deferredCategory(spelled: valid) { return found }
    guard let id = categoryIDsByKey[valid.key] else { return nil }
    return categoryRecords[id]?.category
  }

  /// The category `id`, if it exists.
  public func category(withID id: ObjectID) -> Category? {
    if let stored = deferredCategory(withID: id) { return Category(id: id, name: stored.name) }
    return categoryRecords[id]?.category
  }

  /// The number of documents, total size and latest modification of the category `id`.
  public func summary(of id: ObjectID) -> CategorySummary {
    if let unloaded = unloadedCategories[id] { return unloaded.summary }
    var summary = CategorySummary.empty
    for documentID in membersByCategory[id]?.values ?? [:].values {
      guard let document = documentRecords[documentID]?.document else { continue }
      summary.count(size: document.size, modified: document.modified)
    }
    return summary
  }

  /// Every category with its summary, sorted by `key` in `order`; ties by name, A to Z.
  public func categoryListings(
    sortedBy key: CategorySortKey = .name, order: SortOrder = .ascending
  ) -> [CategoryListing] {
    let listings = categories().map { CategoryListing(category: $0, summary: summary(of: $0.id)) }
    func value(_ listing: CategoryListing) -> Int64 {
      switch key {
      case .name: return 0
      case .size: return Int64(listing.summary.totalSize)
      case .modified: return listing.summary.latestModification?.millisecondsSince1970 ?? .min
      }
    }
    guard key != .name else { return order == .ascending ? listings : listings.reversed() }
    // `categories()` is in name order and sorting is stable: ties keep it.
    return listings.sorted { order == .ascending ? value($0) < value($1) : value($0) > value($1) }
  }

  /// The documents of the category `id`, sorted by `key` in `order`; ties by name.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot read the category's
  ///   documents, ``ContextError/interrupted`` when the interruption stops their loading.
  public func documents(
    in id: ObjectID, sortedBy key: DocumentSortKey = .name, order: SortOrder = .ascending
  ) throws(ContextError) -> [Document] {
    let documents: [Document]
    if let deferred = try deferredDocuments(in: id) {
      documents = deferred
    } else {
      try loadDocuments(of: id)
      documents = (membersByCategory[id]?.values ?? [:].values).compactMap {
        documentRecords[$0]?.document
      }
    }
    // Sorted as positions over contiguous keys: sorting the documents themselves moved
    // every value (two strings and their reference counts) at each step.
    let folded = documents.map(\.name.key.folded)
    let numbers: [Int64]
    switch key {
    case .name: numbers = []
    case .size: numbers = documents.map { Int64($0.size) }
    case .modified: numbers = documents.map(\.modified.millisecondsSince1970)
    }
    let order = folded.withUnsafeBufferPointer { folded in
      numbers.withUnsafeBufferPointer { numbers in
        func ascending(_ left: Int, _ right: Int) -> Bool {
          if !numbers.isEmpty && numbers[left] != numbers[right] {
            return numbers[left] < numbers[right]
          }
          if folded[left] != folded[right] { return folded[left] < folded[right] }
          return documents[left].name.text < documents[right].name.text
        }
        return order == .ascending
          ? documents.indices.sorted(by: ascending)
          : documents.indices.sorted { ascending($1, $0) }
      }
    }
    return order.map { documents[$0] }
  }

  /// The document named `name` in the category `id`, if there is one.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot read the category's
  ///   documents, ``ContextError/interrupted`` when the interruption stops their loading.
  public func document(named name: String, in id: ObjectID) throws(ContextError) -> Document? {
    guard let valid = try? Name(name) else { return nil }
    if let unloaded = deferredCategory(withID: id)?.unloaded ?? unloadedCategories[id] {
      // The store reads that document alone: the category stays unloaded until something
      // needs more of it (its contents, a change).
      let found = try storedDocuments(.named(valid.key), in: [id: unloaded])
      guard found.count < 2 else { throw .store(documentsClash(in: id)) }
      return found.first?.document
    }
    guard let documentID = membersByCategory[id]?[valid.key] else { return nil }
    return documentRecords[documentID]?.document
  }

  /// The document `id`, if it exists.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot read the category that holds
  ///   it, ``ContextError/interrupted`` when the interruption stops its loading.
  public func document(withID id: ObjectID) throws(ContextError) -> Document? {
    try documentRecord(id)?.document
  }

  /// Every document whose name contains `text`, ignoring case, sorted by category and name.
  /// - Throws: ``ContextError/interrupted`` when the context's interruption stops it,
  ///   ``ContextError/store(_:)`` when the store cannot answer for its unloaded categories.
  public func documents(nameContaining text: String) throws(ContextError) -> [Document] {
    let needle = NameKey(text).folded
    var found: [Document] = []
    for record in documentRecords.values {
      if let interruption, interruption.isRequested(during: .nameSearch) {
        throw .interrupted
      }
      let document = record.document
      if needle.isEmpty || document.name.key.contains(needle) { found.append(document) }
    }
    if !unloadedCategories.isEmpty {
      do {
        // Unloaded categories are asked of the store, which answers from its index.
        let stored = try store.documents(nameContaining: needle, in: unloadedCategories)
        found += stored.map(\.document)
      } catch {
        throw .store(error)
      }
    }
    return found.sorted(by: categoryThenName)
  }

  /// The number of documents in the whole graph.
  public var documentCount: Int {
    documentRecords.count + unloadedCategories.values.reduce(0) { $0 + $1.summary.documentCount }
  }

  /// The content of the document `id`, read from the store the first time it is needed.
  /// - Throws: ``ContextError`` when the document is gone or the store cannot read it.
  public func content(of id: ObjectID) throws(ContextError) -> String {
    guard let record = try documentRecord(id) else { throw .noSuchDocument(id) }
    return try text(of: record.content)
  }

  func text(of content: ContentStorage) throws(ContextError) -> String {
    switch content {
    case .text(let text):
      return text
    case .fault(let location):
      do {
        return try store.readContent(at: location)
      } catch {
        throw .store(error)
      }
    }
  }

  /// Orders documents by their category's name, then by their own.
  func categoryThenName(_ lhs: Document, _ rhs: Document) -> Bool {
    if lhs.categoryID != rhs.categoryID,
      let left = categoryRecords[lhs.categoryID]?.category.name,
      let right = categoryRecords[rhs.categoryID]?.category.name
    {
      return Context.nameOrder(left, right)
    }
    return Context.nameOrder(lhs.name, rhs.name)
  }

  /// The order names are listed in: ignoring case first, then as typed.
  static func nameOrder(_ lhs: Name, _ rhs: Name) -> Bool {
    let left = lhs.key.folded
    let right = rhs.key.folded
    return left != right ? left < right : lhs.text < rhs.text
  }
}

/// What categories can be sorted by.
public enum CategorySortKey: String, Sendable, CaseIterable {
  case name, size, modified
}

/// A category with its summary, as a listing of the categories shows it.
public struct CategoryListing: Hashable, Sendable {
  /// The category.
  public var category: Category
  /// Its documents counted, sized and dated.
  public var summary: CategorySummary
}

/// What `ls` shows of a category at the top: its documents counted, sized and dated.
public struct CategorySummary: Hashable, Sendable {
  /// How many documents it holds.
  public var documentCount: Int
  /// The sum of their sizes in bytes.
  public var totalSize: Int
  /// The latest modification of any of them; `nil` when it is empty.
  public var latestModification: Timestamp?
}

extension CategorySummary {
  /// The summary of no documents.
  static let empty = CategorySummary(documentCount: 0, totalSize: 0, latestModification: nil)

  /// The summary of `documents`.
  init(summing documents: some Sequence<StoredDocument>) {
    self = .empty
    for document in documents { count(size: document.size, modified: document.modified) }
  }

  /// Counts one more document, of `size` bytes, modified at `modified`: the one fold every
  /// summary is made by.
  mutating func count(size: Int, modified: Timestamp) {
    documentCount += 1
    totalSize += size
    if latestModification.map({ $0 < modified }) ?? true { latestModification = modified }
  }
}
