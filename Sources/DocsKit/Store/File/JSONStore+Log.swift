#if canImport(Glibc)
  import Glibc
#endif

// The save log of the JSON store: read with the store file it extends, appended to by a
// save, set aside when it belongs to another file.

/// The save log a store has open beside its loaded file, and how far into it the store has
/// read or written: every whole record up to `end` is part of what was loaded.
struct AttachedLog {
  /// The open log.
  var log: SaveLog
  /// Where the whole records read or appended end.
  var end: Int
  /// The last of them; `nil` while the log holds none.
  var last: SaveLogFrame?
}

/// What the file beside a store file, where its save log would be, turned out to be.
enum LogFinding {
  /// There is no log: the store file holds every save.
  case none
  /// A log that holds no save: empty, what a crash left of its header, or a log a fold
  /// left (the store file holds all of it). The next save starts it anew in place.
  case empty(SaveLog)
  /// A log extending the store file.
  case extends(SaveLog)
  /// A log that does not extend this store file and must not be applied to it: `warning`
  /// says why.
  case ignored(SaveLog, warning: String)
}

/// Damage inside a save log: a record that is not whole, or not the next save, with whole
/// records after it, which are saves that returned. A torn tail (a last record cut short or
/// failing its checksum, nothing whole after it) is a save that never returned: no damage.
struct LogDamage: Equatable, Sendable {
  /// Where the first record that could not be applied starts.
  var offset: Int
  /// What is wrong with it.
  var reason: String
  /// How many records could not be applied: it and the whole ones after it.
  var unapplied: Int
}

/// What reading a save log found: the records that apply, where they end, and any damage
/// after them.
struct LogRead {
  var records: [SaveLogRecord]
  var end: Int
  var last: SaveLogFrame?
  var damage: LogDamage?
}

extension JSONStore {
  /// The save log's path: beside the store file, named after it.
  var logPath: String { SaveLog.fileName(forStore: targetPath) }

