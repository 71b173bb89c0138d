// Categories whose documents the store has not handed over yet (Core Data's faulting, one
// level up from contents): the context knows their names and totals, and asks the store
// for their documents the first time something needs them. Such a category cannot hold a
// change: every change of a document first faults its category in.
extension Context {
  /// Whether the documents of the category `id` are in memory.
  public func isLoaded(_ id: ObjectID) -> Bool {
    unloadedCategories[id] == nil
  }

  /// Brings the documents of the category `id` into the graph, if they are not yet.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot read them,
  ///   ``ContextError/interrupted`` when the interruption stops it (asked before each
  ///   document; nothing is brought in then).
  public func loadDocuments(of id: ObjectID) throws(ContextError) {
    guard let unloaded = unloadedCategories[id] else { return }
    let stored: [StoredDocument]
    do {
      stored = try store.documents(of: id, unloaded)
    } catch {
      throw .store(error)
    }
    var records: [(ObjectID, DocumentRecord)] = []
    records.reserveCapacity(stored.count)
    var members: [NameKey: ObjectID] = [:]
    members.reserveCapacity(stored.count)
    let first = nextSequence
    for (offset, document) in stored.enumerated() {
      try checkForInterruption(.loadingCategory)
      guard documentRecords[document.id] == nil, members[document.name.key] == nil,
        document.categoryID == id
      else { throw .store(documentsClash(in: id)) }
      members[document.name.key] = document.id
      records.append(
        (
          document.id,
          DocumentRecord(
            document: Document(
              id: document.id, name: document.name, categoryID: id, size: document.size,
              modified: document.modified, tags: document.tags),
            content: .fault(document.contentLocation), location: document.location,
            sequence: first + offset)
        ))
    }
    nextSequence = first + stored.count
    for (documentID, record) in records {
      documentRecords[documentID] = record
      if !record.document.tags.isEmpty { addTags(of: record.document, documentID) }
    }
    membersByCategory[id] = members
    unloadedCategories[id] = nil
  }

  /// Why the documents the store holds for the category `id` cannot be its documents: two
  /// share an id or a name, or one is of another category.
  func documentsClash(in id: ObjectID) -> StoreError {
    .invalidStore(
      store.displayName,
      reason: "the documents of \"\(categoryRecords[id]?.category.name.text ?? "?")\" clash")
  }

  /// The saved documents of the unloaded categories `categories` that `lookup` names, read
  /// alone: none of their categories is faulted in.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot read them.
  func storedDocuments(
    _ lookup: DocumentLookup, in categories: [ObjectID: UnloadedCategory]
  ) throws(ContextError) -> [StoredDocument] {
    guard !categories.isEmpty else { return [] }
    do {
      return try store.documents(lookup, in: categories)
    } catch {
      throw .store(error)
    }
  }

  /// The document `id` and its content, as the graph holds them or, in a category not
  /// loaded, as the store does: read alone, without faulting its category in.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot read it.
  func documentAndContent(_ id: ObjectID) throws(ContextError) -> (
    document: Document, content: ContentStorage
  )? {
    if let record = documentRecords[id] { return (record.document, record.content) }
    return try storedDocuments(.identified(id), in: unloadedCategories).first.map {
      ($0.document, .fault($0.contentLocation))
    }
  }

  /// The record of the document `id`, faulting in the category that holds it.
  func documentRecord(_ id: ObjectID) throws(ContextError) -> DocumentRecord? {
    if let record = documentRecords[id] { return record }
    guard !unloadedCategories.isEmpty, let category = store.unloadedCategory(holding: id),
      unloadedCategories[category] != nil
    else { return nil }
    try loadDocuments(of: category)
    return documentRecords[id]
  }

  /// The documents of every unloaded category (or of `id` alone, when given and unloaded)
  /// as the store holds them, without loading them into the graph.
  func unloadedDocuments(in id: ObjectID?) throws(ContextError) -> [StoredDocument] {
    var documents: [StoredDocument] = []
    let wanted =
      id.map { id in unloadedCategories[id].map { [id: $0] } ?? [:] } ?? unloadedCategories
    for (categoryID, unloaded) in wanted {
      do {
        documents += try store.documents(of: categoryID, unloaded)
      } catch {
        throw .store(error)
      }
    }
    return documents
  }

  /// The documents (as values) and contents of the category `id`, or of all, for content
  /// search: loaded ones from memory, unloaded ones from the store, none loaded into the graph.
  func contentSearchCandidates(in id: ObjectID?) throws(ContextError) -> [(
    document: Document, content: ContentStorage
  )] {
    var candidates: [(document: Document, content: ContentStorage)] = []
    if let id {
      for documentID in membersByCategory[id]?.values ?? [:].values {
        if let record = documentRecords[documentID] {
          candidates.append((record.document, record.content))
        }
      }
    } else {
      for record in documentRecords.values { candidates.append((record.document, record.content)) }
    }
    for stored in try unloadedDocuments(in: id) {
      candidates.append(
        (
          stored.document, .fault(stored.contentLocation)
        ))
    }
    return candidates
  }

  /// Why docsh works without its index this run, when it does: at most one.
  public var indexWarning: IndexWarning? { store.indexWarning }
}
