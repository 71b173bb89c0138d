// Saving: the file (or its save log) first, then the index brought in step with it when it
// described what was there before.

extension IndexedStore {
  // MARK: - Saving

  public func withSaveLock<Result>(
    _ body: (LockedStore) throws(StoreError) -> Result
  ) throws(StoreError) -> Result {
    try file.withSaveLock(handing: self, body)
  }

  public func currentGeneration() throws(StoreError) -> Int? { try file.currentGeneration() }

  public func makeReader() -> any StoreReading { file.makeReader() }

  /// Replaces the file as ``JSONStore`` does. The index described the file replaced: it
  /// answers no more, and the next load rebuilds it for the new file.
  public func replaceWhole(with bytes: [UInt8], _ lock: LockedStore) throws(StoreError) {
    state.distrust()
    try file.replaceWhole(with: bytes, lock)
  }

  public func append(_ delta: StoreDelta) throws(StoreError) -> SaveReceipt? {
    try file.withSaveLock { _ throws(StoreError) -> SaveReceipt? in
      let trusted = state.trusted
      guard let receipt = try file.append(delta) else { return nil }
      issuedFromIndex = [:]
      guard let (index, identity, isRacy) = trusted, let record = receipt.record,
        let frame = file.attached?.last
      else { return receipt }
      var after = identity
      after.log = LogPosition(after: frame)
      state.trust(after, isRacy: isRacy)
      let applied = withIndex(index) { () throws(SQLiteError) -> Bool in
        do {
          return try index.apply([record], to: identity, making: after) {
            location throws(StoreError) in try file.readContent(at: location)
          }
        } catch let error as SQLiteError {
          throw error
        } catch {
          // A content the index placed cannot be read: it cannot be trusted.
          throw SQLiteError(operation: "read", code: SQLiteError.corrupt, message: "\(error)")
        }
      }
      // Another process applied this record first (reading the log as it opened the
      // store): the index is in step if it holds `after`; each read checks anyway.
      if applied == false, currentRecord(of: index)?.identity != after {
        state.distrust()
      }
      return receipt
    }
  }

  public var takesAppends: Bool { file.takesAppends }

  /// The file's replacement (``JSONStore/beginReplacement()``); once it stands, the index no
  /// longer answers for the file: the next load proves it stale and rebuilds it.
  public func beginReplacement() throws(StoreError) -> StoreReplacement {
    try file.beginReplacement { [unowned self] in
      issuedFromIndex = [:]
      state.distrust()
    }
  }

  public func save(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt {
    try writeWhole(categories) { categories throws(StoreError) in try file.save(categories) }
  }

  public func fold(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt {
    try writeWhole(categories) { categories throws(StoreError) in try file.fold(categories) }
  }

  public var logSize: (log: Int, store: Int) { file.logSize }

  public var isOnlySession: Bool { file.isOnlySession }

  public var loadWarning: String? { file.logWarning }

  public func leave() -> Bool { file.leave() }

  public func movementSinceLoad() -> StoreMovement { file.movementSinceLoad() }

  /// Writes the whole store file with `write`, under the lock, and brings the index in step.
  private func writeWhole(
    _ categories: [CategoryToSave],
    _ write: ([CategoryToSave]) throws(StoreError) -> SaveReceipt
  ) throws(StoreError) -> SaveReceipt {
    try file.withSaveLock { _ throws(StoreError) -> SaveReceipt in
      let categories = try expandingLogged(categories.map(remapped))
      return try saveHoldingLock(categories, write)
    }
  }

  private func saveHoldingLock(
    _ categories: [CategoryToSave],
    _ write: ([CategoryToSave]) throws(StoreError) -> SaveReceipt
  ) throws(StoreError) -> SaveReceipt {
    // Old texts for the full text come from the old file, before it is replaced.
    var plan: StoreIndex.UpdatePlan?
    if let (index, identity, _) = state.trusted {
      do {
        plan = try index.planUpdate(for: categories, identity: identity) {
          location throws(StoreError) in try file.readContent(at: location)
        }
      } catch let error as SQLiteError {
        disable(index, error)
      } catch {
        // An old content could not be read where the index placed it: with no plan, the
        // index is not updated and the next load rebuilds it; the save itself reads what it
        // needs again and reports a failure of the file.
        plan = nil
      }
    }
    let receipt = try write(categories)
    issuedFromIndex = [:]
    // Stat the new file now it is in place: the rename changed its change time.
    let status = file.statusOfLoadedFile()
    let identity = status.map {
      IndexIdentity(storePath: realPath, status: $0, generation: receipt.generation)
    }
    state.saved(identity)
    if let plan, let identity, let index = state.index {
      do {
        try index.apply(
          plan, saved: categories, receipt: receipt, identity: identity
        ) { location throws(StoreError) in try file.readContent(at: location) }
      } catch let error as SQLiteError {
        disable(index, error)
      } catch {
        // The new file could not be read back: the next load rebuilds the index.
      }
    }
    return receipt
  }

  /// `categories` with every one handed over unloaded that a record of the save log
  /// touched given document by document, as the index or the scan holds them: a whole file
  /// copies a category's run from the store file only while the run is its documents.
  private func expandingLogged(
    _ categories: [CategoryToSave]
  ) throws(StoreError) -> [CategoryToSave] {
    try categories.map { category throws(StoreError) -> CategoryToSave in
      guard let unloaded = category.unloadedDocuments, unloaded.touchedByLog else {
        return category
      }
      let documents = try self.documents(of: category.category.id, unloaded)
      let expanded = documents.enumerated().map { position, stored in
        DocumentToSave(
          document: stored.document,
          content: nil, unchangedLocation: stored.location,
          contentLocation: stored.contentLocation, sequence: position)
      }
      return CategoryToSave(category: category.category, documents: expanded)
    }
  }

  private func remapped(_ category: CategoryToSave) -> CategoryToSave {
    guard let scanned = state.scanned, scanned.indexLied else { return category }
    var category = category
    if category.unloadedDocuments != nil,
      let placement = scanned.placements[category.category.id]
    {
      category.unloadedDocuments?.placement = placement
    }
    category.documents = category.documents.map { document in
      var document = document
      if let location = document.contentLocation,
        let id = issuedFromIndex[location], let placed = scanned.locations[id]
      {
        document.contentLocation = placed.content
        if document.unchangedLocation != nil { document.unchangedLocation = placed.document }
      }
      return document
    }
    return category
  }
}
