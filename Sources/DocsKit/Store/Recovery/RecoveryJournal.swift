#if canImport(Glibc)
  import Glibc
#endif

/// The recovery journal of one session: its unsaved changes in `STORE.unsaved-PID` beside the
/// store (mode 0600), so that a closed terminal, a kill or a power cut loses at most what
/// changed since the last write.
///
/// Every write replaces the whole file atomically (a temporary file written, synced, renamed
/// over it, the folder synced) and is never half-written in place. The session holds an
/// exclusive `flock` on the file it wrote for as long as it runs: a file nobody holds is one
/// whose session ended (see ``filesLeftBehind(storePath:fileSystem:)``).
public final class RecoveryJournal {
  /// The store's path as given.
  public let storePath: String
  private let folder: String
  private let storeName: String
  private let fileSystem: any FileSystem
  private let processID: Int32
  private let started: Timestamp
  /// The journal's file name in the folder, chosen at the first write.
  private var fileName: String?
  /// The file last written, open with its lock held.
  private var heldFile: Int32?
  private var identity: String?

  /// A journal for the session of process `processID`, started at `started`, on the store at
  /// `storePath`. Nothing is written before ``write(_:at:)``.
  public init(
    storePath: String, processID: Int32, started: Timestamp,
    fileSystem: any FileSystem = SystemFileSystem()
  ) {
    self.storePath = storePath
    self.processID = processID
    self.started = started
    self.fileSystem = fileSystem
    (folder, storeName) = splitPath(storePath)
  }

  deinit {
    if let heldFile { fileSystem.unlockAndClose(heldFile) }
  }

  /// The journal file's path once written; `nil` before.
  public var path: String? { fileName.map { RecoveryJournal.join(folder, $0) } }

  /// Whether the journal file is on disk.
  public var exists: Bool { heldFile != nil }

