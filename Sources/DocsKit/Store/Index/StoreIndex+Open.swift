#if canImport(Glibc)
  import Glibc
#endif

// Opening the index file, and letting go of it: the lock file every process using it holds,
// the schema check, and removing a damaged index no other process has open.
//
// The `try?` here drop failures that change nothing: letting go of the lock file (a
// descriptor only read; unlocking and closing it lets go of the lock, and Linux frees the
// descriptor even when close fails), and taking it exclusively or removing files of a damaged cache (a lock not had
// means "in use: leave the files", a file not removed is found damaged and removed at the
// next open). The failure that matters is thrown, or is the answer.

extension StoreIndex {
  /// Opens (creating when missing) the index at `path`, checking that it is an SQLite
  /// database of this schema; a damaged one or one of another schema is replaced by an
  /// empty one when no other process has it open.
  /// - Throws: ``SQLiteError`` when no usable database can be had at `path`.
  static func open(
    at path: String, library: any SQLiteLibrary, fileSystem: any FileSystem,
    busyTimeoutMilliseconds: Int, now: @escaping () -> Int64
  ) throws(SQLiteError) -> StoreIndex {
    let useLock = try takeUseLock(at: path, fileSystem: fileSystem)
    var attempt = 0
    var waited = 0
    while true {
      do {
        let database = try openOnce(
          at: path, library: library, fileSystem: fileSystem,
          busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        return StoreIndex(
          database: database, path: path, fileSystem: fileSystem, useLock: useLock, now: now)
      } catch {
        // Processes opening one index at once (its journal mode, its schema) can be told
        // "busy" by SQLite without its busy handler waiting: wait as the handler would.
        if error.isBusy, waited < busyTimeoutMilliseconds {
          usleep(10_000)
          waited += 10
          continue
        }
        // Damaged, locked for good, another schema: it is only a cache; start it again, but
        // only when no other process has it open (it would go on with files nobody finds).
        attempt += 1
        guard attempt < 2, removeFilesIfUnused(at: path, useLock: useLock, fileSystem: fileSystem)
        else {
          try? fileSystem.close(useLock)
          throw error
        }
      }
    }
  }

  /// Opens `PATH.lock` (never removed) and takes it shared: every process with the index
  /// open holds it so, and its files are removed only under an exclusive hold.
  private static func takeUseLock(at path: String, fileSystem: any FileSystem)
    throws(SQLiteError) -> Int32
  {
    let lock: Int32
    do {
      lock = try fileSystem.open(
        path + ".lock", flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
    } catch {
      throw SQLiteError(operation: "open", code: SQLiteError.ioError, message: "\(error)")
    }
    // Another process holds it exclusively only while it removes the files.
    for attempt in 0..<200 {
      do {
        if try fileSystem.lockShared(lock) { return lock }
      } catch {
        try? fileSystem.close(lock)
        throw SQLiteError(operation: "lock", code: SQLiteError.ioError, message: "\(error)")
      }
      if attempt < 199 { usleep(10_000) }
    }
    try? fileSystem.close(lock)
    throw SQLiteError(operation: "lock", code: SQLiteError.busy, message: "the index is locked")
  }

  /// Removes the index files when no other process has them open (`useLock`, held shared,
  /// can be had exclusively), then holds `useLock` shared again; whether they were removed.
  private static func removeFilesIfUnused(
    at path: String, useLock: Int32, fileSystem: any FileSystem
  ) -> Bool {
    // Not had (or failing): taken for "in use", so the files stay.
    guard (try? fileSystem.lockExclusively(useLock)) == true else { return false }
    removeFiles(at: path, fileSystem: fileSystem)
    // Not held shared again: the open fails as "not removed", and the caller gives up.
    return (try? fileSystem.lockShared(useLock)) == true
  }

  /// Closes the connection, then lets go of the lock file; every later call throws.
  func close() {
    database.close()
    if let useLock { fileSystem.unlockAndClose(useLock) }
    useLock = nil
  }

  /// Closes the index and removes its files, unless another process has them open: a
  /// damaged index is then left for the last one using it (or the next open) to remove.
  func closeRemovingFilesIfUnused() {
    database.close()
    if let useLock, (try? fileSystem.lockExclusively(useLock)) == true {
      StoreIndex.removeFiles(at: path, fileSystem: fileSystem)
    }
    close()
  }

  private static func openOnce(
    at path: String, library: any SQLiteLibrary, fileSystem: any FileSystem,
    busyTimeoutMilliseconds: Int
  ) throws(SQLiteError) -> SQLiteDatabase {
    // Create the file 0600 ourselves: SQLite gives -wal and -shm the database's mode.
    do {
      let file = try fileSystem.open(
        path, flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
      defer { try? fileSystem.close(file) }  // made only to set its mode: nothing to lose
      try fileSystem.setPermissions(file, 0o600)
    } catch {
      throw SQLiteError(operation: "open", code: SQLiteError.ioError, message: "\(error)")
    }
    let database = try SQLiteDatabase(path: path, create: true, library: library)
    try database.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
    try database.execute("PRAGMA journal_mode = WAL")
    try database.execute("PRAGMA synchronous = NORMAL")
    // The -wal file is kept between processes (see SystemSQLite.open): truncate it after
    // every checkpoint, or a rebuild's hundred megabytes would be read back by every open.
    try database.execute("PRAGMA journal_size_limit = 0")
    // No process checkpoints when it closes (see SystemSQLite.open), and the first
    // connection of each process reads the whole -wal to rebuild its index (callgrind: 1.4
    // million instructions, an eighth of an `ls`, for 330 kB): checkpoint every 32 pages,
    // so that the -wal a command finds stays near 128 KiB and a checkpoint's syncs come once
    // every few saves.
    try database.execute("PRAGMA wal_autocheckpoint = 32")
    var version = try database.integer("PRAGMA user_version") ?? 0
    if version == 0 {
      // Looked at again under the write lock: of processes opening a new index at once, the
      // first creates the schema and the others find it.
      version = try database.transaction(writing: true) { () throws(SQLiteError) -> Int64 in
        let version = try database.integer("PRAGMA user_version") ?? 0
        guard version == 0 else { return version }
        let tables = try database.integer("SELECT count(*) FROM sqlite_master") ?? 0
        if tables != 0 {
          throw SQLiteError(operation: "schema", code: SQLiteError.corrupt, message: "not an index")
        }
        try database.execute(StoreIndex.schema)
        return schemaVersion
      }
    }
    if version != schemaVersion {
      throw SQLiteError(
        operation: "schema", code: SQLiteError.corrupt, message: "schema version \(version)")
    }
    // Reading the schema and a table proves the file is a database at all.
    _ = try database.integer("SELECT count(*) FROM identity")
    return database
  }

  /// Removes the index files at `path` (database, WAL and shared memory); only with the
  /// lock file held exclusively.
  private static func removeFiles(at path: String, fileSystem: any FileSystem) {
    let (folder, name) = splitPath(path)
    guard
      let directory = try? fileSystem.open(
        folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    else { return }
    defer { try? fileSystem.close(directory) }
    for suffix in ["", "-wal", "-shm", "-journal"] {
      try? fileSystem.unlink(at: directory, name + suffix)
    }
  }
}
