// Saving: the file first, then the index brought in step with it when it described the old
// file.

extension IndexedStore {
  // MARK: - Saving

  public func withSaveLock<Result>(_ body: () throws -> Result) throws -> Result {
    try file.withSaveLock(body)
  }

  public func save(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt {
    let categories = categories.map(remapped)
    do {
      return try file.withSaveLock { () throws -> SaveReceipt in
        try saveHoldingLock(categories)
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw .invalidStore(displayName, reason: "\(error)")
    }
  }

  private func saveHoldingLock(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt {
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
    let receipt = try file.save(categories)
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
