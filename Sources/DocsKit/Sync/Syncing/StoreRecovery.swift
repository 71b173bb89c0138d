#if canImport(Glibc)
  import Glibc
#endif

// What a killed process or a user's half-finished git leaves behind, found and put in order
// before a sync; and a store file lost in a repository whose last commit holds it.
extension StoreRepository {
  // MARK: - A lost store

  /// The error every command shows (exit 3) when the store file is missing but the last
  /// commit holds the store, so that a lost file is never taken for an empty store; `nil`
  /// when the file exists or no commit holds the store (a missing store is then simply
  /// empty).
  /// - Throws: ``SyncError`` when git cannot be run.
  public func missingStoreError() throws(SyncError) -> SyncError? {
    guard try storeFileHead() == nil, let head = try commitHoldingStore() else { return nil }
    return .storeMissing(path: storePath, commit: head.short)
  }

  /// The error every command shows (exit 3) when loading the store failed with `error`
  /// because the file is damaged (cut short, conflict markers, not a store) and the last
  /// commit holds the store; `nil` otherwise (the shell then shows `error` itself).
  /// - Throws: ``SyncError`` when git cannot be run.
  public func damagedStoreError(for error: StoreError) throws(SyncError) -> SyncError? {
    guard StoreRepository.isDamage(error), let head = try commitHoldingStore() else {
      return nil
    }
    return .storeDamaged(path: storePath, reason: error.description, commit: head.short)
  }

