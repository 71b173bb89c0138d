#if canImport(Glibc)
  import Glibc
#endif

/// The store as one JSON file of format v2 (v1 files are read too, and written whole as v2
/// by their first save), with its save log (`NAME.wal`) beside it; see `docs/store-format.md`.
///
/// Loading streams the file and leaves contents on disk as faults; the file stays open for
/// the session, so a store another session renames over this one does not change what this
/// session reads. Saving writes a temporary file beside the store, syncs it, keeps the old
/// file as `NAME.bak`, renames the new one over the store and syncs the folder, all under
/// an exclusive lock on `NAME.lock`, and only when nobody else saved since this one loaded.
///
/// A store reached through a symbolic link (or a chain of them) is the file the link names:
/// the path is resolved once, at the first load or check, and the lock, the temporary file
/// and `NAME.bak` go beside that file, which the save replaces, leaving the link as it is. A
/// link to no file yet names where a first save creates the store.
public final class JSONStore: StoreReading, StoreWriting {
  /// The store file's path as given.
  public let path: String
  /// The store file's path with its symbolic links followed, once resolved; `path` before.
  private(set) var targetPath: String
  var folder: String
  var fileName: String
  var isResolved = false
  let fileSystem: any FileSystem

  /// The loaded file, open for reading contents; `nil` when there was none.
  var loadedFile: Int32?
  /// What the loaded file was when loaded: a save refuses when the store is another file now.
  var loadedStatus: FileStatus?
  /// The generation of the store as loaded or last saved, its save log included.
  var loadedGeneration = 0
  /// What the loaded store file's header says: its own generation (before its log) and its
  /// epoch (`nil` for a file of version 1, which takes no log: its first save writes it
  /// whole).
  var loadedHeader = StoreReader.Header(generation: 0, epoch: nil)
  /// The save log of the loaded file, while it has one.
  var attached: AttachedLog?
  /// Why a file beside the store that looked like its log was not applied, when one was not.
  public internal(set) var logWarning: String?
  /// Whether the log has damage that could not be kept aside yet: nothing is saved until it
  /// can be, so that no save cuts it off.
  var damagedLogPending = false
  /// This process's presence among the store's sessions, from the first load on.
  var presence: SessionPresence?
  var hasLoaded = false
  /// The folder and lock file while ``withSaveLock(_:)`` holds the lock.
  var heldLock: (directory: Int32, lock: Int32)?
  /// How long a save waits for another session's save to let go of the lock before it
  /// gives up as ``StoreError/locked(_:)``: ten seconds (a test sets less).
  var lockWaitMilliseconds = 10_000
  var loadFailed = false

  public var displayName: String { path }

  public var filePath: String { targetPath }

  /// A store at `path`, reached through `fileSystem`.
  public init(path: String, fileSystem: any FileSystem = SystemFileSystem()) {
    self.path = path
    self.fileSystem = fileSystem
    targetPath = path
    (folder, fileName) = splitPath(path)
  }

  /// The most links a chain may hold, as the kernel allows (`MAXSYMLINKS`).
  static let maximumLinks = 40

  /// Follows the links at `path` to the file they name, once per store.
  /// - Throws: ``StoreError`` when a link cannot be read or the chain loops.
  func resolveLinks() throws(StoreError) {
    guard !isResolved else { return }
    var current = path
    var hops = 0
    do throws(SystemCallError) {
      while let target = try fileSystem.linkTarget(of: current) {
        hops += 1
        guard hops <= JSONStore.maximumLinks else {
          throw SystemCallError("readlink", code: ELOOP)
        }
        if target.hasPrefix("/") {
          current = target
        } else {
          // A relative target is relative to the folder holding the link.
          let linkFolder = splitPath(current).folder
          current =
            linkFolder == "." ? target : (linkFolder == "/" ? "" : linkFolder) + "/" + target
        }
      }
    } catch {
      throw .system(path, operation: error.operation, errno: error.code)
    }
    targetPath = current
    (folder, fileName) = splitPath(current)
    isResolved = true
  }

  // The `try?` in this file drop two kinds of failure only: closing a descriptor opened
  // for reading (nothing is lost, and Linux frees the descriptor even when close fails),
  // and the questions the index asks whose answer is documented as `nil` when it cannot
  // tell (a header, a run, a status): the caller then reads the file itself, and that
  // read reports the failure. Saving (JSONStore+Saving.swift) says why at each one.

  deinit {
    if let loadedFile { try? fileSystem.close(loadedFile) }
  }

  // MARK: - Loading

