// Syncing a context's store: save, sync, load what the sync wrote — one call, so that no
// client of DocsKit keeps a graph the sync replaced underneath it.
extension Context {
  /// Saves what is pending (the save stands whatever the sync does then), syncs the store
  /// through `repository` (``StoreRepository/sync(_:observer:progress:)``), and loads the
  /// store the sync wrote, so that the graph shows what came in.
  /// - Throws: ``ContextError`` when the save or the load fails, ``SyncError`` when the sync
  ///   does (the saved changes then stand, committed or to be committed by the next sync).
  public func sync(
    through repository: StoreRepository, options: SyncOptions = SyncOptions(),
    observer: (any SyncObserving)? = nil, progress: (any ProgressObserver)? = nil
  ) throws -> SyncReport {
    if hasChanges { try save() }
    let report = try repository.sync(options, observer: observer, progress: progress)
    try reload()
    return report
  }
}