  /// Opens the file where the log of the store file (its epoch and generation, and its
  /// `fstat` when there is a file) would be, and says what it is.
  /// - Throws: ``StoreError`` when it cannot be read, or was written by a newer docsh.
  func findLog(
    extending epoch: StoreEpoch?, generation: Int, file: FileStatus?
  ) throws(StoreError) -> LogFinding {
    let directory: Int32
    do {
      directory = try fileSystem.open(folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    } catch {
      if error.code == ENOENT { return .none }
      throw .system(path, operation: "open", errno: error.code)
    }
    defer { try? fileSystem.close(directory) }  // read-only: nothing to lose
    let found: SaveLog?
    do {
      found = try SaveLog.open(
        at: directory, SaveLog.fileName(forStore: fileName), fileSystem: fileSystem)
    } catch {
      throw .system(logPath, operation: error.operation, errno: error.code)
    }
    guard let log = found else { return .none }
    if let file, log.status.owner != file.owner {
      // In a shared folder, another user's log must never add saves to this user's store.
      return .ignored(
        log,
        warning:
          "\(logPath) belongs to another user than \(path) does; it was not applied")
    }
    switch log.header {
    case .newer(let version):
      throw .newerVersion(logPath, version: version, supported: SaveLog.version)
    case .empty:
      return .empty(log)
    case .unreadable:
      return .ignored(
        log, warning: "\(logPath) is not a save log docsh can read; it was not applied")
    case .valid(let header):
      if let epoch, header.epoch == epoch {
        if let identity = header.file, let file, !identity.matches(file) {
          return .ignored(
            log,
            warning:
              "\(path) was written by another program since its save log began (a backup or copy put in its place?); \(logPath) was not applied"
          )
        }
        guard header.generation == generation else {
          throw .damagedSaveLog(
            logPath,
            reason:
              "it extends generation \(header.generation) of the store file, which is at \(generation)"
          )
        }
        return .extends(log)
      }
      if let epoch, try isFolded(log, into: epoch) { return .empty(log) }
      if let file, storeFileWasReplaced(since: file, in: directory) {
        // Another session wrote the file whole (a fold) after this one read it, and a save
        // began the log anew for that newer file: this read is of the file alone, as if made
        // a moment earlier. Not foreign: a save, under the lock, finds the newer file.
        return .empty(log)
      }
      return .ignored(
        log,
        warning:
          "\(logPath) holds saves of another version of \(path) (a copy, a backup put back, or another machine's); it was not applied"
      )
    }
  }

  /// Whether the store file is now another file, or written since `file` was read (its
  /// change time aside, which a fold's link to `.bak` moves).
  private func storeFileWasReplaced(since file: FileStatus, in directory: Int32) -> Bool {
    let now: FileStatus?
    do {
      now = try fileSystem.status(at: directory, fileName)
    } catch {
      return false  // cannot tell: the log stays foreign, with its warning
    }
    guard let now else { return true }
    return now.device != file.device || now.inode != file.inode || now.size != file.size
      || now.modificationNanoseconds != file.modificationNanoseconds
  }

  /// Whether `log` ends with the record a fold leaves, naming `epoch`.
  private func isFolded(_ log: SaveLog, into epoch: StoreEpoch) throws(StoreError) -> Bool {
    var folded = false
    do {
      _ = try log.scan(from: 0) { frame in
        let record = try readRecord(of: log, frame)
        folded = record.foldedInto == epoch
      }
    } catch {
      // A log that cannot be read through is not one a fold left: it is reported as foreign.
      return false
    }
    return folded
  }

  /// Reads the whole records of `log` from `offset` on, each the save after the one before
  /// (the first after `generation`), up to the first that cannot be applied: where the
  /// records that apply end, and what follows when that is damage rather than a torn tail.
  /// - Throws: ``StoreError`` when the log cannot be read.
  func readRecords(
    of log: SaveLog, from offset: Int, after generation: Int
  ) throws(StoreError) -> LogRead {
    var read = LogRead(records: [], end: max(offset, log.headerLength), last: nil)
    var expected = generation + 1
    do throws(SystemCallError) {
      let size = try fileSystem.status(of: log.descriptor).size
      while read.end < size {
        guard let frame = try log.frame(at: read.end, size: size) else {
          // Cut short or failing its checksum: damage when whole records follow.
          let later = try log.wholeRecords(after: read.end)
          if later > 0 {
            read.damage = LogDamage(
              offset: read.end,
              reason: "the record at byte \(read.end) is not whole or fails its checksum",
              unapplied: 1 + later)
          }
          break
        }
        let problem: String?
        var record: SaveLogRecord?
        do throws(StoreError) {
          let found = try readRecord(of: log, frame)
          record = found
          problem =
            found.generation == frame.generation && frame.generation == expected
            ? nil
            : "record \(frame.generation) at byte \(frame.start) follows generation \(expected - 1)"
        } catch {
          // readRecord fails only as damage; its reason names the record.
          if case .damagedSaveLog(_, let reason) = error {
            problem = reason
          } else {
            problem = "\(error)"
          }
        }
        if let problem {
          read.damage = LogDamage(
            offset: frame.start, reason: problem,
            unapplied: 1 + (try log.wholeRecords(after: frame.start)))
          break
        }
        expected += 1
        read.last = frame
        read.end = frame.end
        // A fold that stopped before renaming its file: the records before stand.
        if let record, record.foldedInto == nil { read.records.append(record) }
      }
    } catch {
      throw .system(logPath, operation: error.operation, errno: error.code)
    }
    return read
  }

  /// The record in `frame` of `log`.
  /// - Throws: ``StoreError/damagedSaveLog(_:reason:)`` when its body is not a record.
  func readRecord(of log: SaveLog, _ frame: SaveLogFrame) throws(StoreError) -> SaveLogRecord {
    var reader = StoreReader(
      file: log.descriptor, fileSystem: fileSystem, startingAt: frame.bodyStart)
    reader.locatedIn = .log
    do throws(StoreReadFailure) {
      let record = try reader.readLogRecord()
      guard reader.offset == frame.bodyStart + frame.bodyLength else {
        throw StoreReadFailure(
          kind: .malformed, offset: reader.offset, reason: "the record does not fill its length")
      }
      return record
    } catch {
      throw .damagedSaveLog(
        logPath, reason: "record \(frame.generation) at byte \(frame.start): \(error.reason)")
    }
  }

  /// Reads the log of the store file `graph` was read from, applies its records, and keeps
  /// the log attached; the graph as the store holds it. Damage inside the log is never cut
  /// off: the records before it are applied, the whole log is kept aside first (see
  /// ``keepDamagedLogAside(_:goodEnd:damage:)``) and the store warns.
  /// - Throws: ``StoreError`` when the log cannot be read or cannot be a log of this file.
  func attachingLog(to graph: LoadedGraph) throws(StoreError) -> LoadedGraph {
    switch try findLog(extending: graph.epoch, generation: graph.generation, file: loadedStatus) {
    case .none, .empty:
      attached = nil
      return graph
    case .ignored(_, let warning):
      attached = nil
      logWarning = warning
      return graph
    case .extends(let log):
      let read = try readRecords(of: log, from: 0, after: graph.generation)
      attached = AttachedLog(log: log, end: read.end, last: read.last)
      if let damage = read.damage {
        keepDamagedLogAside(log, goodEnd: read.end, damage: damage, after: graph.generation)
      }
      do {
        return try graph.applying(read.records)
      } catch {
        throw .damagedSaveLog(logPath, reason: error.reason)
      }
    }
  }

  /// Attaches `log`, read up to `end` (where `last` ends, when it holds a record).
  func attach(_ log: SaveLog, end: Int, last: SaveLogFrame?) {
    attached = AttachedLog(log: log, end: end, last: last)
  }

  /// The literal of the content at `location`, quotes included, as the store spells it.
  func literal(at location: StoredLocation) throws(StoreError) -> [UInt8] {
    try withBytes(at: location, of: descriptor(holding: location)) { bytes throws(StoreError) in
      Array(bytes)
    }
  }

  /// The open file holding `file`'s bytes.
  func descriptor(for file: StoredLocation.File) -> Int32? {
    switch file {
    case .store: return loadedFile
    case .log: return attached?.log.descriptor
    }
  }

  /// The files unchanged bytes are copied from.
  var sources: StoreSources { StoreSources(store: loadedFile, log: attached?.log.descriptor) }
}

// MARK: - Other sessions

extension JSONStore {
  /// What other sessions did since this store loaded or last saved: the `stat` of the file
  /// and of its log, and the frames of the records past where this store read.
  ///
  /// A question only: where it cannot be asked (`try?` below), the answer is `none`, which
  /// costs nothing but a later view — every save checks again under the lock and merges.
  public func movementSinceLoad() -> StoreMovement {
    guard hasLoaded, !loadFailed else { return .none }
    let current = statusOfCurrentFile()
    guard isSameFile(current, as: loadedStatus) else { return .replaced }
    guard current != nil, loadedHeader.epoch != nil else { return .none }
    var status = stat()
    let found = lstat(logPath, &status) == 0
    guard let attached else {
      guard found, status.st_size > 0, let epoch = loadedHeader.epoch,
        case .extends(let log)? = try? findLog(
          extending: epoch, generation: loadedHeader.generation ?? 0, file: loadedStatus),
        let frames = try? log.wholeRun(from: log.headerLength).count
      else { return .none }
      return frames > 0 ? .saves(frames) : .none
    }
    guard found, UInt64(status.st_ino) == attached.log.status.inode,
      Int(status.st_size) >= attached.end
    else { return .replaced }
    guard Int(status.st_size) > attached.end,
      let frames = try? attached.log.wholeRun(from: attached.end).count
    else { return .none }
    return frames > 0 ? .saves(frames) : .none
  }
}

// MARK: - Logs kept aside

/// A save log kept aside beside the store file: damaged (`NAME.wal.damaged-STAMP`) or of
/// another version of the file (`NAME.wal.ignored-STAMP`).
public struct KeptLog: Sendable, Equatable {
  /// Why it was kept aside.
  public enum Kind: String, Sendable {
    /// Damage inside it: the records from the damage on were not applied.
    case damaged
    /// It did not belong to the store file beside it.
    case ignored
  }

