// Bringing the index in step with a save: a plan read before the store's rename, applied
// after it in one transaction, phase by phase.

extension StoreIndex {
  // MARK: - Updating after a save

  /// What a save changes, worked out before the store's rename (old contents are read from
  /// the old file then).
  struct UpdatePlan {
    /// The record the plan was made against: it is applied only to an index still holding it.
    var record: IndexRecord
    var oldCategories: [ObjectID: IndexedCategory]
    /// Old rows of the documents of every category written document by document, and of
    /// deleted categories: row id, name, absolute content range.
    var oldDocuments: [ObjectID: (rowID: Int64, name: String, category: ObjectID)]
    /// Old texts (name, content) of documents whose full-text row must be deleted.
    var oldTexts: [ObjectID: (name: String, content: String)]
    var hasFullText: Bool
  }

  /// Reads what the update after saving `categories` needs from the index and, through
  /// `oldContent`, from the old file; `nil` when the index does not describe `identity`.
  func planUpdate(
    for categories: [CategoryToSave], identity: IndexIdentity,
    oldContent: (StoredLocation) throws(StoreError) -> String
  ) throws -> UpdatePlan? {
    let plan = try reading(identity) { record throws(SQLiteError) -> UpdatePlan in
      var plan = UpdatePlan(
        record: record, oldCategories: [:], oldDocuments: [:], oldTexts: [:],
        hasFullText: record.hasFullText)
      for category in try self.categories() { plan.oldCategories[category.id] = category }
      return plan
    }
    guard var plan = plan ?? nil else { return nil }
    let kept = Set(categories.filter { $0.unloadedDocuments != nil }.map(\.category.id))
    var written: [ObjectID: (name: Name, save: DocumentToSave)] = [:]
    for category in categories where category.unloadedDocuments == nil {
      for document in category.documents {
        written[document.document.id] = (document.document.name, document)
      }
    }
    // Old documents of every category not copied whole.
    var oldRanges: [ObjectID: StoredLocation] = [:]
    for category in plan.oldCategories.values where !kept.contains(category.id) {
      guard let rows = try rows(of: category.id, base: category.placement.documents.offset)
      else { throw SQLiteError(operation: "read", code: SQLiteError.corrupt, message: "rows") }
      for (rowID, document) in rows {
        plan.oldDocuments[document.id] = (rowID, document.name.text, category.id)
        oldRanges[document.id] = document.contentLocation
      }
    }
    guard plan.hasFullText else { return plan }
    for (id, old) in plan.oldDocuments {
      guard let range = oldRanges[id] else { continue }
      let now = written[id]
      if let now, now.save.unchangedLocation != nil { continue }
      if let now, now.save.content == nil, now.name.text == old.name { continue }
      let oldText = try oldContent(range)
      if let now, let text = now.save.content, text == oldText, now.name.text == old.name {
        continue
      }
      plan.oldTexts[id] = (old.name, oldText)
    }
    return plan
  }

  /// Brings the index in step with a save: O(documents of the categories written document
  /// by document) rows, plus one per category that moved; `newContent` reads a content of
  /// the new file. One transaction: a failure leaves the index describing the old file.
  /// Applied only when the index still holds the record `plan` was made against (another
  /// process may have rebuilt it from the new file meanwhile); whether it was applied.
  /// - Throws: ``SQLiteError`` or ``StoreError``.
  @discardableResult
  func apply(
    _ plan: UpdatePlan, saved categories: [CategoryToSave], receipt: SaveReceipt,
    identity: IndexIdentity, newContent: (StoredLocation) throws(StoreError) -> String
  ) throws -> Bool {
    try database.execute("BEGIN IMMEDIATE")
    do {
      guard try record() == plan.record else {
        try database.execute("ROLLBACK")
        return false
      }
      let categoryRows = try updateCategories(plan, categories, receipt)
      var written = Set<ObjectID>()
      var batch = try beginDocumentBatch()
      for category in categories where category.unloadedDocuments == nil {
        guard let placement = receipt.placements[category.category.id],
          let categoryRow = categoryRows[category.category.id]
        else { continue }
        try updateDocuments(
          of: category, row: categoryRow, placement: placement, plan, receipt, newContent,
          written: &written, batch: &batch)
      }
      try flush(&batch)
      try deleteRowsGone(plan, categories: Set(categories.map(\.category.id)), written: written)
      try writeRecord(identity, fullText: plan.hasFullText)
      try database.execute("COMMIT")
      return true
    } catch {
      database.rollBack(after: error)
      throw error
    }
  }

