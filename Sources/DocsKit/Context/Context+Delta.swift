// The delta of a save: what changed since the last save, by id, before and after, made once
// from the baseline (the state each touched object had at the last save) and the graph now.
extension Context {
  /// What a save now changes: every object of the baseline that differs from its saved
  /// state, categories and documents each in the store's order, those deleted last, with
  /// the contents of those it writes and the counts of the categories it touches.
  /// - Throws: ``ContextError`` when a content to write cannot be read from the store.
  func makeDelta() throws(ContextError) -> StoreDelta {
    var categories: [(order: (Int, Int), change: StoreDelta.CategoryChange)] = []
    var documents: [(order: (Int, Int), change: StoreDelta.DocumentChange)] = []
    for (id, difference) in try trackedChanges().objects {
      switch (difference.saved, difference.now) {
      case (.category(let then), let now):
        let record: CategoryRecord? = if case .category(let record)? = now { record } else { nil }
        categories.append(
          (
            (record == nil ? 1 : 0, record?.sequence ?? then.sequence),
            .init(id: id, before: then.category.name, after: record?.category.name)
          ))
      case (.absent, .category(let now)?):
        categories.append(((0, now.sequence), .init(id: id, before: nil, after: now.category.name)))
      case (.document(let then), let now):
        let record: DocumentRecord? = if case .document(let record)? = now { record } else { nil }
        documents.append(
          (
            (record == nil ? 1 : 0, record?.sequence ?? then.sequence),
            try change(id, before: then, after: record, difference)
          ))
      case (.absent, .document(let now)?):
        documents.append(((0, now.sequence), try change(id, before: nil, after: now, difference)))
      default:
        break
      }
    }
    let categoryChanges = categories.sorted { $0.order < $1.order }.map(\.change)
    let documentChanges = documents.sorted { $0.order < $1.order }.map(\.change)
    return StoreDelta(
      generationBefore: generation, generation: generation + 1, categories: categoryChanges,
      documents: documentChanges,
      counts: categoryCounts(categories: categoryChanges, documents: documentChanges))
  }

  /// The change of the document `id` from `then` (its saved state; `nil`: it is new) to
  /// `now` (`nil`: deleted), as `difference` found it, with its content read when it is
  /// written.
  private func change(
    _ id: ObjectID, before then: DocumentRecord?, after now: DocumentRecord?,
    _ difference: ObjectDifference
  ) throws(ContextError) -> StoreDelta.DocumentChange {
    let place = then.map { record in
      StoreDelta.Place(
        categoryID: record.document.categoryID,
        category: savedName(ofCategory: record.document.categoryID),
        name: record.document.name)
    }
    let contentChanged =
      then != nil && now != nil ? difference.properties.contains(.content) : now != nil
    return StoreDelta.DocumentChange(
      id: id, before: place, after: now?.document,
      categoryName: now.flatMap { categoryRecords[$0.document.categoryID]?.category.name },
      content: try now.map { record throws(ContextError) in try text(of: record.content) },
      contentChanged: contentChanged)
  }

  /// The name the category `id` had at the last save ("?" for one created since, which
  /// held no saved document).
  private func savedName(ofCategory id: ObjectID) -> Name {
    if case .category(let record)? = baseline[id] { return record.category.name }
    return categoryRecords[id]?.category.name ?? Name(unchecked: "?")
  }

  /// The counts of the categories that `categories` and `documents` (a save's changes)
  /// touch: after the save from the graph (an unloaded category's from its summary), before
  /// it less the documents the save brought in and plus those it took out.
  private func categoryCounts(
    categories: [StoreDelta.CategoryChange], documents: [StoreDelta.DocumentChange]
  ) -> [ObjectID: StoreDelta.CategoryCount] {
    var differences: [ObjectID: Int] = [:]  // after less before
    for category in categories where category.after != nil { differences[category.id] = 0 }
    for document in documents {
      let before = document.before?.categoryID
      let after = document.after?.categoryID
      if let before { differences[before, default: 0] -= before == after ? 0 : 1 }
      if let after { differences[after, default: 0] += before == after ? 0 : 1 }
    }
    var counts: [ObjectID: StoreDelta.CategoryCount] = [:]
    for (id, difference) in differences {
      guard let record = categoryRecords[id] else { continue }  // deleted
      let after =
        unloadedCategories[id]?.summary.documentCount ?? membersByCategory[id]?.count ?? 0
      counts[id] = StoreDelta.CategoryCount(
        name: record.category.name, before: after - difference, after: after)
    }
    return counts
  }
}