  /// Its path.
  public var path: String
  /// Why it was kept.
  public var kind: Kind
  /// Its size in bytes.
  public var size: Int
  /// When it was last written, in nanoseconds since 1970.
  public var modifiedNanoseconds: Int64
}

extension JSONStore {
  /// The name a log kept aside for `kind` gets now.
  private func keptName(_ kind: KeptLog.Kind) -> String {
    let stamp = Timestamp.now().iso8601.filter { $0.isNumber }
    return "\(SaveLog.fileName(forStore: fileName)).\(kind.rawValue)-\(stamp)"
  }

  /// Keeps the whole of `log`, damaged after `goodEnd`, aside as `NAME.wal.damaged-STAMP`
  /// (a copy, synced with the folder), then cuts the log back to `goodEnd`, under the save
  /// lock: the saves after the damage are never cut off, and the log goes on from the
  /// records that apply. When the copy cannot be made (a read-only folder, a full disk), the
  /// log is left as it is and nothing is saved (``damagedLogPending``).
  ///
  /// The damage was seen without the lock, so it is read again under it (`generation` is the
  /// one the log extends) and kept aside only when it is still there: a session that folded
  /// the file meanwhile empties the log and begins it anew in place, and what a reader saw
  /// of it half-way is no damage — cutting it would cut that session's saves.
  func keepDamagedLogAside(
    _ log: SaveLog, goodEnd: Int, damage: LogDamage, after generation: Int
  ) {
    do {
      let kept = try holdingLock { directory throws(StoreError) -> String? in
        guard try isDamageStillThere(log, goodEnd, damage, generation, in: directory) else {
          return nil
        }
        return try systemCalls(on: logPath) { () throws(SystemCallError) -> String? in
          let name = keptName(.damaged)
          try copyWhole(log.descriptor, to: name, mode: log.status.mode & 0o7777, in: directory)
          try log.truncate(to: goodEnd)
          return name
        }
      }
      damagedLogPending = false
      if let kept {
        let folderPrefix = folder == "." ? "" : (folder == "/" ? "/" : folder + "/")
        logWarning =
          "\(logPath) is damaged (\(damage.reason)): \(damage.unapplied) saves from there on were not applied; the whole log is kept as \(folderPrefix)\(kept) — 'docsh --apply-log \(folderPrefix)\(kept)' brings back what it holds"
      }
    } catch {
      damagedLogPending = true
      logWarning =
        "\(logPath) is damaged (\(damage.reason)): \(damage.unapplied) saves from there on were not applied, and it could not be kept aside (\(error)); nothing will be saved until it can"
    }
  }

