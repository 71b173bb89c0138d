#if canImport(Glibc)
  import Glibc
#endif

// Saving: under the lock, a temporary file written, synced and renamed over the store, only
// when nobody else saved since this session loaded.

extension JSONStore {
  // MARK: - Saving

  public func save(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt {
    try writeWhole(categories, generation: loadedGeneration + 1)
  }

  public func fold(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt {
    try writeWhole(categories, generation: loadedGeneration)
  }

  /// Writes the whole file at `generation`, under the lock, when nobody saved meanwhile.
  private func writeWhole(
    _ categories: [CategoryToSave], generation: Int
  ) throws(StoreError) -> SaveReceipt {
    guard hasLoaded, !loadFailed else { throw .refusedToOverwriteDamagedStore(path) }
    return try saveLocked(categories, generation: generation)
  }

  public func withSaveLock<Result>(
    _ body: (LockedStore) throws(StoreError) -> Result
  ) throws(StoreError) -> Result {
    try withSaveLock(handing: self, body)
  }

  /// ``withSaveLock(_:)``, handing `body` the lock as `store`'s (a store this file is part
  /// of: the one its callers write through).
  func withSaveLock<Result>(
    handing store: any StoreWriting, _ body: (LockedStore) throws(StoreError) -> Result
  ) throws(StoreError) -> Result {
    if heldLock != nil { return try body(LockedStore(store)) }
    heldLock = try takeLock()
    defer {
      if let held = heldLock {
        fileSystem.unlockAndClose(held.lock)
        try? fileSystem.close(held.directory)
      }
      heldLock = nil
    }
    return try body(LockedStore(store))
  }

  public func makeReader() -> any StoreReading {
    JSONStore(path: targetPath, fileSystem: fileSystem)
  }

  public func replaceWhole(with bytes: [UInt8], _ lock: LockedStore) throws(StoreError) {
    try holdingLock { directory throws(StoreError) in
      try systemCalls { () throws(SystemCallError) in
        try AtomicFile.replace(
          fileName, in: directory, with: bytes, keepingBackup: true, fileSystem: fileSystem)
      }
      // A save log of the file replaced extends no file now: kept aside, never applied. An
      // empty one (as a fold leaves it) holds nothing and stays for the next save.
      try systemCalls(on: logPath) { () throws(SystemCallError) in
        let log = try fileSystem.status(at: directory, SaveLog.fileName(forStore: fileName))
        if let log, log.size > 0 { try setAsideLog(in: directory) }
      }
    }
  }

  /// What the system call failure `error` on `file` (the store file when `nil`) is to the
  /// store's callers.
  func storeError(_ error: SystemCallError, on file: String? = nil) -> StoreError {
    .system(file ?? path, operation: error.operation, errno: error.code)
  }

  /// `body`'s result, its system call failures as failures on `file` (the store file when
  /// `nil`).
  /// - Throws: ``StoreError/system(_:operation:errno:)`` when `body` fails.
  func systemCalls<Result>(
    on file: String? = nil, _ body: () throws(SystemCallError) -> Result
  ) throws(StoreError) -> Result {
    do {
      return try body()
    } catch {
      throw storeError(error, on: file)
    }
  }

  /// Opens the folder and the lock file and takes the lock.
  func takeLock() throws(StoreError) -> (directory: Int32, lock: Int32) {
    try resolveLinks()
    try systemCalls { () throws(SystemCallError) in try makeFolders() }
    let directory = try systemCalls { () throws(SystemCallError) in
      try fileSystem.open(folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    }
    do throws(StoreError) {
      let lock = try systemCalls { () throws(SystemCallError) in
        try fileSystem.open(
          at: directory, fileName + ".lock", flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
          mode: 0o600)
      }
      do throws(StoreError) {
        try acquire(lock)
      } catch {
        try? fileSystem.close(lock)
        throw error
      }
      return (directory, lock)
    } catch {
      try? fileSystem.close(directory)
      throw error
    }
  }

  private func saveLocked(
    _ categories: [CategoryToSave], generation: Int
  ) throws(StoreError) -> SaveReceipt {
    try holdingLock { directory throws(StoreError) in
      let current = try checkNobodySaved(in: directory)
      // What a whole write killed midway left (as large as the store) goes before the next.
      _ = try systemCalls { () throws(SystemCallError) in try removeLeftovers(in: directory) }
      return try writeWhole(categories, generation: generation, over: current, in: directory)
    }
  }

  /// Runs `body` with the folder open and the lock held: the lock ``withSaveLock(_:)``
  /// holds, or one taken for the call.
  func holdingLock<Result>(
    _ body: (_ directory: Int32) throws(StoreError) -> Result
  ) throws(StoreError) -> Result {
    let ownsLock = heldLock == nil
    let held: (directory: Int32, lock: Int32)
    if let heldLock { held = heldLock } else { held = try takeLock() }
    defer {
      if ownsLock {
        fileSystem.unlockAndClose(held.lock)
        try? fileSystem.close(held.directory)
      }
    }
    return try body(held.directory)
  }

  /// The `stat` of the store file, after making sure that nobody saved since this store
  /// loaded: the file is the one loaded and its log holds no record beyond what was read.
  /// - Throws: ``StoreError/modifiedElsewhere(_:loadedGeneration:currentGeneration:)`` or
  ///   ``StoreError/deletedElsewhere(_:)`` when somebody did.
  func checkNobodySaved(in directory: Int32) throws(StoreError) -> FileStatus? {
    let current = try systemCalls { () throws(SystemCallError) in
      try fileSystem.status(at: directory, fileName)
    }
    if current == nil && loadedStatus != nil { throw StoreError.deletedElsewhere(path) }
    if !isSameFile(current, as: loadedStatus) {
      throw StoreError.modifiedElsewhere(
        path, loadedGeneration: loadedGeneration, currentGeneration: generationOnDisk())
    }
    if try logGrew(in: directory) {
      throw StoreError.modifiedElsewhere(
        path, loadedGeneration: loadedGeneration, currentGeneration: generationOnDisk())
    }
    return current
  }

  /// Whether the log beside the file holds a whole record this store has not read: another
  /// session appended one, made the log since this one loaded, or cut it back (keeping a
  /// damaged log aside). A tail no whole record fills (a save cut short) is not a record.
  private func logGrew(in directory: Int32) throws(StoreError) -> Bool {
    let logName = SaveLog.fileName(forStore: fileName)
    let status = try systemCalls(on: logPath) { () throws(SystemCallError) in
      try fileSystem.status(at: directory, logName)
    }
    guard let attached else {
      guard status != nil, let epoch = loadedHeader.epoch else { return false }
      guard
        case .extends(let log) = try findLog(
          extending: epoch, generation: loadedHeader.generation ?? 0, file: loadedStatus)
      else { return false }
      return try systemCalls(on: logPath) { () throws(SystemCallError) in
        try log.wholeRun(from: log.headerLength).count > 0
      }
    }
    guard let status else { return true }  // the log was removed: its saves are gone
    if status.device != attached.log.status.device || status.inode != attached.log.status.inode {
      return true
    }
    if status.size < attached.end { return true }
    return try systemCalls(on: logPath) { () throws(SystemCallError) in
      try attached.log.frame(at: attached.end, size: status.size) != nil
    }
  }

  /// Writes `categories` as the whole store file at `generation`, replacing `current`, and
  /// folds the log away: the new file holds every save.
  private func writeWhole(
    _ categories: [CategoryToSave], generation: Int, over current: FileStatus?,
    in directory: Int32
  ) throws(StoreError) -> SaveReceipt {
    let epoch = StoreEpoch.random()
    let temporary = try systemCalls { () throws(SystemCallError) in
      try AtomicFile.createTemporaryFile(for: fileName, in: directory, fileSystem: fileSystem)
    }
    var writer = StoreWriter(file: temporary.file, sources: sources, fileSystem: fileSystem)
    do throws(SystemCallError) {
      try writer.write(categories, generation: generation, epoch: epoch)
    } catch {
      try? fileSystem.close(temporary.file)  // abandoned: its bytes are not wanted
      try? fileSystem.unlink(at: directory, temporary.name)
      throw storeError(error)
    }
    try install(temporary, generation: generation, epoch: epoch, over: current, in: directory)
    var receipt = SaveReceipt(generation: generation, locations: writer.locations)
    receipt.placements = writer.placements
    return receipt
  }

  /// Puts the whole store file written in `temporary` (open for writing, every byte
  /// written) in place of the store, under the lock: given the old file's permissions,
  /// synced, closed, the old file kept as `.bak`, the log marked folded, renamed, the folder
  /// synced; the store then stands loaded at `generation` (`epoch`). Any failure before the
  /// rename leaves the store as it was and no temporary file behind.
  /// - Throws: ``StoreError``; the files on disk are then as they were.
  func install(
    _ temporary: (name: String, file: Int32), generation: Int, epoch: StoreEpoch,
    over current: FileStatus?, in directory: Int32
  ) throws(StoreError) {
    let temporaryName = temporary.name
    var temporaryIsOpen = true
    var renamed = false
    defer {
      if !renamed { try? fileSystem.unlink(at: directory, temporaryName) }
    }
    var reader: Int32?
    defer { if !renamed, let reader { try? fileSystem.close(reader) } }
    do throws(StoreError) {
      let newStatus = try systemCalls { () throws(SystemCallError) -> FileStatus? in
        let mode = current.map { $0.mode & 0o7777 } ?? 0o600
        try fileSystem.setPermissions(temporary.file, mode)
        try fileSystem.synchronize(temporary.file)
        temporaryIsOpen = false  // on Linux the descriptor is gone even when close fails
        try fileSystem.close(temporary.file)
        // Open the new file for reading before it replaces the store, so that every step
        // that can fail comes before the rename.
        reader = try fileSystem.open(
          at: directory, temporaryName, flags: O_RDONLY | O_CLOEXEC, mode: 0)
        let newStatus = try reader.map { file throws(SystemCallError) in
          try fileSystem.status(of: file)
        }
        if current != nil {
          try AtomicFile.keepBackup(of: fileName, in: directory, fileSystem: fileSystem)
        }
        return newStatus
      }
      try markLogFolded(into: epoch, generation: generation)
      try systemCalls { () throws(SystemCallError) in
        try fileSystem.rename(at: directory, temporaryName, to: fileName)
      }
      renamed = true
      try syncAfterRename(in: directory, hadOldFile: current != nil, reader: reader)
      emptyFoldedLog()
      if let loadedFile { try? fileSystem.close(loadedFile) }
      loadedFile = reader
      loadedStatus = newStatus
      loadedGeneration = generation
      loadedHeader = StoreReader.Header(generation: generation, epoch: epoch)
      attached = nil
      joinSessions()
    } catch {
      if temporaryIsOpen { try? fileSystem.close(temporary.file) }
      throw error
    }
  }

  /// Syncs the folder after the rename; when that fails, puts the old file back and reports
  /// the failure (or both failures, when the old file cannot be put back either).
  private func syncAfterRename(
    in directory: Int32, hadOldFile: Bool, reader: Int32?
  ) throws(StoreError) {
    do throws(SystemCallError) {
      try fileSystem.synchronize(directory)
    } catch {
      // The rename may not survive a power cut: put the old file back, report failure.
      // When the old file cannot be put back either, the new one stands at the path:
      // both failures are reported, so that nobody takes the store for the old one.
      do {
        try undoRename(in: directory, hadOldFile: hadOldFile)
      } catch let restoreError {
        if let reader { try? fileSystem.close(reader) }  // read-only: nothing to lose
        throw StoreError.saveNotUndone(
          path, operation: error.operation, errno: error.code,
          restoreOperation: restoreError.operation, restoreErrno: restoreError.code)
      }
      if let reader { try? fileSystem.close(reader) }  // read-only: nothing to lose
      throw storeError(error)
    }
  }

  /// Ends the attached log with the record saying that the file of `epoch` holds all of it,
  /// before that file replaces the store: a reader that opens the new file and still finds
  /// the old log beside it knows to leave it alone. A log with no record needs no mark.
  private func markLogFolded(into epoch: StoreEpoch, generation: Int) throws(StoreError) {
    guard let attached, attached.last != nil else { return }
    // The record after the log's last: the mark is no save, so it counts on from the log.
    let next = loadedGeneration + 1
    let frame: SaveLogFrame
    do {
      frame = try attached.log.append(
        body: SaveLogRecord.foldedBody(into: epoch, generation: next), generation: next,
        at: attached.end)
    } catch {
      throw .system(logPath, operation: error.operation, errno: error.code)
    }
    self.attached?.end = frame.end
    self.attached?.last = frame
  }

  /// Empties the log the new file holds every record of, keeping its name: the next save
  /// starts it anew in place with one sync, where a new file would need the folder's too.
  /// A log left as it was by a failure here is marked as folded: readers take it for an
  /// empty one. Only the attached log: any other file there (another file's log) stays for
  /// the next save to set aside.
  private func emptyFoldedLog() {
    guard let attached else { return }
    try? fileSystem.truncate(attached.log.descriptor, to: 0)
  }

  /// Removes what a whole write cut short left beside the store file: its temporary file
  /// (`.NAME.XXXX`, as large as the store) and the backup's temporary link
  /// (`.NAME.bak.XXXX`). Only docsh's own names, and only under the save lock, where no
  /// whole write runs. The names removed.
  /// - Throws: ``SystemCallError`` when the folder cannot be read or a leftover removed:
  ///   the write that was to follow does not start.
  @discardableResult
  func removeLeftovers(in directory: Int32) throws(SystemCallError) -> [String] {
    let prefixes = ["." + fileName + ".bak.", "." + fileName + "."]
    var removed: [String] = []
    for name in try fileSystem.names(in: directory) {
      guard
        let prefix = prefixes.first(where: { name.hasPrefix($0) }),
        case let suffix = name.dropFirst(prefix.count),
        (1...13).contains(suffix.count),
        suffix.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) })
      else { continue }
      try fileSystem.unlink(at: directory, name)
      removed.append(name)
    }
    return removed
  }