  /// Phase 1: every saved category's row, updated when it changed, inserted when new; the
  /// row id of each.
  private func updateCategories(
    _ plan: UpdatePlan, _ categories: [CategoryToSave], _ receipt: SaveReceipt
  ) throws(SQLiteError) -> [ObjectID: Int64] {
    var categoryRows: [ObjectID: Int64] = [:]
    for (ordinal, category) in categories.enumerated() {
      let id = category.category.id
      guard let placement = receipt.placements[id] else {
        throw StoreIndex.brokenInvariant("the save placed no category \(id)")
      }
      var summary = CategorySummary.empty
      if let unloaded = category.unloadedDocuments {
        summary = unloaded.summary
      } else {
        for saved in category.documents {
          summary.count(size: saved.document.size, modified: saved.document.modified)
        }
      }
      let name = category.category.name.text
      guard let old = plan.oldCategories[id] else {
        categoryRows[id] = try insertCategory(
          id: id, name: name, ordinal: ordinal, placement: placement, summary: summary)
        continue
      }
      categoryRows[id] = old.rowID
      guard
        old.name != name || old.ordinal != ordinal || old.placement != placement
          || old.summary != summary || old.touchedByLog
      else { continue }
      try database.run(
        StoreIndex.updateCategorySQL,
        StoreIndex.categoryValues(
          id: id, name: name, ordinal: ordinal, placement: placement, summary: summary,
          columns: CategoryColumn.rewritten) + [.integer(old.rowID)])
    }
    return categoryRows
  }

  /// Phase 2, for each category written document by document: its documents' rows (only
  /// those that moved are written: a one-document save rewrites the rows after it in its
  /// category, not the store's), and their full text when it changed. Adds each to `written`.
  private func updateDocuments(
    of category: CategoryToSave, row categoryRow: Int64, placement: CategoryPlacement,
    _ plan: UpdatePlan, _ receipt: SaveReceipt,
    _ newContent: (StoredLocation) throws(StoreError) -> String, written: inout Set<ObjectID>,
    batch: inout DocumentBatch
  ) throws {
    let base = placement.documents.offset
    for (position, document) in category.documents.enumerated() {
      let documentID = document.document.id
      written.insert(documentID)
      guard let placed = receipt.locations[documentID] else {
        throw StoreIndex.brokenInvariant("the save placed no document \(documentID)")
      }
      let stored = StoredDocument(
        id: documentID, name: document.document.name, categoryID: category.category.id,
        size: document.document.size, modified: document.document.modified,
        tags: document.document.tags, contentLocation: placed.content, location: placed.document)
      let old = plan.oldDocuments[documentID]
      let rowID: Int64
      if let old {
        rowID = old.rowID
        try database.run(
          StoreIndex.updateDocumentSQL,
          StoreIndex.documentValues(
            stored, category: categoryRow, position: position, base: base,
            columns: DocumentColumn.rewritten) + [.integer(rowID)])
      } else {
        rowID = try insert(
          stored, category: categoryRow, position: position, base: base, into: &batch)
      }
      guard plan.hasFullText, old == nil || plan.oldTexts[documentID] != nil else { continue }
      if let oldText = plan.oldTexts[documentID] {
        try deleteFullText(rowID: rowID, name: oldText.name, content: oldText.content)
      }
      let content = try document.content ?? newContent(placed.content)
      try insertFullText(rowID: rowID, name: document.document.name.text, content: content)
    }
  }

  /// Phase 3: the rows of documents and categories the save no longer holds.
  private func deleteRowsGone(
    _ plan: UpdatePlan, categories saved: Set<ObjectID>, written: Set<ObjectID>
  ) throws(SQLiteError) {
    for (id, old) in plan.oldDocuments where !written.contains(id) {
      if plan.hasFullText, let oldText = plan.oldTexts[id] {
        try deleteFullText(rowID: old.rowID, name: oldText.name, content: oldText.content)
      }
      try database.run("DELETE FROM documents WHERE id = ?", [.integer(old.rowID)])
    }
    for (id, old) in plan.oldCategories where !saved.contains(id) {
      try database.run("DELETE FROM documents WHERE category = ?", [.integer(old.rowID)])
      try database.run("DELETE FROM categories WHERE id = ?", [.integer(old.rowID)])
    }
  }

  /// The failure for an invariant docsh's own code broke (a save receipt without a placement
  /// it made): it stops a debug build, so that a test fails on it; a release build takes the
  /// index out of use (`SQLITE_MISUSE`: not damage, so its files are not removed).
  static func brokenInvariant(_ what: String) -> SQLiteError {
    assertionFailure("index invariant broken: \(what)")
    return SQLiteError(operation: "invariant", code: SQLiteError.misuse, message: what)
  }
}