  public func load() throws(StoreError) -> LoadedGraph {
    hasLoaded = true
    loadFailed = true
    guard let opened = try openCurrentFile() else {
      adopt(nil, header: StoreReader.Header(generation: 0, epoch: nil))
      return .empty
    }
    do {
      let read = try readGraph(of: opened, positioned: false)
      adopt(opened, header: StoreReader.Header(generation: read.generation, epoch: read.epoch))
      let graph = try attachingLog(to: read)
      loadedGeneration = graph.generation
      return graph
    } catch {
      if loadedFile == opened.descriptor {
        adopt(nil, header: StoreReader.Header(generation: 0, epoch: nil))
      } else {
        close(opened)
      }
      loadFailed = true
      throw error
    }
  }

  // MARK: - Loading in parts (for the index)

  /// A store file opened for loading, before it replaces the one loaded.
  struct OpenedFile {
    /// Its descriptor.
    let descriptor: Int32
    /// Its `fstat`.
    let status: FileStatus
  }

  /// Opens the file now at the path, for loading; `nil` when there is none.
  /// - Throws: ``StoreError`` when it cannot be opened or is a folder.
  func openCurrentFile() throws(StoreError) -> OpenedFile? {
    hasLoaded = true
    do {
      try resolveLinks()
    } catch {
      loadFailed = true
      throw error
    }
    guard !fileName.isEmpty else {
      loadFailed = true
      throw .system(path, operation: "open", errno: EISDIR)
    }
    let file: Int32
    do {
      file = try fileSystem.open(targetPath, flags: O_RDONLY | O_CLOEXEC, mode: 0)
    } catch {
      if error.code == ENOENT { return nil }
      loadFailed = true
      throw .system(path, operation: "open", errno: error.code)
    }
    do {
      let status = try fileSystem.status(of: file)
      if status.isDirectory {
        try? fileSystem.close(file)
        loadFailed = true
        throw StoreError.system(path, operation: "read", errno: EISDIR)
      }
      return OpenedFile(descriptor: file, status: status)
    } catch let error as StoreError {
      throw error
    } catch {
      try? fileSystem.close(file)
      loadFailed = true
      throw .system(path, operation: "stat", errno: (error as? SystemCallError)?.code ?? EIO)
    }
  }

  /// Reads and checks the whole graph of `opened` (reading at its own offsets when
  /// `positioned`, so a file already read from can be read again); `bytesRead` hears how far
  /// into the file the parse is, every 64 KiB.
  /// - Throws: ``StoreError`` when it is not a valid store.
  func readGraph(
    of opened: OpenedFile, positioned: Bool, bytesRead: ((Int) -> Void)? = nil
  ) throws(StoreError) -> LoadedGraph {
    var reader =
      positioned
      ? StoreReader(file: opened.descriptor, fileSystem: fileSystem, startingAt: 0)
      : StoreReader(file: opened.descriptor, fileSystem: fileSystem)
    reader.bytesRead = bytesRead
    var graph: LoadedGraph
    do {
      graph = try reader.readGraph()
    } catch {
      loadFailed = true
      throw error.storeError(in: path) { position(of: $0, in: opened.descriptor) }
    }
    do {
      graph.index = try GraphIndex(checking: graph, in: path)
    } catch {
      loadFailed = true
      throw error
    }
    return graph
  }

  /// What `opened` states before its categories; `nil` when it cannot tell.
  func header(of opened: OpenedFile) -> StoreReader.Header? {
    var reader = StoreReader(file: opened.descriptor, fileSystem: fileSystem, startingAt: 0)
    return try? reader.readHeader()
  }

  /// Makes `opened` the loaded file (closing the one before), with what its header says;
  /// no log is attached yet.
  func adopt(_ opened: OpenedFile?, header: StoreReader.Header) {
    if let loadedFile, loadedFile != opened?.descriptor { try? fileSystem.close(loadedFile) }
    loadedFile = opened?.descriptor
    loadedStatus = opened?.status
    loadedHeader = header
    loadedGeneration = header.generation ?? 0
    attached = nil
    loadFailed = false
    if opened != nil { joinSessions() }
  }

  /// Counts this process among the store's sessions, once there is a store file (a store
  /// never saved leaves no file beside it).
  func joinSessions() {
    if presence == nil {
      presence = SessionPresence(folder: folder, storeName: fileName, fileSystem: fileSystem)
    }
  }

  /// Closes a file opened for loading that will not be used.
  func close(_ opened: OpenedFile) {
    try? fileSystem.close(opened.descriptor)
  }

