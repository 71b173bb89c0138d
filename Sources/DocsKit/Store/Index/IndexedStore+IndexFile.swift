#if canImport(Glibc)
  import Glibc
#endif

// Checking the store with its index, and the index file itself: opening it, taking it out of
// use when it fails, naming it.

extension IndexedStore {
  // MARK: - The rest

  public func markDamaged() {
    file.markDamaged()
  }

  public func check() -> StoreCheckReport {
    var began = false
    let scan = file.checkedScan(
      advance: { completed, total in
        guard let progress else { return }
        if !began {
          progress.beginTask(.checkingStore, totalBytes: total)
          began = true
        }
        progress.advanceTask(to: completed)
      },
      shouldStop: { interruption?.isRequested(during: .check) ?? false })
    if began { progress?.endTask() }
    let report = scan.report
    var checked = report
    guard cacheFolder != nil, !report.wasInterrupted else { return checked }
    guard let graph = scan.graph, let status = scan.status, report.isSound,
      let index = openIndex()
    else {
      checked.index = state.index == nil ? .unavailable(reason: indexWarningReason) : indexState
      return checked
    }
    let identity = IndexIdentity(
      storePath: realPath, status: status, generation: scan.fileGeneration,
      log: scan.log?.last.map { LogPosition(after: $0) } ?? .none)
    let comparison = ask(index) { () throws(SQLiteError) -> StoreIndex.Comparison? in
      try index.comparison(with: graph, identity: identity)
    }
    let reason: String
    switch comparison {
    case .answered(.agrees):
      checked.index = .trusted
      indexState = .trusted
      return checked
    case .answered(.disagrees(let found)):
      reason = "it disagreed with the store: \(found)"
    case .describesAnotherFile:
      guard let why = rebuildReason(index, identity) else {
        checked.index = .unavailable(reason: indexWarningReason)
        indexState = checked.index ?? .none
        return checked
      }
      reason = why
    case .failed:
      checked.index = .unavailable(reason: indexWarningReason)
      indexState = checked.index ?? .none
      return checked
    }
    checked.index = rebuiltForCheck(index, graph: graph, identity: identity, reason: reason)
    indexState = checked.index ?? .none
    return checked
  }

  /// The index rebuilt from `graph`, checked to be sound, unless the file changed meanwhile.
  private func rebuiltForCheck(
    _ index: StoreIndex, graph: LoadedGraph, identity: IndexIdentity, reason: String
  ) -> IndexState {
    let rebuilt = withIndex(index) { () throws(SQLiteError) -> Bool in
      try index.rebuild(
        from: graph, identity: identity, when: { _ in isCurrentFile(identity) }
      ) { _ in }
    }
    switch rebuilt {
    case nil: return .unavailable(reason: indexWarningReason)
    case false?: return .unavailable(reason: "the store changed while it was checked")
    case true?: return .rebuilt(reason: reason)
    }
  }

  private var indexWarningReason: String {
    indexWarning.map {
      switch $0 {
      case .cacheUnavailable(_, let reason), .indexFailed(_, let reason): return reason
      }
    } ?? "it could not be opened"
  }

  // MARK: - The index file

  /// The open index, opening it when none is and it has not been found unusable.
  func openIndex() -> StoreIndex? {
    switch state.connection {
    case .open(let index): return index
    case .disabled: return nil
    case .none: break
    }
    guard let cacheFolder else { return nil }
    if let problem = prepareCacheFolder(cacheFolder) {
      warn(.cacheUnavailable(folder: cacheFolder, reason: problem))
      indexState = .unavailable(reason: problem)
      state.openingFailed(reason: problem)
      return nil
    }
    let path = cacheFolder + "/" + IndexedStore.indexFileName(for: realPath)
    do {
      let index = try StoreIndex.open(
        at: path, library: sqlite, fileSystem: fileSystem,
        busyTimeoutMilliseconds: busyTimeoutMilliseconds, now: now)
      state.opened(index)
      return index
    } catch {
      warn(.cacheUnavailable(folder: cacheFolder, reason: error.message))
      indexState = .unavailable(reason: error.message)
      state.openingFailed(reason: error.message)
      return nil
    }
  }

