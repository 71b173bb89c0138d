// Syncing a context's store: save, sync, load what the sync wrote — one call, so that no
// client of DocsKit keeps a graph the sync replaced underneath it.
extension Context {
  /// Saves what is pending (the save stands whatever the sync does then), syncs the store
  /// through `repository` (``StoreSyncer/sync(_:store:observer:progress:)``), writing what
  /// came in through this context, so that the graph shows it after.
  /// - Throws: ``ContextError`` when the save or the load fails, ``SyncError`` when the sync
  ///   does (the saved changes then stand, committed or to be committed by the next sync).
  public func sync(
    through repository: StoreRepository, options: SyncOptions = SyncOptions(),
    observer: (any SyncObserving)? = nil, progress: (any ProgressObserver)? = nil
  ) throws -> SyncReport {
    if try hasChanges { try save() }
    let report: SyncReport
    do {
      report = try repository.syncer.sync(
        options, observer: observer, progress: progress, writingThrough: .context(self))
    } catch {
      // What came in may be half applied, unsaved: the store file is the truth. A store that
      // cannot be read now says so at the next command; the sync's failure is the news here.
      try? reload()
      throw error
    }
    // A store written anew from the repository replaced the file this graph came from.
    if report.notes.contains(where: { if case .restoredStore = $0 { true } else { false } }) {
      try reload()
    }
    return report
  }
}