  /// HEAD, when it holds the store.
  /// - Throws: ``SyncError`` when git cannot be run, or HEAD names no commit although docsh
  ///   committed here (a broken repository cannot say whether it holds the store).
  private func commitHoldingStore() throws(SyncError) -> CommitID? {
    guard let head = try git.head() else {
      if let committed = ledger().committed {
        throw .gitFailed(
          step: "read HEAD",
          message: "HEAD names no commit, but docsh committed \(committed.head.short) here")
      }
      return nil
    }
    return try treeHoldsStore(head) ? head : nil
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
    if target.context != nil, try storeGeneration(target.store) != nil { return }
    let bytes = try storeFileBytes()
    var damage: StoreError?
    if let bytes {
      do throws(StoreError) {
        _ = try ParsedStore(bytes: bytes, name: storePath)
        return
      } catch {
        guard StoreRepository.isDamage(error) else { throw .store(error) }
        damage = error
      }
    }
    guard let head = try commitHoldingStore() else {
      if let damage { throw .store(damage) }
      return
    }
    let restored = try withStoreLock(target.store) { lock throws(SyncError) -> Bool in
      guard try storeFileBytes() == bytes else { return false }
      let snapshot: StoreSnapshot
      if let old = try git.blobs([head.hex + ":" + pathInRepository], step: "read the store")
        .first ?? nil
      {
        do throws(StoreError) {
          snapshot = try StoreSnapshot(bytes: old, name: "\(head.short):\(pathInRepository)")
        } catch {
          throw .notAStoreAtCommit(head.short, reason: error.description)
        }
      } else {
        snapshot = try wholeTree(of: head, progress: progress).snapshot
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
      recordCommitted(
        head, generation: .known(try storeGeneration(target.store) ?? 0), layoutVersion: 1)
      report.notes.append(.restoredStore(fromCommit: head.short))
    }
  }

  /// Every category and document of `commit`'s tree; with `eachCategory`, each category
  /// handed to it as it is read, and none kept (``TreeReader/read(_:folders:date:maximumDocumentSize:unmarkedVersion:progress:eachCategory:)``).
  func wholeTree(
    of commit: CommitID, maximumDocumentSize: Int? = nil, progress: (any ProgressObserver)?,
    eachCategory: ((TreeReading) throws(SyncError) -> Void)? = nil
  ) throws(SyncError) -> TreeReading {
    let reader = TreeReader(git: git, layout: layout)
    let folders = try reader.categoryFolders(of: commit)
    progress?.beginTask(.buildingStore, totalBytes: max(1, folders.count))
    defer { progress?.endTask() }
    // A file without docsh's header is dated by the commit, as a sync takes it in.
    return try reader.read(
      commit, folders: folders, date: try commitDate(commit),
      maximumDocumentSize: maximumDocumentSize, progress: progress, eachCategory: eachCategory)
  }

  // MARK: - A move of HEAD left half done

  /// Notes in the ledger, just before a sync writes the store, that HEAD moves from `old`
  /// to `new` once the store, now at `generation`, is written with what `witness` marks
  /// (``StoreIncoming/witness``); removed once HEAD has moved.
  /// - Throws: ``SyncError/store(_:)`` when the note cannot be written (the sync then writes
  ///   nothing).
  func noteMove(
    from old: CommitID?, to new: CommitID, generation: Int, witness: String?
  ) throws(SyncError) {
    do {
      try updateLedger {
        $0.move = RepositoryLedger.Move(
          old: old, new: new, generation: generation, witness: witness)
      }
    } catch {
      throw .store(.system(ledgerPath, operation: error.operation, errno: error.code))
    }
  }

  /// Forgets the note of a move: HEAD has moved, or it was never to. A note that cannot be
  /// removed is found by the next sync, which sees that HEAD has moved (or that the store
  /// was not written) and forgets it then: so the failure ends here.
  func forgetMove() {
    do {
      try updateLedger { $0.move = nil }
    } catch {
      // As said above: the next sync forgets it.
    }
  }

  /// The note of a move a sync began: the ledger's, or one an older docsh left in
  /// `.git/docsh-moving` (taken into the ledger).
  private func notedMove() throws(SyncError) -> RepositoryLedger.Move? {
    if let move = ledger().move { return move }
    let legacy = gitDirectory + "/docsh-moving"
    guard let note = try fileBytes(at: legacy) else { return nil }
    let fields = String(decoding: note, as: UTF8.self).split(whereSeparator: \.isWhitespace)
    guard fields.count == 4, let before = Int(fields[2]) else {
      try? removeFile(atPath: legacy)  // no move can be read from it: there is none to finish
      return nil
    }
    let move = RepositoryLedger.Move(
      old: fields[0] == "-" ? nil : CommitID(fields[0]), new: CommitID(fields[1]),
      generation: before, witness: fields[3] == "-" ? nil : String(fields[3]))
    do {
      try updateLedger { $0.move = move }
    } catch {
      throw .store(.system(ledgerPath, operation: error.operation, errno: error.code))
    }
    try removeFile(atPath: legacy)
    return move
  }

  /// Finishes a move of HEAD that a sync began and did not finish (killed, or a git step
  /// failing) once it had written the store: HEAD moves to the commit whose store the file
  /// holds, so that what came from the remote stays the remote's and is never committed as a
  /// change made on this side. The store was written when its generation passed the one
  /// noted and it (or, after one save since, the backup that save kept) holds the witness.
  /// When HEAD moved since, or the store was not written, the note is forgotten. The caller
  /// holds the repository lock; `store` is the store's, asked its generation and read.
  /// - Throws: ``SyncError`` when git fails or the store cannot be read; the note stays.
  func finishInterruptedMove(_ store: any StoreWriting) throws(SyncError) {
    guard let move = try notedMove() else { return }
    let old = move.old
    let new = move.new
    guard try git.head() == old, try git.commit(new.hex) == new,
      let now = try storeGeneration(store), now > move.generation
    else { return forgetMove() }
    if let witness = move.witness {
      // The store as it is (its save log included), or the backup a whole write kept.
      var seen = StoreIncoming.isWitnessed(witness, inStore: store.makeReader())
      if !seen, let bytes = try fileBytes(at: storePath + ".bak"),
        let store = try? ParsedStore(bytes: bytes, name: storePath + ".bak")
      {
        // A copy that does not parse witnesses nothing.
        seen = StoreIncoming.isWitnessed(witness, in: store)
      }
      guard seen else { return forgetMove() }
    }
    try commitWriter.moveHead(to: new, from: old, reason: "sync: finish an interrupted sync")
    // Saves may have followed the sync's: the next commit compares the whole store.
    recordCommitted(new, generation: .unknown, layoutVersion: 1)
    forgetMove()
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
    var refs = [CommitWriter.buildRef, StoreRepository.encryptedBuildRef]
    if let branch = try currentBranch() {
      refs += ["refs/heads/\(branch)", "refs/remotes/origin/\(branch)"]
    }
    for path in try git.removeStaleLocks(ofRefs: refs) {
      report.notes.append(.removedStaleLock(path))
    }
  }

  /// The status of the file at `path`, `nil` when there is none.
  static func status(ofPath path: String, fileSystem: any FileSystem) -> FileStatus? {
    let (folder, name) = splitPath(path)
    guard
      let directory = try? fileSystem.open(
        folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    else { return nil }
    defer { try? fileSystem.close(directory) }
    return (try? fileSystem.status(at: directory, name)) ?? nil
  }
}

/// Which files the processes of this machine hold open, as `/proc` shows (only the
/// processes this user may look into: the ones that could be working in the user's
/// repository).
enum ProcessTable {
  /// Whether any process has `path` open (`false` when `path` cannot be resolved).
  static func isOpen(_ path: String, fileSystem: any FileSystem) -> Bool {
    guard let resolved = try? fileSystem.resolvedPath(path),  // gone: held by nobody
      let processes = opendir("/proc")
    else { return false }
    defer { closedir(processes) }
    while let entry = readdir(processes) {
      let pid = name(of: entry)
      guard !pid.isEmpty, pid.allSatisfy(\.isNumber) else { continue }
      let folder = "/proc/" + pid + "/fd"
      guard let descriptors = opendir(folder) else { continue }
      defer { closedir(descriptors) }
      while let descriptor = readdir(descriptors) {
        let number = name(of: descriptor)
        guard number != ".", number != ".." else { continue }
        if link(folder + "/" + number) == resolved { return true }
      }
    }
    return false
  }

  private static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
    withUnsafePointer(to: entry.pointee.d_name) { pointer in
      pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
    }
  }

  private static func link(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
