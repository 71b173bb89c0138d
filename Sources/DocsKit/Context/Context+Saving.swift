// Committing the graph to the store: the save, appended to the log or written whole.
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
  /// After a save that wrote the store, the ``SaveObserver`` given at `init` follows it up
  /// (commits the store) with the save's delta, the lock still held; a failing follow-up
  /// never fails the save, it leaves ``saveWarning``.
  /// - Throws: ``ContextError/conflicts(_:)`` listing the conflicts, or
  ///   ``ContextError/store(_:)`` saying why the store could not be written.
  public func save(keepingMine: Bool = false) throws(ContextError) {
    try save(resolving: keepingMine ? .mine : nil)
  }

  /// Commits as ``save(keepingMine:)`` does, settling the conflicts found with another
  /// session's save by `resolution` (``ConflictResolution``): those of an earlier save that
  /// stopped, and those this one finds. Without a resolution, conflicts stop the save.
  /// - Throws: ``ContextError/conflicts(_:)`` listing the conflicts left, or
  ///   ``ContextError/store(_:)`` saying why the store could not be written.
  public func save(resolving resolution: ConflictResolution?) throws(ContextError) {
    try save(resolving: resolution, origin: .user)
  }

  /// The one save path, every save's — the user's, and a sync's incoming one
  /// (``writeIncoming(_:)``): the store written under its lock, then the observer told the
  /// delta with `origin`, the lock still held. The delta written; `nil` when nothing was, or
  /// when nobody asked for it (the user's save written whole, no observer following up).
  /// - Throws: as ``save(resolving:)``.
  @discardableResult
  func save(
    resolving resolution: ConflictResolution?, origin: SaveOrigin
  ) throws(ContextError) -> StoreDelta? {
    saveWarning = nil
    if !conflicts.isEmpty {
      guard let resolution else { throw .conflicts(conflicts) }
      try resolveConflicts(resolution)
    }
    if conflicts.contains(where: { !$0.isResolvableByKeepingMine }) {
      throw .conflicts(conflicts.filter { !$0.isResolvableByKeepingMine })
    }
    guard try trackedChanges().hasChanges else {
      // Objects changed and changed back: their saved states are their states now.
      baseline = [:]
      conflicts = []
      return nil
    }
    // Holding the lock from the first look at the file to the write: once merged with what
    // another session saved, nobody can save in between; and the observer hears this save
    // before any later one.
    let delta = try holdingSaveLock { lock throws(ContextError) -> StoreDelta? in
      // A sync asks what its save changed: the delta is made for it whoever else follows.
      let needsDelta = origin != .user || (observer?.followsUpSaves ?? false)
      let delta = try saveHoldingLock(resolving: resolution, makingDelta: needsDelta)
      if let delta, let observer {
        saveWarning = observer.storeDidSave(delta, origin: origin, lock: lock)
      }
      foldWhenTheLogIsLarge()
      return delta
    }
    conflicts = []
    return delta
  }

  /// Runs `body` holding the store's save lock (``StoreWriting/withSaveLock(_:)``), handing
  /// it the lock.
  /// - Throws: ``ContextError/store(_:)`` when the lock cannot be taken, or the category
  ///   list could not be read (nothing writes from that empty graph), or what `body` throws.
  func holdingSaveLock<Value>(
    _ body: (LockedStore) throws(ContextError) -> Value
  ) throws(ContextError) -> Value {
    try checkCategoryList()
    let outcome: Result<Value, ContextError>
    do {
      outcome = try store.withSaveLock { lock throws(StoreError) in
        Result { () throws(ContextError) in try body(lock) }
      }
    } catch {
      throw .store(error)
    }
    return try outcome.get()
  }

  /// Commits, merging first when another session saved; the store's lock is held. The
  /// delta written (see ``commit(makingDelta:)``), `nil` when nothing was.
  func saveHoldingLock(
    resolving resolution: ConflictResolution?, makingDelta needsDelta: Bool
  ) throws(ContextError) -> StoreDelta? {
    do {
      return try commit(makingDelta: needsDelta)
    } catch {
      guard case .store(.modifiedElsewhere) = error else { throw error }
      try rebaseOntoSavedStore()
      if let resolution, !conflicts.isEmpty { try resolveConflicts(resolution) }
      guard conflicts.isEmpty else { throw .conflicts(conflicts) }
      return try commit(makingDelta: needsDelta)
    }
  }

  /// Writes what changed to the store: appended to the save log, or (when the store file
  /// cannot take a log yet) as the whole file. The delta written, with the generation it
  /// produced; `nil` when nothing changed, and when the whole file was written and
  /// `needsDelta` is `false` (nobody asked what the save changed: a whole write is made
  /// from the graph, and making a delta would cost as much as the save's own work).
  private func commit(makingDelta needsDelta: Bool) throws(ContextError) -> StoreDelta? {
    guard try trackedChanges().hasChanges else { return nil }
    let appends = store.takesAppends
    var delta = appends || needsDelta ? try makeDelta() : nil
    var appended: SaveReceipt?
    if appends, let delta {
      do {
        appended = try store.append(delta)
      } catch {
        throw .store(error)
      }
    }
    let receipt: SaveReceipt
    if let appended {
      receipt = appended
      // The files this context loaded stay as they were (the log only grows): every fault,
      // of the graph or kept for undo, still points at its bytes.
      for (id, placed) in receipt.locations {
        guard var record = documentRecords[id] else { continue }
        record.location = placed.document
        if case .fault = record.content { record.content = .fault(placed.content) }
        documentRecords[id] = record
      }
    } else {
      receipt = try commitWhole()
    }
    baseline = [:]
    generation = receipt.generation
    editCount += 1
    delta?.generation = receipt.generation
    return delta
  }

  /// Writes the whole graph as the store file.
  private func commitWhole() throws(ContextError) -> SaveReceipt {
    try writeWholeFile { graph throws(StoreError) in try store.save(graph) }
  }

  /// Writes the whole graph as the store file with `write` (a save or a fold), and points
  /// every record and every state kept for undo at where it put them.
  func writeWholeFile(
    _ write: ([CategoryToSave]) throws(StoreError) -> SaveReceipt
  ) throws(ContextError) -> SaveReceipt {
    // Faults point into the files this context loaded, which the write replaces: states
    // kept for undo must not point there afterwards.
    let currentFaults = documentRecords.compactMapValues { record -> StoredLocation? in
      if case .fault(let location) = record.content { return location }
      return nil
    }
    try loadContentsOfUndoHistory(except: currentFaults)
    let receipt: SaveReceipt
    do {
      receipt = try write(graphToSave())
    } catch {
      throw .store(error)
    }
    adoptWholeFile(receipt)
    return receipt
  }

  /// Points every record, and every state kept for undo, at where a whole write of the
  /// store file put it.
  private func adoptWholeFile(_ receipt: SaveReceipt) {
    for (id, placed) in receipt.locations {
      // Changed where it is stored: one lookup, and no copy of the record.
      guard let index = documentRecords.index(forKey: id) else { continue }
      documentRecords.values[index].location = placed.document
      if case .fault = documentRecords.values[index].content {
        documentRecords.values[index].content = .fault(placed.content)
      }
    }
    for (id, placement) in receipt.placements {
      unloadedCategories[id]?.placement = placement
      unloadedCategories[id]?.touchedByLog = false
    }
    rewriteUndoHistory { id, record in
      record.location = nil
      if case .fault = record.content, let placed = receipt.locations[id] {
        record.content = .fault(placed.content)
      }
    }
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
      let records = members.compactMap { documentRecords[$0] }
      // Offsets are sorted, not the records, which are large to move.
      let sequences = records.map(\.sequence)
      let documents = records.indices.sorted { sequences[$0] < sequences[$1] }
        .map { index -> DocumentToSave in
          let record = records[index]
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
      else { return }
      switch Result(catching: { () throws(ContextError) in try text(of: record.content) }) {
      case .success(let text): record.content = .text(text)
      case .failure(let error): failure = error
      }
    }
    if let failure { throw failure }
  }

  /// Hands every document state the undo and redo stacks hold to `transform`, in place: a
  /// save after thousands of commands walks as many groups, and copying each group's
  /// changes to rewrite them cost more than the rewriting.
  private func rewriteUndoHistory(_ transform: (ObjectID, inout DocumentRecord) -> Void) {
    func rewrite(_ state: inout ObjectState?, _ id: ObjectID) {
      guard case .document(var record) = state else { return }
      state = nil  // the record alone holds its storage while it changes
      transform(id, &record)
      state = .document(record)
    }
    func rewrite(_ stack: inout [UndoGroup]) {
      for group in stack.indices {
        for change in stack[group].changes.indices {
          let id = stack[group].changes[change].id
          rewrite(&stack[group].changes[change].before, id)
          rewrite(&stack[group].changes[change].after, id)
        }
      }
    }
    rewrite(&undoStack)
    rewrite(&redoStack)
  }
}