  /// Whether, under the lock, the log beside the file is still `log` (another session may
  /// have kept it aside and cut it already), the file is still the one loaded (a fold
  /// replaces it and begins the log anew), and reading it again finds the same damage.
  private func isDamageStillThere(
    _ log: SaveLog, _ goodEnd: Int, _ damage: LogDamage, _ generation: Int, in directory: Int32
  ) throws(StoreError) -> Bool {
    let logName = SaveLog.fileName(forStore: fileName)
    let (current, file) = try systemCalls(on: logPath) {
      () throws(SystemCallError) -> (FileStatus?, FileStatus?) in
      (
        try fileSystem.status(at: directory, logName),
        try fileSystem.status(at: directory, fileName)
      )
    }
    guard let current, current.device == log.status.device, current.inode == log.status.inode,
      isSameFile(file, as: loadedStatus)
    else { return false }
    let again = try readRecords(of: log, from: 0, after: generation)
    return again.end == goodEnd && again.damage?.offset == damage.offset
  }

  /// Copies the whole of `source` into a new file `name` in `directory`, synced with the
  /// folder; on failure no file `name` is left.
  private func copyWhole(
    _ source: Int32, to name: String, mode: UInt32, in directory: Int32
  ) throws(SystemCallError) {
    let size = try fileSystem.status(of: source).size
    let target = try fileSystem.open(
      at: directory, name, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
      mode: mode)
    var isOpen = true
    do throws(SystemCallError) {
      var done = 0
      while done < size {
        let count = try fileSystem.copy(from: source, at: done, to: target, count: size - done)
        guard count > 0 else { throw SystemCallError("sendfile", code: EIO) }
        done += count
      }
      try fileSystem.synchronize(target)
      isOpen = false
      try fileSystem.close(target)
      try fileSystem.synchronize(directory)
    } catch {
      // Failing already: the copy is incomplete and goes; the log stays as it was.
      if isOpen { try? fileSystem.close(target) }
      try? fileSystem.unlink(at: directory, name)
      throw error
    }
  }

  /// Adds the logs kept aside to `report`: a damaged one is a problem (saves in it are not
  /// in the store), another file's a note; each with the command that applies it.
  func reportKeptLogs(in report: inout StoreCheckReport) {
    for kept in keptLogs() {
      let date = Timestamp(millisecondsSince1970: kept.modifiedNanoseconds / 1_000_000).iso8601
      let line =
        "\(kept.path) (\(kept.size) bytes, \(date)): a save log kept aside, \(kept.kind == .damaged ? "damaged" : "not this file's")"
      let apply = "'docsh --apply-log \(kept.path)' applies what it holds to the store"
      if kept.kind == .damaged {
        report.problems.append("\(line); saves in it are not in the store: \(apply)")
      } else {
        report.notes.append("\(line): \(apply), or remove it if you do not want them")
      }
    }
  }

