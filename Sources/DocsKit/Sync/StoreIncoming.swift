/// What a sync changes in the local store: the difference between this side's version of
/// the categories it read and the merged one, by id, applied with one save.
struct StoreIncoming {
  /// A category to create or rename (`name`), or to delete (`nil`).
  var categories: [(id: ObjectID, name: Name?)] = []
  /// A document to create or change, or to delete (`nil`), with its category.
  var documents: [(id: ObjectID, document: SnapshotDocument?, categoryID: ObjectID?)] = []

  /// A mark of this write, found in a store that holds it: `d:ID:HASH` for its first
  /// document put (its name and content hashed), `c:ID:HASH` for its first category put;
  /// `nil` when it only deletes.
  var witness: String? {
    if let put = documents.first(where: { $0.document != nil }), let document = put.document {
      return "d:\(put.id):" + StoreIncoming.hash(document.name.text, document.content)
    }
    if let put = categories.first(where: { $0.name != nil }), let name = put.name {
      return "c:\(put.id):" + StoreIncoming.hash(name.text, "")
    }
    return nil
  }

  /// Whether `store` holds the write `witness` marks.
  static func isWitnessed(_ witness: String, in store: ParsedStore) -> Bool {
    let parts = witness.split(separator: ":")
    guard parts.count == 3, let id = ObjectID(String(parts[1])) else { return false }
    if parts[0] == "c" {
      return store.graph.categories.contains {
        $0.id == id && hash($0.name.text, "") == parts[2]
      }
    }
    guard let document = store.graph.documents.first(where: { $0.id == id }),
      let content = try? store.decodedContent(of: document)  // undecodable: not this write's
    else { return false }
    return hash(document.name.text, content) == parts[2]
  }

  private static func hash(_ name: String, _ content: String) -> String {
    var hash = StableHash()
    hash.combine(Array(name.utf8))
    hash.combine([0])
    hash.combine(Array(content.utf8))
    return String(hash.value, radix: 16)
  }

  /// How many objects change.
  var count: Int { categories.count + documents.count }
  var isEmpty: Bool { count == 0 }

  /// The changes from `local` to `merged`.
  init(from local: StoreSnapshot, to merged: StoreSnapshot) {
    var localCategories: [ObjectID: Name] = [:]
    var localDocuments: [ObjectID: (SnapshotDocument, ObjectID)] = [:]
    for category in local.categories {
      localCategories[category.id] = category.name
      for document in category.documents { localDocuments[document.id] = (document, category.id) }
    }
    var mergedCategories = Set<ObjectID>()
    var mergedDocuments = Set<ObjectID>()
    for category in merged.categories {
      mergedCategories.insert(category.id)
      if localCategories[category.id]?.text != category.name.text {
        categories.append((category.id, category.name))
      }
      for document in category.documents {
        mergedDocuments.insert(document.id)
        if let (mine, categoryID) = localDocuments[document.id], mine == document,
          categoryID == category.id
        {
          continue
        }
        documents.append((document.id, document, category.id))
      }
    }
    for (id, _) in localDocuments where !mergedDocuments.contains(id) {
      documents.append((id, nil, nil))
    }
    for category in local.categories where !mergedCategories.contains(category.id) {
      categories.append((category.id, nil))
    }
  }

  /// Applies the changes to the store at `path` with one save (merging, as every save does,
  /// with what another session saved since), and returns the generation written.
  /// - Throws: ``SyncError/store(_:)`` when the store cannot be read or written.
  ///
  /// With `context` (the caller's, its changes saved), the changes go through it — no second
  /// load of the store, and the context holds the merged graph after; else through a
  /// context of its own.
  func save(
    toStoreAt path: String, through given: Context?, fileSystem: any FileSystem
  ) throws(SyncError) -> (generation: Int, isClean: Bool) {
    do throws(ContextError) {
      let context: Context
      if let given {
        context = given
      } else {
        do {
          context = try Context(store: JSONStore(path: path, fileSystem: fileSystem))
        } catch {
          throw ContextError.store(error)
        }
      }
      let loaded = context.generation
      try context.apply(self)
      context.isWritingForSync = true
      defer { context.isWritingForSync = false }
      try context.save(keepingMine: true)
      let isClean = context.lastSave.map { $0.generationBefore == loaded } ?? true
      return (context.generation, isClean)
    } catch {
      switch error {
      case .store(let failure): throw .store(failure)
      default: throw .store(.invalidStore(path, reason: error.description))
      }
    }
  }
}

extension Context {
  /// Puts `incoming`'s categories and documents in the graph as they are: ids, names,
  /// contents and dates.
  /// - Throws: ``ContextError`` when a category cannot be loaded, or a name is taken.
  func apply(_ incoming: StoreIncoming) throws(ContextError) {
    for (id, _) in incoming.categories where categoryRecords[id] != nil {
      try loadDocuments(of: id)
    }
    for (id, _, categoryID) in incoming.documents {
      if !unloadedCategories.isEmpty, let holder = store.unloadedCategory(holding: id) {
        try loadDocuments(of: holder)
      }
      if let categoryID, categoryRecords[categoryID] != nil { try loadDocuments(of: categoryID) }
    }
    // Every changed document out first, so that names they free can be taken; then what is
    // put back can clash only with a document the sync does not change.
    var sequences: [ObjectID: Int] = [:]
    for (id, _, _) in incoming.documents {
      sequences[id] = documentRecords[id]?.sequence
      setDocument(id, to: nil)
    }
    for (id, name) in incoming.categories where name == nil {
      for member in Array(membersByCategory[id]?.values ?? [:].values) {
        setDocument(member, to: nil)
      }
      setCategory(id, to: nil)
    }
    for (id, name) in incoming.categories {
      guard let name else { continue }
      if let other = categoryIDsByKey[name.key], other != id {
        throw .duplicateCategoryName(name.text, existing: categoryName(other))
      }
      let sequence = categoryRecords[id]?.sequence ?? nextSequenceNumber()
      setCategory(
        id, to: CategoryRecord(category: Category(id: id, name: name), sequence: sequence))
    }
    for (id, document, categoryID) in incoming.documents {
      guard let document, let categoryID else { continue }
      if let holder = membersByCategory[categoryID]?[document.name.key], holder != id {
        throw .duplicateDocumentName(
          document.name.text, existing: documentRecords[holder]?.document.name.text ?? "?",
          in: categoryName(categoryID))
      }
      setDocument(
        id,
        to: DocumentRecord(
          document: Document(
            id: id, name: document.name, categoryID: categoryID,
            size: document.content.utf8.count, modified: document.modified),
          content: .text(document.content), location: nil,
          sequence: sequences[id] ?? nextSequenceNumber()))
    }
  }

  private func categoryName(_ id: ObjectID) -> String {
    categoryRecords[id]?.category.name.text ?? "?"
  }
}
