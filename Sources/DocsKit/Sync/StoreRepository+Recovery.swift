#if canImport(Glibc)
  import Glibc
#endif

// What a killed process or a user's half-finished git leaves behind, found and put in order
// before a sync; and a store file lost in a repository whose last commit holds it.
extension StoreRepository {
  // MARK: - A lost store

  /// The error every command shows (exit 3) when the store file is missing but the last
  /// commit holds it, so that a lost file is never taken for an empty store; `nil` when the
  /// file exists or no commit holds the store (a missing store is then simply empty).
  /// - Throws: ``SyncError`` when git cannot be run.
  public func missingStoreError() throws(SyncError) -> SyncError? {
    guard try storeFileBytes() == nil, let head = try commitHoldingStore() else { return nil }
    return .storeMissing(path: storePath, commit: head.short)
  }

  /// The error every command shows (exit 3) when loading the store failed with `error`
  /// because the file is damaged (cut short, conflict markers, not a store) and the last
  /// commit holds a store; `nil` otherwise (the shell then shows `error` itself).
  /// - Throws: ``SyncError`` when git cannot be run.
  public func damagedStoreError(for error: StoreError) throws(SyncError) -> SyncError? {
    guard StoreRepository.isDamage(error), let head = try commitHoldingStore() else {
      return nil
    }
    return .storeDamaged(path: storePath, reason: error.description, commit: head.short)
  }

  /// HEAD, when it holds the store.
  private func commitHoldingStore() throws(SyncError) -> CommitID? {
    guard let head = try git.commit("HEAD"),
      try git.object(head.hex + ":" + pathInRepository) != nil
    else { return nil }
    return head
  }

  /// Whether `error` says the file is damaged, as opposed to unreadable or newer.
  static func isDamage(_ error: StoreError) -> Bool {
    switch error {
    case .malformed, .notAStore, .invalidStore: return true
    default: return false
    }
  }

  /// Restores the store file from HEAD when it is missing or damaged and HEAD holds one
  /// (a damaged file stays as `store.json.bak`).
  /// - Throws: ``SyncError/store(_:)`` when the file is damaged and no commit holds a store.
  func restoreLostStore(into report: inout SyncReport) throws(SyncError) {
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
    guard let head = try commitHoldingStore(), let saved = try storeBytes(at: head) else {
      if let damage { throw .store(damage) }
      return
    }
    _ = try parsed(saved, at: head)
    let restored = try withStoreLock { () throws(SyncError) -> Bool in
      guard try storeFileBytes() == bytes else { return false }
      try writeStoreFile(saved)
      try updateIndex(paths: [pathInRepository])
      return true
    }
    // Another session saved a new store meanwhile: that one stands.
    if restored { report.notes.append(.restoredStore(fromCommit: head.short)) }
  }

  // MARK: - A move of HEAD left half done

  /// Where a sync notes, just before it writes the store as at the commit it moves HEAD to,
  /// where HEAD was and where it goes (`OLD NEW`, OLD `-` for a branch with no commit yet,
  /// `written` after them once it is known that the store was written); removed once HEAD
  /// has moved.
  private var movePath: String { gitDirectory + "/docsh-moving" }

  /// Notes that HEAD moves from `old` to `new`, the store written as at `new` first; with
  /// `written`, that the store file holds that store (or a later save of it). The caller
  /// holds the store lock.
  /// - Throws: ``SyncError/store(_:)`` when the note cannot be written.
  func noteMove(from old: CommitID?, to new: CommitID, written: Bool = false) throws(SyncError) {
    let text = (old?.hex ?? "-") + " " + new.hex + (written ? " written" : "") + "\n"
    do {
      try AtomicFile.replace(
        path: movePath, with: Array(text.utf8), keepingBackup: false, fileSystem: fileSystem)
    } catch {
      throw .store(.system(movePath, operation: error.operation, errno: error.code))
    }
  }

  /// Forgets the note of a move: HEAD has moved, or it was never to.
  func forgetMove() {
    try? removeFile(atPath: movePath)
  }

  /// Finishes a move of HEAD that a sync began and did not finish (killed, or a git step
  /// failing) once it had written the store: the other files and HEAD move to the commit
  /// whose store the file holds, so that what came from the remote stays the remote's and is
  /// never committed as a change made on this side (which would make the remote's next
  /// change to it a conflict). Whether the store was written is told by the file itself —
  /// NEW's store, or OLD's — or, after a save since, by the backup that save kept. When HEAD
  /// moved since, or the store was not written, the note is forgotten. The caller holds both
  /// locks.
  /// - Throws: ``SyncError`` when git fails or other files are in the way; the note stays,
  ///   with what was found out.
  func finishInterruptedMove() throws(SyncError) {
    guard let note = try fileBytes(at: movePath) else { return }
    let fields = String(decoding: note, as: UTF8.self).split(whereSeparator: \.isWhitespace)
    guard fields.count == 2 || fields.count == 3 else { return forgetMove() }
    let old = fields[0] == "-" ? nil : CommitID(fields[0])
    let new = CommitID(fields[1])
    guard try git.commit("HEAD") == old, try git.commit(new.hex) == new,
      let newBlob = try blobs(at: new, paths: [pathInRepository])[pathInRepository],
      let bytes = try storeFileBytes()
    else { return forgetMove() }
    let fileBlob = try hashObject(bytes, path: pathInRepository)
    if fields.count == 2 && fileBlob != newBlob {
      let oldBlob = try old.map { old throws(SyncError) in
        try blobs(at: old, paths: [pathInRepository])[pathInRepository]
      }
      // Not written, or saved since: the first save since kept what it replaced.
      guard fileBlob != oldBlob, let backup = try fileBytes(at: storePath + ".bak"),
        try hashObject(backup, path: pathInRepository) == newBlob
      else { return forgetMove() }
      // Known now, and no longer from the backup once another save follows.
      try noteMove(from: old, to: new, written: true)
    }
    // The store's entry matches NEW, so that moving the other files leaves the file alone.
    if fileBlob == newBlob {
      try updateIndex(paths: [pathInRepository])
    } else {
      try git.run(
        "update the index",
        ["update-index", "--add", "--cacheinfo", "100644,\(newBlob),\(pathInRepository)"])
    }
    if let old {
      try moveOtherFiles(from: old, to: new)
    } else {
      try git.run("check out the other files", ["read-tree", "-m", "-u", new.hex])
    }
    try moveHead(to: new, from: old, reason: "sync: finish an interrupted sync")
    forgetMove()
  }