  // MARK: - Appending

  public var takesAppends: Bool { loadedFile != nil && loadedHeader.epoch != nil }

  /// Appends `delta` to the save log as one record and syncs it: the save, costing what it
  /// changed. `nil` when the store file cannot take a log (there is none yet, or it is of
  /// version 1): it must be written whole, with ``save(_:)``.
  /// - Throws: ``StoreError``; the files on disk are then as they were.
  public func append(_ delta: StoreDelta) throws(StoreError) -> SaveReceipt? {
    guard hasLoaded, !loadFailed else { throw .refusedToOverwriteDamagedStore(path) }
    guard loadedFile != nil, let epoch = loadedHeader.epoch else { return nil }
    guard !damagedLogPending else {
      throw .damagedSaveLog(logPath, reason: "it could not be kept aside, so nothing is written")
    }
    return try holdingLock { directory throws(StoreError) in
      guard let current = try checkNobodySaved(in: directory) else {
        throw StoreError.deletedElsewhere(path)
      }
      // In a shared folder, a log written by another user than the file's owner would be
      // one the owner never applies (or one that adds saves to the owner's store).
      guard geteuid() == current.owner else {
        throw StoreError.notOwner(path, owner: current.owner)
      }
      let generation = loadedGeneration + 1
      let (body, placed) = SaveLogRecord.encode(delta, generation: generation)
      let (log, frame) = try appendRecord(
        body, generation: generation, in: directory, epoch: epoch, file: current)
      attached = AttachedLog(log: log, end: frame.end, last: frame)
      loadedGeneration = generation
      let record = SaveLogRecord(delta, frame: frame, placed: placed)
      var locations: [ObjectID: (document: StoredLocation, content: StoredLocation)] = [:]
      for case .put(let document) in record.documents {
        locations[document.id] = (document.location, document.contentLocation)
      }
      var receipt = SaveReceipt(generation: generation, locations: locations)
      receipt.record = record
      return receipt
    }
  }

