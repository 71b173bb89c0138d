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
  /// A log extending the store file.
  case extends(SaveLog)
  /// A log that does not extend this store file and must not be applied to it; `warning`
  /// says why, unless the log is one a fold left behind (the file holds all of it).
  case ignored(SaveLog, warning: String?)
}

extension JSONStore {
  /// The save log's path: beside the store file, named after it.
  var logPath: String { SaveLog.fileName(forStore: targetPath) }

  /// Opens the file where the log of the store file `graph` (its epoch and generation) would
  /// be, and says what it is.
  /// - Throws: ``StoreError`` when it cannot be read, or was written by a newer docsh.
  func findLog(
    extending epoch: StoreEpoch?, generation: Int
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
    switch log.header {
    case .newer(let version):
      throw .newerVersion(logPath, version: version, supported: SaveLog.version)
    case .unreadable:
      return .ignored(
        log, warning: log.status.size == 0 ? nil : "\(logPath) is not a save log docsh can read")
    case .valid(let header):
      if let epoch, header.epoch == epoch {
        guard header.generation == generation else {
          throw .damagedSaveLog(
            logPath,
            reason:
              "it extends generation \(header.generation) of the store file, which is at \(generation)"
          )
        }
        return .extends(log)
      }
      if let epoch, try isFolded(log, into: epoch) { return .ignored(log, warning: nil) }
      return .ignored(
        log,
        warning:
          "\(logPath) holds saves of another version of \(path) (a copy, a backup put back, or another machine's); it was not applied"
      )
    }
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
  /// (the first after `generation`).
  /// - Throws: ``StoreError`` when the log cannot be read, or a whole record cannot be a
  ///   save of the store.
  func readRecords(
    of log: SaveLog, from offset: Int, after generation: Int
  ) throws(StoreError) -> (records: [SaveLogRecord], end: Int, last: SaveLogFrame?) {
    var records: [SaveLogRecord] = []
    var last: SaveLogFrame?
    var expected = generation + 1
    let end: Int
    do {
      end = try log.scan(from: offset) { frame in
        let record = try readRecord(of: log, frame)
        guard record.generation == frame.generation, frame.generation == expected else {
          throw StoreError.damagedSaveLog(
            logPath,
            reason:
              "record \(frame.generation) at byte \(frame.start) follows generation \(expected - 1)"
          )
        }
        expected += 1
        last = frame
        // A fold that stopped before renaming its file: the records before stand.
        if record.foldedInto == nil { records.append(record) }
      }
    } catch let error as StoreError {
      throw error
    } catch let error as SystemCallError {
      throw .system(logPath, operation: error.operation, errno: error.code)
    } catch {
      throw .damagedSaveLog(logPath, reason: "\(error)")
    }
    return (records, end, last)
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
  /// the log attached; the graph as the store holds it.
  /// - Throws: ``StoreError`` when the log cannot be read or cannot be a log of this file.
  func attachingLog(to graph: LoadedGraph) throws(StoreError) -> LoadedGraph {
    switch try findLog(extending: graph.epoch, generation: graph.generation) {
    case .none:
      attached = nil
      return graph
    case .ignored(_, let warning):
      attached = nil
      if let warning { logWarning = warning }
      return graph
    case .extends(let log):
      let read = try readRecords(of: log, from: 0, after: graph.generation)
      attached = AttachedLog(log: log, end: read.end, last: read.last)
      do {
        return try graph.applying(read.records)
      } catch {
        throw .damagedSaveLog(logPath, reason: error.reason)
      }
    }
  }

  /// The generation of the store at `path` (its file's, or its log's last save's); `nil`
  /// when there is no file or it cannot be read.
  static func generation(ofStoreAt path: String, fileSystem: any FileSystem) -> Int? {
    let store = JSONStore(path: path, fileSystem: fileSystem)
    guard let opened = try? store.openCurrentFile() else { return nil }
    defer { store.close(opened) }
    guard let header = store.header(of: opened), let generation = header.generation else {
      return nil
    }
    guard
      case .extends(let log)? = try? store.findLog(
        extending: header.epoch, generation: generation),
      let read = try? store.readRecords(of: log, from: 0, after: generation)
    else { return generation }
    return read.records.last?.generation ?? generation
  }

  /// Attaches `log`, read up to `end` (where `last` ends, when it holds a record).
  func attach(_ log: SaveLog, end: Int, last: SaveLogFrame?) {
    attached = AttachedLog(log: log, end: end, last: last)
  }

  /// The literal of the content at `location`, quotes included, as the store spells it.
  func literal(at location: StoredLocation) throws(StoreError) -> [UInt8] {
    guard let file = descriptor(for: location.file) else {
      throw .invalidStore(path, reason: "no content at offset \(location.offset)")
    }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: location.length, alignment: 1)
    defer { buffer.deallocate() }
    let count: Int
    do {
      count = try fileSystem.readFully(file, into: buffer, at: location.offset)
    } catch {
      throw .system(path, operation: "read", errno: error.code)
    }
    guard count == location.length else {
      throw .invalidStore(path, reason: "the file was cut short (a content ends past its end)")
    }
    return Array(buffer)
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
