// The store's sessions and its save log: leaving, and folding the log into the file (a
// checkpoint), asked for or when the log has grown large.
extension Context {
  /// Leaves the store: this process no longer counts among its sessions. Whether it was the
  /// last, with a save log beside the file: then ``foldSaveLog()`` (here or in another
  /// process) makes the file alone hold every save.
  public func leaveStore() -> Bool {
    store.leave()
  }

  /// What the store found wrong beside its file when it loaded, without refusing to load:
  /// a save log of another version of the file, left unapplied and set aside by the next
  /// save. `nil` when nothing.
  public var storeWarning: String? { store.loadWarning }

  /// The store file's path, its links followed: where its lock files are.
  public var storeFilePath: String { store.filePath }

  /// How large the store's save log is, and its file, in bytes (both 0 without a log).
  public var saveLogSize: (log: Int, store: Int) { store.logSize }

  /// Folds the store's save log into its file (a checkpoint): the file is written whole,
  /// as the store is saved now (another session's saves included, after loading them), and
  /// holds every save; the log goes. Nothing is written when there is no log.
  /// - Throws: ``ContextError/unsavedChanges`` when this context has changes to save first;
  ///   ``ContextError/store(_:)`` when the store cannot be read or written (the files are
  ///   then as they were).
  public func foldSaveLog() throws(ContextError) {
    guard try !hasChanges else { throw .unsavedChanges }
    guard store.isOnlySession else { throw .otherSessionsOpen }
    try holdingSaveLock { _ throws(ContextError) -> Void in try foldCatchingUpHoldingLock() }
  }

  /// Folds, the lock held, after loading what another session saved when there is any: under
  /// the lock nobody appends, so once this context holds what is saved, the log is all there
  /// is to fold.
  private func foldCatchingUpHoldingLock() throws(ContextError) {
    do {
      try foldHoldingLock()
    } catch {
      switch error {
      case .store(.modifiedElsewhere), .store(.deletedElsewhere):
        try reload()
        try foldHoldingLock()
      default:
        throw error
      }
    }
  }

  /// Folds the save log when it has grown past ``SaveLog/foldsPast(storeSize:)`` and no
  /// other session has the store open, so that the log, and what opening the store costs,
  /// stays in proportion to the file. The save lock is held; the save has succeeded
  /// whatever happens here (a fold that fails leaves the log as it was, for the next one).
  func foldWhenTheLogIsLarge() {
    let size = store.logSize
    guard size.log > SaveLog.foldsPast(storeSize: size.store), !mayHaveChanges,
      store.isOnlySession
    else { return }
    try? foldHoldingLock()
  }

  private func foldHoldingLock() throws(ContextError) {
    guard store.logSize.log > 0 else { return }
    let receipt = try writeWholeFile { graph throws(StoreError) in try store.fold(graph) }
    // Nothing is changed (objects changed back at most): the saved states kept for them
    // would point into the files the fold replaced.
    baseline = [:]
    generation = receipt.generation
    editCount += 1
  }
}