  /// Makes the cache folder (0700, parents too); a problem as a sentence, or `nil`.
  private func prepareCacheFolder(_ folder: String) -> String? {
    do {
      try fileSystem.makeDirectories(folder, mode: 0o700)
    } catch {
      return StoreError.message(for: error.code)
    }
    do {
      let directory = try fileSystem.open(
        folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
      // Opened only to prove it can be: a failed close of a folder loses nothing.
      try? fileSystem.close(directory)
    } catch {
      return StoreError.message(for: error.code)
    }
    return nil
  }

  /// Asks the index a question `body` reads in a ``StoreIndex/reading(_:_:)``: `nil` from it
  /// is "it describes another file"; on any SQLite failure the index is out of use (see
  /// ``withIndex(_:_:)``).
  func ask<Value>(_ index: StoreIndex, _ body: () throws(SQLiteError) -> Value?)
    -> IndexAnswer<Value>
  {
    do {
      return IndexAnswer(try body())
    } catch {
      disable(index, error)
      return .failed
    }
  }

  /// Runs `body` on the index; on any SQLite failure the index is out of use for this store
  /// (the next load starts it again) and `nil` is returned.
  @discardableResult
  func withIndex<Result>(
    _ index: StoreIndex, _ body: () throws(SQLiteError) -> Result
  ) -> Result? {
    do {
      return try body()
    } catch {
      disable(index, error)
      return nil
    }
  }

  /// Takes the index `failed` out of use after `error`: "the index never fails a command"
  /// holds for I/O, locks and damage. A statement docsh's own code got wrong (`SQLITE_ERROR`,
  /// `SQLITE_RANGE`, `SQLITE_MISUSE`, a constraint) is a mistake to fix, not a state of the
  /// cache: it stops a debug build, so that a test fails on it.
  func disable(_ failed: StoreIndex, _ error: SQLiteError) {
    assert(!error.isProgrammingError, "the index was misused: \(error)")
    state.letGo(of: failed)
    indexState = .unavailable(reason: error.message)
    if error.isInterruption {
      // A rebuild stopped part way and rolled back: the index does not describe the file,
      // so it is out of use for this load; it is sound, and the next open rebuilds it.
      return
    }
    if error.isDamage || error.isBusy {
      // Damaged or held: it is a cache; the next open starts a new one. Not while another
      // process has it open: that one would go on with files nobody else sees.
      failed.closeRemovingFilesIfUnused()
    }
    // The whole error, statement and extended code with it: what a person needs to act.
    warn(.indexFailed(path: failed.path, reason: error.description))
  }

  /// The index's record; `nil` when it holds none, or could not be read (it is then out of
  /// use, as after any failure).
  func currentRecord(of index: StoreIndex) -> IndexRecord? {
    do {
      return try index.record()
    } catch {
      disable(index, error)
      return nil
    }
  }

  /// Throws ``SQLiteError/interrupted`` when the interruption asks `work` to stop.
  func stopIfInterrupted(_ work: InterruptibleWork) throws(SQLiteError) {
    if let interruption, interruption.isRequested(during: work) { throw .interrupted }
  }

  func warn(_ warning: IndexWarning) {
    if indexWarning == nil { indexWarning = warning }
  }

  func reportProgress(
    _ task: ProgressTask, total: Int, _ body: ((Int) -> Void) -> Void
  ) {
    guard let progress else {
      body { _ in }
      return
    }
    progress.beginTask(task, totalBytes: total)
    body { progress.advanceTask(to: $0) }
    progress.endTask()
  }

  /// The real path of the store file the links lead to (of its folder, when the file is not
  /// there yet), so that a store reached through a link shares the index of its target.
  func resolvedRealPath() -> String {
    let target = file.targetPath
    do {
      return try fileSystem.resolvedPath(target)
    } catch {
      // Unresolvable, the path as given still names the index: at worst a store reached
      // two ways has two indexes, each rebuilt from the file when it falls behind.
      return target
    }
  }

  /// The index file's name for the store at `realPath`: readable, and unique by a hash.
  static func indexFileName(for realPath: String) -> String {
    let base = splitPath(realPath).name.filter { $0.isLetter || $0.isNumber || $0 == "." }
      .prefix(40)
    return "\(base)-\(StableHash(realPath.utf8).hexDigits).index"
  }

  /// CLOCK_REALTIME in nanoseconds.
  static func realtimeNanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
  }
}