  /// The `stat` of the file now at the path; `nil` when there is none or it cannot be had.
  func statusOfCurrentFile() -> FileStatus? {
    guard
      let directory = try? fileSystem.open(
        folder, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
    else { return nil }
    defer { try? fileSystem.close(directory) }
    return (try? fileSystem.status(at: directory, fileName)) ?? nil
  }

  /// The `fstat` of the loaded file when it was loaded or saved; `nil` when there was none.
  var loadedFileStatus: FileStatus? { loadedStatus }

  public func leave() -> Bool {
    guard let presence else { return false }
    self.presence = nil
    guard presence.leave() else { return false }
    // A log kept empty after a fold holds nothing to fold.
    let log = (folder == "/" ? "" : folder) + "/" + SaveLog.fileName(forStore: fileName)
    var status = stat()
    return lstat(log, &status) == 0 && status.st_size > 0
  }

  public var isOnlySession: Bool { presence?.isAlone() ?? true }

  public var loadWarning: String? { logWarning }

  public var logSize: (log: Int, store: Int) {
    (attached?.end ?? 0, loadedStatus?.size ?? 0)
  }

  /// A new `fstat` of the loaded file (a rename changes its change time); `nil` on failure.
  func statusOfLoadedFile() -> FileStatus? {
    guard let loadedFile else { return nil }
    return try? fileSystem.status(of: loadedFile)
  }

  /// The id and name in the header of the category object at `offset` of the loaded file;
  /// `nil` when the bytes there are not the start of a category.
  func categoryHeader(at offset: Int) -> (id: ObjectID?, name: Name?)? {
    guard let loadedFile else { return nil }
    var reader = StoreReader(file: loadedFile, fileSystem: fileSystem, startingAt: offset)
    return try? reader.readCategoryHeader()
  }

  /// The documents of the loaded file's run `documents` (`count` of them, or as many as it
  /// holds when `nil`), read as the loader reads them; `nil` when the bytes there are not
  /// such a run.
  func documentRun(_ documents: StoredLocation, count: Int?, of categoryID: ObjectID)
    -> [StoredDocument]?
  {
    guard let loadedFile else { return count == 0 ? [] : nil }
    if documents.length == 0 { return count == nil || count == 0 ? [] : nil }
    var reader = StoreReader(
      file: loadedFile, fileSystem: fileSystem, startingAt: documents.offset)
    guard count != 0 else { return nil }
    return try? reader.readDocumentRun(count: count, of: categoryID)
  }

  /// Reads the loaded file again from the start, with the records of its attached log up
  /// to where the store has read it, for a store whose index turned out not to describe it.
  /// - Throws: ``StoreError`` when it cannot be read.
  func readLoadedGraph() throws(StoreError) -> LoadedGraph {
    guard let loadedFile, let loadedStatus else { return .empty }
    var graph = try readGraph(
      of: OpenedFile(descriptor: loadedFile, status: loadedStatus), positioned: true)
    if let attached {
      let read = try readRecords(of: attached.log, from: 0, after: graph.generation)
      let upTo = read.records.prefix { $0.generation <= loadedGeneration }
      do {
        graph = try graph.applying(Array(upTo))
      } catch {
        throw .damagedSaveLog(logPath, reason: error.reason)
      }
    }
    loadFailed = false
    return graph
  }

  /// Marks the store as damaged: used when the graph it loaded broke a rule of the format,
  /// so it will never be overwritten.
  public func markDamaged() {
    loadFailed = true
  }

  // MARK: - Checking

  /// Verifies the store file as it is on disk: its format, unique ids and names, every
  /// content decodable, every stored size equal to its content's. Reports every problem
  /// found (a file that is not a valid store at all is one problem). Changes nothing.
  public func check() -> StoreCheckReport {
    checkedScan().report
  }

  /// What ``check()`` reports, with the graph it read and the file's `fstat`, when it could;
  /// `advance` hears how far through the file (bytes done, bytes in all) the contents are.
  /// When `shouldStop` says so (asked before each content) the scan ends there: the report
  /// says it was interrupted, without the graph.
  func checkedScan(
    advance: (_ completed: Int, _ total: Int) -> Void = { _, _ in },
    shouldStop: () -> Bool = { false }
  ) -> CheckedScan {
    var report = StoreCheckReport(path: path)
    do {
      try resolveLinks()
    } catch {
      report.problems.append(error.description)
      return CheckedScan(report: report)
    }
    let file: Int32
    do {
      file = try fileSystem.open(targetPath, flags: O_RDONLY | O_CLOEXEC, mode: 0)
    } catch {
      if error.code != ENOENT {
        report.problems.append(
          StoreError.system(path, operation: "open", errno: error.code).description)
      }
      report.exists = false
      return CheckedScan(report: report)
    }
    defer { try? fileSystem.close(file) }
    var reader = StoreReader(file: file, fileSystem: fileSystem)
    var graph: LoadedGraph
    do {
      graph = try reader.readGraph()
    } catch {
      report.problems.append(
        error.storeError(in: path) { position(of: $0, in: file) }.description)
      return CheckedScan(report: report)
    }
    let log: (log: SaveLog, end: Int, last: SaveLogFrame?)?
    let fileGeneration = graph.generation
    do {
      (graph, log) = try checkedLog(
        extending: graph, file: try? fileSystem.status(of: file), report: &report)
    } catch {
      report.problems.append(error.description)
      return CheckedScan(report: report)
    }
    reportKeptLogs(in: &report)
    report.generation = graph.generation
    report.categoryCount = graph.categories.count
    report.documentCount = graph.documents.count
    _ = GraphIndex(graph) { problem in
      report.problems.append(problem)
      return true
    }
    let categoryNames = Dictionary(
      graph.categories.map { ($0.id, $0.name.text) }, uniquingKeysWith: { first, _ in first })
    let total = (try? fileSystem.status(of: file).size) ?? 0
    for (position, document) in graph.documents.enumerated() {
      if shouldStop() {
        report.wasInterrupted = true
        return CheckedScan(report: report)
      }
      if position % 256 == 0 { advance(document.contentLocation.offset, total) }
      let place = "\(categoryNames[document.categoryID] ?? "?")/\(document.name)"
      do {
        let holder = document.contentLocation.file == .log ? log?.log.descriptor ?? file : file
        let content = try decodeContent(at: document.contentLocation, in: holder)
        if content.utf8.count != document.size {
          report.problems.append(
            "\(place): the stored size \(document.size) does not match its content (\(content.utf8.count) bytes)"
          )
        }
      } catch {
        report.problems.append("\(place): its content cannot be read: \(error)")
      }
    }
    return CheckedScan(
      report: report, graph: graph, status: try? fileSystem.status(of: file),
      fileGeneration: fileGeneration, log: log.map { (end: $0.end, last: $0.last) })
  }

  /// What ``checkedScan(advance:shouldStop:)`` found: the report, and when the store could
  /// be read, the graph with its log applied, the file's `fstat` and how far the log went.
  struct CheckedScan {
    var report: StoreCheckReport
    var graph: LoadedGraph?
    var status: FileStatus?
    /// The generation the store file itself states.
    var fileGeneration = 0
    var log: (end: Int, last: SaveLogFrame?)?
  }

  /// `graph` with the records of its save log applied, and the log; a file beside the store
  /// that is not its log, or a torn last record, is a problem of the report.
  private func checkedLog(
    extending graph: LoadedGraph, file fileStatus: FileStatus?, report: inout StoreCheckReport
  ) throws(StoreError) -> (LoadedGraph, (log: SaveLog, end: Int, last: SaveLogFrame?)?) {
    switch try findLog(extending: graph.epoch, generation: graph.generation, file: fileStatus) {
    case .none, .empty:
      return (graph, nil)
    case .ignored(_, let warning):
      report.problems.append(warning)
      return (graph, nil)
    case .extends(let log):
      let read = try readRecords(of: log, from: 0, after: graph.generation)
      report.logRecords = read.last.map { $0.generation - graph.generation } ?? 0
      let size = (try? fileSystem.status(of: log.descriptor).size) ?? read.end
      if let damage = read.damage {
        report.problems.append(
          "\(logPath) is damaged (\(damage.reason)): \(damage.unapplied) saves from there on are not applied; open the store with docsh to keep the whole log aside, then 'docsh --apply-log' brings back what it holds"
        )
      } else if size > read.end {
        report.notes.append(
          "\(logPath): \(size - read.end) bytes after the last whole record (a save cut short by a crash, so never saved; the next save removes them)"
        )
      }
      do {
        return (try graph.applying(read.records), (log, read.end, read.last))
      } catch {
        throw .damagedSaveLog(logPath, reason: error.reason)
      }
    }
  }

  // MARK: - Messages

  /// The line and column (from 1, columns in bytes) of `offset` in `file`.
  func position(of offset: Int, in file: Int32) -> (line: Int, column: Int) {
    var line = 1
    var lineStart = 0
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
    defer { chunk.deallocate() }
    var done = 0
    while done < offset {
      let wanted = min(chunk.count, offset - done)
      // Counting lines reads the file again: when that read fails, the failure being
      // reported is still the parse's, at the line counted so far.
      guard
        let count = try? fileSystem.read(
          file, into: UnsafeMutableRawBufferPointer(rebasing: chunk[..<wanted]), at: done),
        count > 0
      else { break }
      for index in 0..<count where chunk[index] == 0x0A {
        line += 1
        lineStart = done + index + 1
      }
      done += count
    }
    return (line, offset - lineStart + 1)
  }
}
