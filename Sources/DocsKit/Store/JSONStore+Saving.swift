#if canImport(Glibc)
  import Glibc
#endif

// Saving: under the lock, a temporary file written, synced and renamed over the store, only
// when nobody else saved since this session loaded.

extension JSONStore {
  // MARK: - Saving

  public func save(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt {
    guard hasLoaded, !loadFailed else { throw .refusedToOverwriteDamagedStore(path) }
    do {
      return try saveLocked(categories)
    } catch let error as StoreError {
      throw error
    } catch let error as SystemCallError {
      throw .system(path, operation: error.operation, errno: error.code)
    } catch {
      throw .invalidStore(path, reason: "\(error)")
    }
  }

  public func withSaveLock<Result>(_ body: () throws -> Result) throws -> Result {
    if heldLock != nil { return try body() }
    do {
      heldLock = try takeLock()
    } catch let error as StoreError {
      throw error
    } catch let error as SystemCallError {
      throw StoreError.system(path, operation: error.operation, errno: error.code)
    }
    defer {
      if let held = heldLock {
        fileSystem.unlockAndClose(held.lock)
        try? fileSystem.close(held.directory)
      }
      heldLock = nil
    }
    return try body()
  }

  /// Opens the folder and the lock file and takes the lock.
  private func takeLock() throws -> (directory: Int32, lock: Int32) {
    try resolveLinks()
    try makeFolders()
    let directory = try fileSystem.open(
      folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    do {
      let lock = try fileSystem.open(
        at: directory, fileName + ".lock", flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
        mode: 0o600)
      do {
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

  private func saveLocked(_ categories: [CategoryToSave]) throws -> SaveReceipt {
    let ownsLock = heldLock == nil
    let held = try heldLock ?? takeLock()
    defer {
      if ownsLock {
        fileSystem.unlockAndClose(held.lock)
        try? fileSystem.close(held.directory)
      }
    }
    let directory = held.directory

    let current = try fileSystem.status(at: directory, fileName)
    if current == nil && loadedStatus != nil { throw StoreError.deletedElsewhere(path) }
    if !isSameFile(current, as: loadedStatus) {
      throw StoreError.modifiedElsewhere(
        path, loadedGeneration: loadedGeneration, currentGeneration: generationOnDisk())
    }

    let generation = loadedGeneration + 1
    let (temporaryName, temporary) = try AtomicFile.createTemporaryFile(
      for: fileName, in: directory, fileSystem: fileSystem)
    var temporaryIsOpen = true
    var renamed = false
    defer {
      if !renamed { try? fileSystem.unlink(at: directory, temporaryName) }
    }
    var reader: Int32?
    defer { if !renamed, let reader { try? fileSystem.close(reader) } }
    do {
      var writer = StoreWriter(file: temporary, source: loadedFile, fileSystem: fileSystem)
      try writer.write(categories, generation: generation)
      let mode = current.map { $0.mode & 0o7777 } ?? 0o600
      try fileSystem.setPermissions(temporary, mode)
      try fileSystem.synchronize(temporary)
      temporaryIsOpen = false  // on Linux the descriptor is gone even when close fails
      try fileSystem.close(temporary)
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
      try fileSystem.rename(at: directory, temporaryName, to: fileName)
      renamed = true
      do throws(SystemCallError) {
        try fileSystem.synchronize(directory)
      } catch {
        // The rename may not survive a power cut: put the old file back, report failure.
        // When the old file cannot be put back either, the new one stands at the path:
        // both failures are reported, so that nobody takes the store for the old one.
        do {
          try undoRename(in: directory, hadOldFile: current != nil)
        } catch let restoreError {
          if let reader { try? fileSystem.close(reader) }  // read-only: nothing to lose
          throw StoreError.saveNotUndone(
            path, operation: error.operation, errno: error.code,
            restoreOperation: restoreError.operation, restoreErrno: restoreError.code)
        }
        if let reader { try? fileSystem.close(reader) }  // read-only: nothing to lose
        throw error
      }
      if let loadedFile { try? fileSystem.close(loadedFile) }
      loadedFile = reader
      loadedStatus = newStatus
      loadedGeneration = generation
      var receipt = SaveReceipt(generation: generation, locations: writer.locations)
      receipt.placements = writer.placements
      return receipt
    } catch {
      if temporaryIsOpen { try? fileSystem.close(temporary) }
      throw error
    }
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

  private func acquire(_ lock: Int32) throws {
    // Another save is short, but on a slow or busy disk a large store's can take seconds:
    // wait for it, up to ``lockWaitMilliseconds``, trying every 10 ms.
    let attempts = max(1, lockWaitMilliseconds / 10)
    for attempt in 0..<attempts {
      if try fileSystem.lockExclusively(lock) { return }
      if attempt < attempts - 1 { usleep(10_000) }
    }
    throw StoreError.locked(path)
  }

  private func makeFolders() throws {
    guard folder != "." && folder != "/" else { return }
    try fileSystem.makeDirectories(folder, mode: 0o700)
  }

  private func isSameFile(_ current: FileStatus?, as loaded: FileStatus?) -> Bool {
    switch (current, loaded) {
    case (nil, nil): return true
    case (let current?, let loaded?):
      return current.device == loaded.device && current.inode == loaded.inode
        && current.size == loaded.size
        && current.modificationNanoseconds == loaded.modificationNanoseconds
    default: return false
    }
  }

  /// The generation of the file now at `path`, read from its first bytes; `nil` if unknown.
  private func generationOnDisk() -> Int? {
    guard let file = try? fileSystem.open(targetPath, flags: O_RDONLY | O_CLOEXEC, mode: 0) else {
      return nil
    }
    defer { try? fileSystem.close(file) }
    var reader = StoreReader(file: file, fileSystem: fileSystem)
    return try? reader.readGraph().generation
  }
}
