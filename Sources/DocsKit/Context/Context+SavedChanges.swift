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
    var categoryID: ObjectID
    var category: Name
    var name: Name
  }

  /// How many documents a category held before the save and after it.
  struct CategoryCount: Sendable, Equatable {
    /// Its name after the save.
    var name: Name
    var before: Int
    var after: Int
    /// The names of its documents the save left as they were, whose files move: given only
    /// when the count crosses the fan-out limit the changes were read with.
    var unchanged: [Name] = []
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
  /// The counts of the categories that hold a changed document, or held one, and of those
  /// created or renamed, by id (a category deleted has none).
  var counts: [ObjectID: CategoryCount] = [:]
}

extension Context {
  /// What the last save changed, contents read; `nil` before any save, and after a load, an
  /// undo past it or anything else that replaced the graph since. A category whose count
  /// crosses `fanOutLimit` comes with the names of its documents the save left alone.
  /// - Throws: ``ContextError`` when a content cannot be read from the store.
  func changesOfLastSave(
    fanOutLimit: Int = RepositoryLayout.defaultFanOutLimit
  ) throws(ContextError) -> SavedChanges? {
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
          SavedChanges.Place(
            categoryID: record.document.categoryID, category: $0, name: record.document.name)
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
      categories: categories, documents: documents,
      counts: categoryCounts(categories: categories, documents: documents, limit: fanOutLimit))
  }

  /// The counts of the categories that `categories` and `documents` (a save's changes)
  /// touch: after the save from the graph (an unloaded category's from its summary), before
  /// it less the documents the save brought in and plus those it took out. Only a category
  /// crossing `limit` has its members read, for the names of those the save left alone.
  private func categoryCounts(
    categories: [SavedChanges.CategoryChange], documents: [SavedChanges.DocumentChange],
    limit: Int
  ) -> [ObjectID: SavedChanges.CategoryCount] {
    var differences: [ObjectID: Int] = [:]  // after less before
    for category in categories where category.after != nil { differences[category.id] = 0 }
    for document in documents {
      let before = document.before?.categoryID
      let after = document.after?.categoryID
      if let before { differences[before, default: 0] -= before == after ? 0 : 1 }
      if let after { differences[after, default: 0] += before == after ? 0 : 1 }
    }
    let changed = Set(documents.map(\.id))
    var counts: [ObjectID: SavedChanges.CategoryCount] = [:]
    for (id, difference) in differences {
      guard let record = categoryRecords[id] else { continue }  // deleted
      let members = membersByCategory[id]
      let after = unloadedCategories[id]?.summary.documentCount ?? members?.count ?? 0
      var count = SavedChanges.CategoryCount(
        name: record.category.name, before: after - difference, after: after)
      if (count.before > limit) != (count.after > limit), let members {
        count.unchanged = members.values.filter { !changed.contains($0) }
          .compactMap { documentRecords[$0]?.document.name }
      }
      counts[id] = count
    }
    return counts
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
