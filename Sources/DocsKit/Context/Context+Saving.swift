// Committing the graph to the store.
extension Context {
  /// Commits every change since the last save to the store. With no changes it writes
  /// nothing. When the save fails the file is as it was and the changes are still pending.
  ///
  /// When another session saved since this one loaded, the save merges: this session's
  /// changes are replayed, object by object and property by property, onto what the other
  /// session saved. Changes that touch different objects or properties combine, and a
  /// content both changed merges by lines (``LineMerge``: as git merges text, both appends
  /// kept, this session's first); real conflicts stop the save (nothing is written) unless `keepingMine` is set, which keeps
  /// this session's values for them. Either way the context then holds the merged graph.
  ///
  /// After a save that wrote the store, the ``SaveHook`` given at `init` follows it up
  /// (commits the store); a failing follow-up never fails the save, it leaves
  /// ``saveWarning``.
  /// - Throws: ``ContextError/conflicts(_:)`` listing the conflicts, or
  ///   ``ContextError/store(_:)`` saying why the store could not be written.
  public func save(keepingMine: Bool = false) throws(ContextError) {
    saveWarning = nil
    if !conflicts.isEmpty && !keepingMine { throw .conflicts(conflicts) }
    if conflicts.contains(where: { !$0.isResolvableByKeepingMine }) {
      throw .conflicts(conflicts.filter { !$0.isResolvableByKeepingMine })
    }
    guard hasChanges else {
      conflicts = []
      return
    }
    // Holding the lock from the first look at the file to the write: once merged with what
    // another session saved, nobody can save in between.
    do {
      try store.withSaveLock { () throws -> Void in try saveHoldingLock(keepingMine: keepingMine) }
      conflicts = []
      saveWarning = isWritingForSync ? nil : saveHook?.contextDidSave(self)
    } catch {
      throw contextError(from: error)
    }
  }

  /// Commits, merging first when another session saved; the store's lock is held.
  private func saveHoldingLock(keepingMine: Bool) throws(ContextError) {
    do {
      try commit()
    } catch {
      guard case .store(.modifiedElsewhere) = error else { throw error }
      try rebaseOntoSavedStore()
      let blocking = keepingMine ? conflicts.filter { !$0.isResolvableByKeepingMine } : conflicts
      guard blocking.isEmpty else { throw .conflicts(blocking) }
      try commit()
    }
  }

  /// Writes the graph to the store as it is.
  private func commit() throws(ContextError) {
    guard hasChanges else { return }
    // Faults point into the file this context loaded, which the save replaces: states kept
    // for undo must not point there afterwards.
    let currentFaults = documentRecords.compactMapValues { record -> StoredLocation? in
      if case .fault(let location) = record.content { return location }
      return nil
    }
    try loadContentsOfUndoHistory(except: currentFaults)
    // Which touched objects differ from the save before, asked while the baseline's faults
    // still point into the file they were read from.
    let changedBeforeSaving = Set(
      baseline.compactMap { id, saved in isUnchanged(id, since: saved) ? nil : id })
    let receipt: SaveReceipt
    do {
      receipt = try store.save(graphToSave())
    } catch {
      throw .store(error)
    }
    for (id, placed) in receipt.locations {
      guard var record = documentRecords[id] else { continue }
      record.location = placed.document
      if case .fault = record.content { record.content = .fault(placed.content) }
      documentRecords[id] = record
    }
    for (id, placement) in receipt.placements {
      unloadedCategories[id]?.placement = placement
    }
    rewriteUndoHistory { id, record in
      var record = record
      record.location = nil
      if case .fault = record.content, let placed = receipt.locations[id] {
        record.content = .fault(placed.content)
      }
      return record
    }
    lastSave = LastSave(
      generationBefore: generation, baseline: baseline, changed: changedBeforeSaving,
      editCount: editCount + 1)
    baseline = [:]
    generation = receipt.generation
    editCount += 1
  }

  /// The graph in the order a save writes it: categories and documents in file order, new
  /// ones after.
  func graphToSave() -> [CategoryToSave] {
    categoryRecords.values.sorted { $0.sequence < $1.sequence }.map { categoryRecord in
      if let unloaded = unloadedCategories[categoryRecord.category.id] {
        // Never loaded, so never changed: the store copies its documents as they are.
        return CategoryToSave(
          category: categoryRecord.category, documents: [], unloadedDocuments: unloaded)
      }
      let members = membersByCategory[categoryRecord.category.id]?.values ?? [:].values
      let documents = members.compactMap { documentRecords[$0] }
        .sorted { $0.sequence < $1.sequence }
        .map { record -> DocumentToSave in
          switch record.content {
          case .fault(let location):
            return DocumentToSave(
              document: record.document, content: nil, unchangedLocation: record.location,
              contentLocation: location, sequence: record.sequence)
          case .text(let text):
            return DocumentToSave(
              document: record.document, content: text, unchangedLocation: nil,
              contentLocation: nil, sequence: record.sequence)
          }
        }
      return CategoryToSave(category: categoryRecord.category, documents: documents)
    }
  }

  /// Replaces every fault kept for undo, other than the current ones, by its text.
  private func loadContentsOfUndoHistory(
    except currentFaults: [ObjectID: StoredLocation]
  ) throws(ContextError) {
    var failure: ContextError?
    rewriteUndoHistory { id, record in
      guard failure == nil, case .fault(let location) = record.content,
        currentFaults[id] != location
      else { return record }
      var loaded = record
      switch Result(catching: { () throws(ContextError) in try text(of: record.content) }) {
      case .success(let text): loaded.content = .text(text)
      case .failure(let error): failure = error
      }
      return loaded
    }
    if let failure { throw failure }
  }

  private func rewriteUndoHistory(_ transform: (ObjectID, DocumentRecord) -> DocumentRecord) {
    func rewrite(_ state: ObjectState?, _ id: ObjectID) -> ObjectState? {
      guard case .document(let record) = state else { return state }
      return .document(transform(id, record))
    }
    func rewrite(_ group: UndoGroup) -> UndoGroup {
      var group = group
      group.changes = group.changes.map {
        UndoGroup.Change(
          id: $0.id, before: rewrite($0.before, $0.id), after: rewrite($0.after, $0.id))
      }
      return group
    }
    undoStack = undoStack.map(rewrite)
    redoStack = redoStack.map(rewrite)
  }
}