  /// Appends the record `body` to the log: the one read with the file (cut back to its whole
  /// records), or the log started anew, in place when the file there holds nothing, else as
  /// a new file after setting aside one that is not this file's log. A new log's header and
  /// first record are written together, with one sync (and the folder's for a new file).
  private func appendRecord(
    _ body: [UInt8], generation: Int, in directory: Int32, epoch: StoreEpoch, file: FileStatus
  ) throws(StoreError) -> (SaveLog, SaveLogFrame) {
    if let attached {
      return try systemCalls(on: logPath) { () throws(SystemCallError) in
        let size = try fileSystem.status(of: attached.log.descriptor).size
        if size > attached.end { try attached.log.truncate(to: attached.end) }
        return (
          attached.log,
          try attached.log.append(body: body, generation: generation, at: attached.end)
        )
      }
    }
    let header = SaveLog.Header(
      epoch: epoch, generation: loadedHeader.generation ?? 0, file: SaveLog.FileIdentity(file))
    switch try findLog(extending: epoch, generation: header.generation, file: file) {
    case .extends(let log), .empty(let log):
      // A log with no save in it (checkNobodySaved found none beyond what was read), or
      // what a crash left of one, or a log a fold left: this store's to start anew.
      let frame = try systemCalls(on: logPath) { () throws(SystemCallError) in
        try log.restart(header: header, body: body, generation: generation)
      }
      return (log, frame)
    case .ignored:
      try systemCalls(on: logPath) { () throws(SystemCallError) in try setAsideLog(in: directory) }
    case .none:
      break
    }
    return try systemCalls(on: logPath) { () throws(SystemCallError) in
      try SaveLog.create(
        at: directory, SaveLog.fileName(forStore: fileName), header: header,
        mode: file.mode & 0o7777, firstRecord: body, generation: generation,
        fileSystem: fileSystem)
    }
  }