  /// Replaces the journal by `pending`, atomically and durably.
  /// - Throws: ``StoreError/system(_:operation:errno:)`` naming the journal file; the journal
  ///   on disk is then as it was.
  public func write(_ pending: PendingChanges, at now: Timestamp) throws(StoreError) {
    let target = path ?? RecoveryJournal.join(folder, storeName + ".unsaved-\(processID)")
    do throws(SystemCallError) {
      if folder != "." && folder != "/" { try fileSystem.makeDirectories(folder, mode: 0o700) }
      let directory = try fileSystem.open(
        folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
      defer { try? fileSystem.close(directory) }
      let name: String
      if let fileName { name = fileName } else { name = try chooseName(in: directory) }
      let identity: String
      if let known = self.identity {
        identity = known
      } else {
        identity = try RecoveryJournal.identity(of: storePath, fileSystem)
      }
      let bytes = RecoveryFileFormat.encode(
        RecoveryRecord(
          storeIdentity: identity, processID: processID, started: started, written: now,
          pending: pending))
      let (temporaryName, temporary) = try AtomicFile.createTemporaryFile(
        for: name, in: directory, fileSystem: fileSystem)
      var renamed = false
      defer {
        if !renamed {
          try? fileSystem.close(temporary)
          try? fileSystem.unlink(at: directory, temporaryName)
        }
      }
      // Locked before it is the journal: the file under the journal's name is always held.
      guard try fileSystem.lockExclusively(temporary) else {
        throw SystemCallError("lock", code: EWOULDBLOCK)
      }
      try fileSystem.writeFully(temporary, bytes)
      try fileSystem.synchronize(temporary)
      try fileSystem.rename(at: directory, temporaryName, to: name)
      renamed = true
      if let heldFile { fileSystem.unlockAndClose(heldFile) }
      heldFile = temporary
      fileName = name
      self.identity = identity
      // The rename stands in the folder; a failed sync only makes it less durable.
      try fileSystem.synchronize(directory)
    } catch {
      throw .system(target, operation: error.operation, errno: error.code)
    }
  }

  /// Removes the journal file (after a save, a revert or a clean exit).
  /// - Throws: ``StoreError/system(_:operation:errno:)`` when it cannot be removed.
  public func remove() throws(StoreError) {
    guard let heldFile, let fileName, let path else { return }
    self.heldFile = nil
    defer { fileSystem.unlockAndClose(heldFile) }
    do throws(SystemCallError) {
      let directory = try fileSystem.open(
        folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
      defer { try? fileSystem.close(directory) }
      try fileSystem.unlink(at: directory, fileName)
    } catch {
      if error.code == ENOENT { return }
      throw .system(path, operation: error.operation, errno: error.code)
    }
  }

  /// The first free name of `STORE.unsaved-PID`, `STORE.unsaved-PID-2` …: one left by an
  /// ended session of the same process id is never overwritten.
  private func chooseName(in directory: Int32) throws(SystemCallError) -> String {
    let base = storeName + ".unsaved-\(processID)"
    var candidate = base
    var number = 1
    while try fileSystem.status(at: directory, candidate) != nil {
      number += 1
      candidate = base + "-\(number)"
    }
    return candidate
  }

  /// The store's real path: links and `..` resolved, also for a store file not made yet.
  static func identity(of storePath: String, _ fileSystem: any FileSystem) throws(SystemCallError)
    -> String
  {
    try fileSystem.resolvedPath(storePath)
  }

  static func join(_ folder: String, _ name: String) -> String {
    folder == "/" ? "/" + name : folder + "/" + name
  }

  // MARK: - Files left behind

  /// The recovery files beside the store at `storePath` whose sessions ended (nobody holds
  /// their lock), oldest first, each read and checked whole; every file found is held
  /// (locked) until the value is released, so that two starting sessions never both take it.
  /// A folder that cannot be read has none.
  public static func filesLeftBehind(
    storePath: String, fileSystem: any FileSystem = SystemFileSystem()
  ) -> [LeftBehindRecovery] {
    let (folder, storeName) = splitPath(storePath)
    guard
      let directory = try? fileSystem.open(
        folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    else { return [] }
    defer { try? fileSystem.close(directory) }
    guard let names = try? fileSystem.names(in: directory) else { return [] }
    let prefix = storeName + ".unsaved-"
    let identity = try? RecoveryJournal.identity(of: storePath, fileSystem)
    removeStaleTemporaryFiles(
      names.filter { $0.hasPrefix("." + prefix) }, in: directory, fileSystem: fileSystem)
    var found: [LeftBehindRecovery] = []
    for name in names.sorted() where name.hasPrefix(prefix) {
      guard
        let file = try? fileSystem.open(
          at: directory, name, flags: O_RDONLY | O_NOFOLLOW | O_CLOEXEC, mode: 0)
      else { continue }
      guard (try? fileSystem.lockExclusively(file)) == true else {
        try? fileSystem.close(file)  // its session is running
        continue
      }
      let contents: Result<RecoveryRecord, RecoveryFileProblem>
      do {
        let record = try RecoveryFileFormat.decode(fileSystem.readToEnd(file))
        if let identity, record.storeIdentity != identity {
          contents = .failure(.otherStore(record.storeIdentity))
        } else {
          contents = .success(record)
        }
      } catch let error as RecoveryFileProblem {
        contents = .failure(error)
      } catch {
        let failed = error as? SystemCallError
        contents = .failure(
          .unreadable(operation: failed?.operation ?? "read", errno: failed?.code ?? EIO))
      }
      found.append(
        LeftBehindRecovery(
          folder: folder, storeName: storeName, name: name, file: file, contents: contents,
          fileSystem: fileSystem))
    }
    return found.sorted {
      (try? $0.contents.get().written) ?? Timestamp(millisecondsSince1970: 0)
        < (try? $1.contents.get().written) ?? Timestamp(millisecondsSince1970: 0)
    }
  }
}

extension RecoveryJournal {
  /// How old an unlocked temporary journal file must be to be taken for one a killed write
  /// left (a writer locks its temporary file right after making it).
  static let staleAfterNanoseconds: Int64 = 60_000_000_000

  /// Removes the temporary files (`.STORE.unsaved-PID.XXXXXX`) of journal writes that were
  /// killed: nobody holds their lock and they are older than a minute.
  static func removeStaleTemporaryFiles(
    _ names: [String], in directory: Int32, fileSystem: any FileSystem
  ) {
    let now = Timestamp.now().millisecondsSince1970 * 1_000_000
    for name in names {
      guard let status = try? fileSystem.status(at: directory, name),
        now - status.modificationNanoseconds > staleAfterNanoseconds,
        let file = try? fileSystem.open(
          at: directory, name, flags: O_RDONLY | O_NOFOLLOW | O_CLOEXEC, mode: 0)
      else { continue }
      defer { fileSystem.unlockAndClose(file) }
      if (try? fileSystem.lockExclusively(file)) == true {
        try? fileSystem.unlink(at: directory, name)
      }
    }
  }
}

/// A recovery file whose session ended, read and checked, held (locked) until released.
public final class LeftBehindRecovery {
  /// The file's path.
  public var path: String { RecoveryJournal.join(folder, name) }
  /// What it holds, or why it cannot be used.
  public let contents: Result<RecoveryRecord, RecoveryFileProblem>
  private let folder: String
  private let storeName: String
  private let name: String
  private var file: Int32?
  private let fileSystem: any FileSystem

  init(
    folder: String, storeName: String, name: String, file: Int32,
    contents: Result<RecoveryRecord, RecoveryFileProblem>, fileSystem: any FileSystem
  ) {
    self.folder = folder
    self.storeName = storeName
    self.name = name
    self.file = file
    self.contents = contents
    self.fileSystem = fileSystem
  }

  deinit { release() }

  /// Lets go of the file's lock; the file stays.
  public func release() {
    if let file { fileSystem.unlockAndClose(file) }
    file = nil
  }

  /// Removes the file: its changes were taken over, or are all in the store.
  /// - Throws: ``StoreError/system(_:operation:errno:)`` when it cannot be removed.
  public func discard() throws(StoreError) {
    defer { release() }
    do throws(SystemCallError) {
      let directory = try fileSystem.open(
        folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
      defer { try? fileSystem.close(directory) }
      try fileSystem.unlink(at: directory, name)
    } catch {
      if error.code == ENOENT { return }
      throw .system(path, operation: error.operation, errno: error.code)
    }
  }

  /// Renames the file to `STORE.recovered-STAMP` (`STAMP` such as `2026-12-01T1849`; `-2`,
  /// `-3` … added when taken), where no later start looks for it.
  /// - Returns: the new path.
  /// - Throws: ``StoreError/system(_:operation:errno:)`` when it cannot be renamed.
  public func setAside(stamp: String) throws(StoreError) -> String {
    defer { release() }
    do throws(SystemCallError) {
      let directory = try fileSystem.open(
        folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
      defer { try? fileSystem.close(directory) }
      let base = storeName + ".recovered-" + stamp
      var candidate = base
      var number = 1
      while try fileSystem.status(at: directory, candidate) != nil {
        number += 1
        candidate = base + "-\(number)"
      }
      try fileSystem.rename(at: directory, name, to: candidate)
      try? fileSystem.synchronize(directory)
      return RecoveryJournal.join(folder, candidate)
    } catch {
      throw .system(path, operation: error.operation, errno: error.code)
    }
  }
}
