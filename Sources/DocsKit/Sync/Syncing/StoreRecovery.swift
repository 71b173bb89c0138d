#if canImport(Glibc)
  import Glibc
#endif

extension StoreRepository {
  /// What finds a lost or damaged store and what a killed git left (``StoreRecovery``).
  public var recovery: StoreRecovery { StoreRecovery(repository: self) }
}

/// What a killed process or a user's half-finished git leaves behind, found and put in order
/// before a sync; and a store file lost in a repository whose last commit holds it.
///
/// It holds the repository for its store file, locks and ledger; it reads commits with
/// ``CommitReader`` and knows HEAD's branch from ``RepositoryBranches``.
public struct StoreRecovery {
  /// The repository.
  let repository: StoreRepository
  /// Its git.
  let git: Git

  /// The recovery of `repository`.
  init(repository: StoreRepository) {
    self.repository = repository
    git = repository.git
  }

  // MARK: - A lost store

  /// The error every command shows (exit 3) when the store file is missing but the last
  /// commit holds the store, so that a lost file is never taken for an empty store; `nil`
  /// when the file exists or no commit holds the store (a missing store is then simply
  /// empty).
  /// - Throws: ``SyncError`` when git cannot be run.
  public func missingStoreError() throws(SyncError) -> SyncError? {
    guard try repository.storeFileHead() == nil, let head = try commitHoldingStore() else {
      return nil
    }
    return .storeMissing(path: repository.storePath, commit: head.short)
  }

  /// The error every command shows (exit 3) when loading the store failed with `error`
  /// because the file is damaged (cut short, conflict markers, not a store) and the last
  /// commit holds the store; `nil` otherwise (the shell then shows `error` itself).
  /// - Throws: ``SyncError`` when git cannot be run.
  public func damagedStoreError(for error: StoreError) throws(SyncError) -> SyncError? {
    guard StoreRecovery.isDamage(error), let head = try commitHoldingStore() else {
      return nil
    }
    return .storeDamaged(path: repository.storePath, reason: error.description, commit: head.short)
  }

  /// HEAD, when it holds the store.
  /// - Throws: ``SyncError`` when git cannot be run, or HEAD names no commit although docsh
  ///   committed here (a broken repository cannot say whether it holds the store).
  private func commitHoldingStore() throws(SyncError) -> CommitID? {
    guard let head = try git.head() else {
      if let committed = repository.ledger().committed {
        throw .gitFailed(
          step: "read HEAD",
          message: "HEAD names no commit, but docsh committed \(committed.head.short) here")
      }
      return nil
    }
    return try repository.commitReader.treeHoldsStore(head) ? head : nil
  }

  /// Whether `error` says the file is damaged, as opposed to unreadable or newer.
  static func isDamage(_ error: StoreError) -> Bool {
    switch error {
    case .malformed, .notAStore, .invalidStore: return true
    default: return false
    }
  }

  /// Writes the store file anew from HEAD, through the store of `target`, when it is missing
  /// or damaged and HEAD holds the store (a damaged file stays as `store.json.bak`).
  /// - Throws: ``SyncError/store(_:)`` when the file is damaged and no commit holds a store,
  ///   or when it cannot be written.
  func restoreLostStore(
    _ target: IncomingTarget, into report: inout SyncReport, progress: (any ProgressObserver)?
  ) throws(SyncError) {
    // A context that loaded the store (and writes what comes in) vouches for all but its
    // header, which is checked here: no whole parse of a large store on every sync.
    if target.context != nil, try repository.storeGeneration(target.store) != nil { return }
    let bytes = try repository.storeFileBytes()
    var damage: StoreError?
    if let bytes {
      do throws(StoreError) {
        _ = try ParsedStore(bytes: bytes, name: repository.storePath)
        return
      } catch {
        guard StoreRecovery.isDamage(error) else { throw .store(error) }
        damage = error
      }
    }
    guard let head = try commitHoldingStore() else {
      if let damage { throw .store(damage) }
      return
    }
    let restored = try repository.withStoreLock(target.store) { lock throws(SyncError) -> Bool in
      guard try repository.storeFileBytes() == bytes else { return false }
      let snapshot: StoreSnapshot
      if let old = try git.blobs(
        [head.hex + ":" + repository.pathInRepository], step: "read the store"
      )
      .first ?? nil {
        do throws(StoreError) {
          snapshot = try StoreSnapshot(
            bytes: old, name: "\(head.short):\(repository.pathInRepository)")
        } catch {
          throw .notAStoreAtCommit(head.short, reason: error.description)
        }
      } else {
        snapshot = try repository.commitReader.wholeTree(of: head, progress: progress).snapshot
      }
      do throws(StoreError) {
        try lock.store.replaceWhole(with: snapshot.encoded(), lock)
      } catch {
        throw .store(error)
      }
      return true
    }
    // Another session saved a new store meanwhile: that one stands.
    if restored {
      // HEAD may be of layout 1 (the store lost before a conversion): the next commit
      // compares the whole store, which converts it if so.
      repository.recordCommitted(
        head, generation: .known(try repository.storeGeneration(target.store) ?? 0),
        layoutVersion: 1)
      report.notes.append(.restoredStore(fromCommit: head.short))
    }
  }

  // MARK: - Interrupted work

  /// Removes lock files left by a git that is gone, and the ref docsh builds commits on.
  /// - Throws: ``SyncError/busy(lock:)`` when a lock may still be in use.
  func recoverInterruptedWork(into report: inout SyncReport) throws(SyncError) {
    try removeStaleLocks(into: &report)
  }

  /// Removes lock files of the repository that no process holds open and that are older
  /// than a few seconds (a git killed half way leaves them and refuses to work after).
  private func removeStaleLocks(into report: inout SyncReport) throws(SyncError) {
    var refs = [CommitWriter.buildRef, EncryptedFirstCommit.buildRef]
    if let branch = try repository.branches.currentBranch() {
      refs += ["refs/heads/\(branch)", "refs/remotes/origin/\(branch)"]
    }
    for path in try git.files.removeStaleLocks(ofRefs: refs) {
      report.notes.append(.removedStaleLock(path))
    }
  }
}
