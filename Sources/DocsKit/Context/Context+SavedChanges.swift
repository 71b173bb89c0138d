/// What the last save of a context changed, object by object: what a commit of that save
/// needs, so that it costs what changed and never reads the whole store.
struct SavedChanges: Sendable {
  /// A category created, renamed or deleted.
  struct CategoryChange: Sendable, Equatable {
    var id: ObjectID
    /// Its name before the save; `nil` when the save created it.
    var before: Name?
    /// Its name after; `nil` when the save deleted it.
    var after: Name?
  }

  /// Where a document was before the save.
  struct Place: Sendable, Equatable {
    var category: Name
    var name: Name
  }

  /// A document created, changed, moved or deleted.
  struct DocumentChange: Sendable, Equatable {
    var id: ObjectID
    /// Where it was before the save; `nil` when the save created it.
    var before: Place?
    /// What it is after; `nil` when the save deleted it.
    var after: SavedDocument?
  }

  /// The generation of the store file the save replaced.
  var generationBefore: Int
  /// The generation it wrote.
  var generation: Int
  /// The categories that changed, by id.
  var categories: [CategoryChange]
  /// The documents that changed, by id.
  var documents: [DocumentChange]
}

extension Context {
  /// What the last save changed, contents read; `nil` before any save, and after a load, an
  /// undo past it or anything else that replaced the graph since.
  /// - Throws: ``ContextError`` when a content cannot be read from the store.
  func changesOfLastSave() throws(ContextError) -> SavedChanges? {
    guard let saved = lastSave, saved.editCount == editCount else { return nil }
    var categories: [SavedChanges.CategoryChange] = []
    var documents: [SavedChanges.DocumentChange] = []
    func nameBefore(ofCategory id: ObjectID) -> Name? {
      switch saved.baseline[id] {
      case .category(let record)?: return record.category.name
      case .absent?: return nil
      case .document?: return nil
      case nil: return categoryRecords[id]?.category.name
      }
    }
    for (id, before) in saved.baseline.sorted(by: { $0.key < $1.key }) {
      switch before {
      case .category(let record):
        let after = categoryRecords[id]?.category.name
        if after != record.category.name {
          categories.append(.init(id: id, before: record.category.name, after: after))
        }
      case .document(let record):
        let place = nameBefore(ofCategory: record.document.categoryID).map {
          SavedChanges.Place(category: $0, name: record.document.name)
        }
        let after = try savedDocument(id)
        if saved.changed.contains(id) {
          documents.append(.init(id: id, before: place, after: after))
        }
      case .absent:
        if let category = categoryRecords[id] {
          categories.append(.init(id: id, before: nil, after: category.category.name))
        } else if let after = try savedDocument(id) {
          documents.append(.init(id: id, before: nil, after: after))
        }
      }
    }
    // In file order, as messages list them: what the save wrote, then what it deleted.
    func place(_ id: ObjectID) -> (Int, Int) {
      if let record = documentRecords[id] { return (0, record.sequence) }
      if case .document(let record)? = saved.baseline[id] { return (1, record.sequence) }
      return (1, 0)
    }
    documents.sort { place($0.id) < place($1.id) }
    categories.sort {
      (categoryRecords[$0.id]?.sequence ?? Int.max) < (categoryRecords[$1.id]?.sequence ?? Int.max)
    }
    return SavedChanges(
      generationBefore: saved.generationBefore, generation: generation,
      categories: categories, documents: documents)
  }

  /// The document `id` as the graph holds it now, content read; `nil` when there is none.
  private func savedDocument(_ id: ObjectID) throws(ContextError) -> SavedDocument? {
    guard let record = documentRecords[id] else { return nil }
    let document = record.document
    return SavedDocument(
      id: id, name: document.name.text, categoryID: document.categoryID,
      categoryName: categoryRecords[document.categoryID]?.category.name.text ?? "?",
      content: try text(of: record.content), size: document.size, modified: document.modified)
  }
}

/// The baseline a save cleared, kept for ``Context/changesOfLastSave()``.
struct LastSave: Sendable {
  /// The generation of the file the save replaced.
  var generationBefore: Int
  /// The state at the save before of every object the save wrote.
  var baseline: [ObjectID: Baseline]
  /// Those of them that differ from that state (not changed back).
  var changed: Set<ObjectID>
  /// The context's edit count just after the save: any later change makes it stale.
  var editCount: Int
}