  // MARK: - Interrupted work

  /// Refuses git operations docsh does not finish, removes lock files left by a git that is
  /// gone, and aborts a merge left half done (keeping the store as it stands).
  /// - Throws: ``SyncError/operationInProgress(_:folder:)`` or ``SyncError/busy(lock:)``.
  func recoverInterruptedWork(into report: inout SyncReport) throws(SyncError) {
    for (name, operation) in [
      ("rebase-merge", "rebase"), ("rebase-apply", "rebase or am"),
      ("CHERRY_PICK_HEAD", "cherry-pick"), ("REVERT_HEAD", "revert"),
    ] where gitFolderHas(name) {
      throw .operationInProgress(operation, folder: topLevel)
    }
    try removeStaleLocks(into: &report)
    try removeStaleMergeFiles(into: &report)
    removeTemporaryIndex()
    if gitFolderHas("MERGE_HEAD") { try abortHalfDoneMerge(into: &report) }
  }

  /// Aborts a merge left half done: git forgets it, and every file but the store goes back
  /// to HEAD (index and work tree). The store stays as it stands: when it loads (the driver
  /// merged it, or the user resolved it) the sync commits and merges it; when it does not,
  /// the sync restores it from HEAD.
  private func abortHalfDoneMerge(into report: inout SyncReport) throws(SyncError) {
    try git.run("abort the unfinished merge", ["merge", "--quit"])
    if let head = try git.commit("HEAD") {
      let listed = try git.run(
        "abort the unfinished merge", ["diff-index", "--cached", "--name-only", "-z", head.hex])
      let paths = Set(
        listed.output.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      ).subtracting([pathInRepository]).sorted()
      if !paths.isEmpty {
        try git.run(
          "abort the unfinished merge",
          ["restore", "--source=" + head.hex, "--staged", "--worktree", "--"] + paths)
      }
    }
    report.notes.append(.abortedMerge)
  }

  /// Removes lock files of the repository that no process holds open and that are older
  /// than a few seconds (a git killed half way leaves them and refuses to work after).
  private func removeStaleLocks(into report: inout SyncReport) throws(SyncError) {
    var names = [
      "index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "ORIG_HEAD.lock",
      "MERGE_HEAD.lock", "FETCH_HEAD.lock",
    ]
    if let branch = try currentBranch() {
      names += ["refs/heads/\(branch).lock", "refs/remotes/origin/\(branch).lock"]
    }
    try removeLeftOvers(names.map { gitDirectory + "/" + $0 }, inUseIsBusy: true, into: &report)
  }

  /// Removes the temporary files (`.merge_file_XXXXXX`) that a git killed while it ran a
  /// merge driver leaves at the top of the work tree, when they are as old as a stale lock
  /// and no process has them open.
  private func removeStaleMergeFiles(into report: inout SyncReport) throws(SyncError) {
    let names = ProcessTable.names(in: topLevel).filter {
      $0.hasPrefix(".merge_file_") && $0.utf8.count == ".merge_file_XXXXXX".utf8.count
    }
    try removeLeftOvers(names.map { topLevel + "/" + $0 }, inUseIsBusy: false, into: &report)
  }

  /// Removes those of `paths` that a git now gone left — older than a few seconds and open
  /// in no process — noting each. One that may be in use stays, or with `inUseIsBusy` makes
  /// the sync fail as busy.
  private func removeLeftOvers(
    _ paths: [String], inUseIsBusy: Bool, into report: inout SyncReport
  ) throws(SyncError) {
    for path in paths {
      guard let status = StoreRepository.status(ofPath: path, fileSystem: fileSystem) else {
        continue
      }
      let age = Timestamp.now().millisecondsSince1970 - status.modificationNanoseconds / 1_000_000
      guard age >= StoreRepository.staleLockAge, !ProcessTable.isOpen(path) else {
        if inUseIsBusy { throw .busy(lock: path) }
        continue
      }
      try removeFile(atPath: path)
      report.notes.append(.removedStaleLock(path))
    }
  }

  /// How old (in milliseconds) a lock nobody holds must be before docsh removes it.
  static let staleLockAge: Int64 = 2_000

  /// The status of the file at `path`, `nil` when there is none.
  static func status(ofPath path: String, fileSystem: any FileSystem) -> FileStatus? {
    let (folder, name) = AtomicFile.splitPath(path)
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
  /// Whether any process has `path` open.
  static func isOpen(_ path: String) -> Bool {
    guard let resolved = realPath(path), let processes = opendir("/proc") else { return false }
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

  /// The names in `folder` (`[]` when it cannot be read).
  static func names(in folder: String) -> [String] {
    guard let directory = opendir(folder) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) { names.append(name(of: entry)) }
    return names
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

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