  /// Moves a file where the log goes that is not this file's log out of the way, as it
  /// is: kept as `NAME.wal.ignored-DATE` (it may hold another file's saves).
  private func setAsideLog(in directory: Int32) throws(SystemCallError) {
    let name = SaveLog.fileName(forStore: fileName)
    let stamp = Timestamp.now().iso8601.filter { $0.isNumber }
    try fileSystem.rename(at: directory, name, to: "\(name).ignored-\(stamp)")
  }

  private func undoRename(in directory: Int32, hadOldFile: Bool) throws(SystemCallError) {
    if hadOldFile {
      // The backup is the old store's own inode.
      try fileSystem.rename(at: directory, fileName + ".bak", to: fileName)
    } else {
      try fileSystem.unlink(at: directory, fileName)
    }
    // The folder's sync has just failed once: the old file is back in the folder, and the
    // save reports that failure; a second failure says nothing more.
    try? fileSystem.synchronize(directory)
  }

  private func acquire(_ lock: Int32) throws(StoreError) {
    // Another save is short, but on a slow or busy disk a large store's can take seconds:
    // wait for it, up to ``lockWaitMilliseconds``, trying every 10 ms.
    let attempts = max(1, lockWaitMilliseconds / 10)
    for attempt in 0..<attempts {
      let locked = try systemCalls { () throws(SystemCallError) in
        try fileSystem.lockExclusively(lock)
      }
      if locked { return }
      if attempt < attempts - 1 { usleep(10_000) }
    }
    throw StoreError.locked(path)
  }

  private func makeFolders() throws(SystemCallError) {
    guard folder != "." && folder != "/" else { return }
    try fileSystem.makeDirectories(folder, mode: 0o700)
  }

  func isSameFile(_ current: FileStatus?, as loaded: FileStatus?) -> Bool {
    switch (current, loaded) {
    case (nil, nil): return true
    case (let current?, let loaded?):
      return current.device == loaded.device && current.inode == loaded.inode
        && current.size == loaded.size
        && current.modificationNanoseconds == loaded.modificationNanoseconds
    default: return false
    }
  }

  /// The generation of the store now at `path`, its log included; `nil` if unknown (it only
  /// words the error of a save that found the store moved on).
  private func generationOnDisk() -> Int? {
    try? currentGeneration()  // only words an error: a failure to read leaves it unsaid
  }
}
