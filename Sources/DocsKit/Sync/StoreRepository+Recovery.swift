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
    for name in names {
      let path = gitDirectory + "/" + name
      guard let status = StoreRepository.status(ofPath: path, fileSystem: fileSystem) else {
        continue
      }
      let age = Timestamp.now().millisecondsSince1970 - status.modificationNanoseconds / 1_000_000
      guard age >= StoreRepository.staleLockAge, !ProcessTable.isOpen(path) else {
        throw .busy(lock: path)
      }
      let (folder, file) = AtomicFile.splitPath(path)
      do {
        let directory = try fileSystem.open(
          folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
        defer { try? fileSystem.close(directory) }
        try fileSystem.unlink(at: directory, file)
      } catch {
        throw .store(.system(path, operation: error.operation, errno: error.code))
      }
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