  /// The logs kept aside beside the store file, oldest first. A folder that cannot be read
  /// lists none (`try?`): the store itself cannot be read there either, which `check` reports.
  public func keptLogs() -> [KeptLog] {
    guard
      let directory = try? fileSystem.open(
        folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    else { return [] }
    defer { try? fileSystem.close(directory) }  // read-only: nothing to lose
    let base = SaveLog.fileName(forStore: fileName) + "."
    let folderPrefix = folder == "." ? "" : (folder == "/" ? "/" : folder + "/")
    var kept: [KeptLog] = []
    for name in (try? fileSystem.names(in: directory)) ?? [] where name.hasPrefix(base) {
      let rest = name.dropFirst(base.count)
      guard let dash = rest.firstIndex(of: "-"),
        let kind = KeptLog.Kind(rawValue: String(rest[..<dash])),
        let status = (try? fileSystem.status(at: directory, name)) ?? nil
      else { continue }
      kept.append(
        KeptLog(
          path: folderPrefix + name, kind: kind, size: status.size,
          modifiedNanoseconds: status.modificationNanoseconds))
    }
    return kept.sorted { ($0.modifiedNanoseconds, $0.path) < ($1.modifiedNanoseconds, $1.path) }
  }
}

// MARK: - Applying a kept log

/// What a save log kept aside holds that can be brought back: the last version of each
/// document its readable saves put, and what cannot be applied.
public struct KeptLogContents: Sendable {
  /// Each document put by the saves to apply, as the last of them left it, with its
  /// category's name where a readable save of the log names it.
  public var documents: [SavedDocument] = []
  /// How many documents those saves deleted (docsh keeps them: a deletion is never
  /// brought back from a log another version of the store may contradict).
  public var deletions = 0
  /// How many records could not be read (damaged): nothing of them is applied.
  public var unreadable = 0
  /// How many whole saves are applied.
  public var saves = 0
}

extension JSONStore {
  /// Reads the log kept aside at `path`: for a damaged one, the whole records after its
  /// damage (the ones before were applied when it was kept); for another file's, all of
  /// them.
  /// - Throws: ``StoreError`` when it cannot be read or is not a save log.
  public static func readKeptLog(
    at path: String, fileSystem: any FileSystem = SystemFileSystem()
  ) throws(StoreError) -> KeptLogContents {
    let store = JSONStore(path: path, fileSystem: fileSystem)
    let (folder, name) = splitPath(path)
    let directory: Int32
    let found: SaveLog?
    do throws(SystemCallError) {
      directory = try fileSystem.open(folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
      defer { try? fileSystem.close(directory) }  // read-only: nothing to lose
      found = try SaveLog.open(at: directory, name, fileSystem: fileSystem)
    } catch {
      throw .system(path, operation: error.operation, errno: error.code)
    }
    guard let log = found, case .valid(let header) = log.header else {
      throw .damagedSaveLog(path, reason: "it is not a save log docsh can read")
    }
    var contents = KeptLogContents()
    var frames: [SaveLogFrame] = []
    do throws(SystemCallError) {
      let size = try fileSystem.status(of: log.descriptor).size
      var at = log.headerLength
      var expected = header.generation + 1
      var damaged = false
      while at < size, let frame = try log.frame(at: at, size: size) {
        if frame.generation != expected { damaged = true; break }
        frames.append(frame)
        expected += 1
        at = frame.end
      }
      if at < size || damaged {
        let later = try log.wholeFrames(after: at)
        contents.unreadable = 1
        // What stood before the damage was applied when the log was kept aside.
        if name.contains(".wal.\(KeptLog.Kind.damaged.rawValue)-") { frames = [] }
        frames += later
      }
    } catch {
      throw .system(path, operation: error.operation, errno: error.code)
    }
    var categoryNames: [ObjectID: Name] = [:]
    var documents: [ObjectID: SavedDocument] = [:]
    var order: [ObjectID] = []
    for frame in frames {
      let record: SaveLogRecord
      do {
        record = try store.readRecord(of: log, frame)
      } catch {
        contents.unreadable += 1
        continue
      }
      guard record.foldedInto == nil else { continue }
      contents.saves += 1
      for category in record.categories { categoryNames[category.id] = category.name }
      for entry in record.documents {
        switch entry {
        case .deleted(let id):
          if documents.removeValue(forKey: id) != nil { order.removeAll { $0 == id } }
          contents.deletions += 1
        case .put(let stored):
          let text = try store.decodeContent(at: stored.contentLocation, in: log.descriptor)
          if documents[stored.id] == nil { order.append(stored.id) }
          documents[stored.id] = SavedDocument(
            id: stored.id, name: stored.name.text, categoryID: stored.categoryID,
            categoryName: categoryNames[stored.categoryID]?.text ?? "", content: text,
            size: stored.size, modified: stored.modified, tags: stored.tags)
        }
      }
    }
    contents.documents = order.compactMap { id in
      guard var saved = documents[id] else { return nil }
      if saved.categoryName.isEmpty, let name = categoryNames[saved.categoryID] {
        saved.categoryName = name.text
      }
      return saved
    }
    return contents
  }
}
