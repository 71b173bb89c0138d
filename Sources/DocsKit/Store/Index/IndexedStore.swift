#if canImport(Glibc)
  import Glibc
#endif

// MARK: - Progress and warnings

/// A long piece of work the store does, as a progress bar shows it.
public enum ProgressTask: Sendable, Equatable, CustomStringConvertible {
  /// Reading the store and writing its index (no index yet, or one that could not be trusted).
  case indexingStore
  /// Reading the whole store, with no index to write.
  case readingStore
  /// Building the full-text index (the first search).
  case indexingContents
  /// Reading every content of the store to check it.
  case checkingStore
  /// Comparing the whole store with the last commit, to commit what differs.
  case committingStore
  /// Writing the store from a commit of its repository (a machine's first sync).
  case buildingStore

  public var description: String {
    switch self {
    case .indexingStore: return "indexing the store"
    case .readingStore: return "reading the store"
    case .indexingContents: return "building the search index"
    case .checkingStore: return "checking the store"
    case .committingStore: return "committing the store"
    case .buildingStore: return "writing the store from the repository"
    }
  }
}

/// Receives the progress of long work; the shell decides whether and how to draw it.
/// Calls come on the thread doing the work, in the order begin, advance…, end.
public protocol ProgressObserver: AnyObject {
  /// A task starts; `totalBytes` is how much of the store file it will go through.
  func beginTask(_ task: ProgressTask, totalBytes: Int)
  /// The task has gone through `completedBytes` of the store file.
  func advanceTask(to completedBytes: Int)
  /// The task is over (done, or given up).
  func endTask()
}

/// Why docsh works from the store alone for this run; the shell shows it once.
public enum IndexWarning: Sendable, Equatable, CustomStringConvertible {
  /// The cache folder cannot be made or written.
  case cacheUnavailable(folder: String, reason: String)
  /// The index failed while in use; it will be rebuilt when it can be.
  case indexFailed(path: String, reason: String)

  public var description: String {
    switch self {
    case .cacheUnavailable(let folder, let reason):
      return
        "cannot use the index cache \(folder) (\(reason)); working from the store file alone"
    case .indexFailed(let path, let reason):
      return "the index \(path) failed (\(reason)); working from the store file alone"
    }
  }
}

/// What became of the index when it was last opened or checked.
public enum IndexState: Sendable, Equatable, CustomStringConvertible {
  /// No cache folder was given: no index.
  case none
  /// The index described the store and was used.
  case trusted
  /// The index was rebuilt from the store, for this reason.
  case rebuilt(reason: String)
  /// The index could not be used.
  case unavailable(reason: String)

  public var description: String {
    switch self {
    case .none: return "no index"
    case .trusted: return "the index agrees with the store"
    case .rebuilt(let reason): return "the index was rebuilt (\(reason))"
    case .unavailable(let reason): return "the index cannot be used (\(reason))"
    }
  }
}

// MARK: - The store with its index

/// The JSON store file (the one source of truth) with its SQLite index in a cache folder
/// (derived data): the two parts of the store layer behind one ``DocumentStore``.
///
/// Opening with an index that provably describes the file reads no document of the file:
/// categories come from the index with their totals, and their documents when first needed.
/// An index with any doubt about it is rebuilt from the file; a cache folder that cannot be
/// used leaves the store working from the file alone. No failure of the index ever fails
/// a load, a query or a save.
public final class IndexedStore: DocumentStore {
  /// The JSON file part.
  let file: JSONStore
  let fileSystem: any FileSystem
  let cacheFolder: String?
  let progress: (any ProgressObserver)?
  /// Asked while the index is filled whether to stop; `nil`: never stops.
  let interruption: (any Interruption)?
  let sqlite: any SQLiteLibrary
  let busyTimeoutMilliseconds: Int
  /// How many steps of SQLite's virtual machine go between two questions to the
  /// interruption while a query runs.
  let interruptionInterval: Int32
  let now: () -> Int64

  /// Where answers about the loaded file come from; changed by its transitions only.
  var state = IndexStateMachine()
  /// The path the index is named from and records (resolved once, when first needed).
  lazy var realPath: String = resolvedRealPath()
  /// Contents handed out from the index since the load or save, by document: a ledger for
  /// remapping them if the index turns out to have lied, not a state of the index.
  var issuedFromIndex: [StoredLocation: ObjectID] = [:]

  /// The first warning about the index this run, for the shell to show once.
  public internal(set) var indexWarning: IndexWarning?
  /// What became of the index at the last load or check (a report: nothing decides by it).
  public internal(set) var indexState: IndexState = .none

  /// How long a process waits for another's write to the index before working from the
  /// store file alone: as long as a save waits for the store's lock.
  public static let defaultIndexWaitMilliseconds = 10_000

  /// The store at `path` with its index in `cacheFolder` (`nil`: no index); long work is
  /// reported to `progress`. Filling the index stops when `interruption` asks: rolled back,
  /// left for the next search or open to fill again, never taken for damage.
  /// - Parameter indexWaitMilliseconds: how long to wait for another process's write to the
  ///   index (SQLite's busy timeout) before giving the index up for this run.
  public convenience init(
    path: String, cacheFolder: String?, progress: (any ProgressObserver)? = nil,
    interruption: (any Interruption)? = nil, fileSystem: any FileSystem = SystemFileSystem(),
    indexWaitMilliseconds: Int = IndexedStore.defaultIndexWaitMilliseconds
  ) {
    self.init(
      path: path, cacheFolder: cacheFolder, progress: progress, interruption: interruption,
      fileSystem: fileSystem, sqlite: SystemSQLite(),
      busyTimeoutMilliseconds: indexWaitMilliseconds)
  }

  init(
    path: String, cacheFolder: String?, progress: (any ProgressObserver)?,
    interruption: (any Interruption)? = nil, fileSystem: any FileSystem,
    sqlite: any SQLiteLibrary,
    busyTimeoutMilliseconds: Int = IndexedStore.defaultIndexWaitMilliseconds,
    interruptionInterval: Int32 = 10_000,
    now: @escaping () -> Int64 = IndexedStore.realtimeNanoseconds
  ) {
    file = JSONStore(path: path, fileSystem: fileSystem)
    self.fileSystem = fileSystem
    self.cacheFolder = cacheFolder
    self.progress = progress
    self.interruption = interruption
    self.sqlite = sqlite
    self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    self.interruptionInterval = interruptionInterval
    self.now = now
  }

  public var displayName: String { file.displayName }

  public var filePath: String { file.filePath }

  /// The index database's path, when there is a cache folder.
  public var indexPath: String? {
    cacheFolder.map { $0 + "/" + IndexedStore.indexFileName(for: realPath) }
  }

  // MARK: - Loading

  public func load() throws(StoreError) -> LoadedGraph {
    try load(deferringCategories: false)
  }

  /// Loads the store; with `deferringCategories`, an index that describes the file answers
  /// with no category read (``CategoryDeferringStore``).
  func load(deferringCategories: Bool) throws(StoreError) -> LoadedGraph {
    state.beginLoad()
    issuedFromIndex = [:]
    guard let opened = try file.openCurrentFile() else {
      file.adopt(nil, header: StoreReader.Header(generation: 0, epoch: nil))
      indexState = cacheFolder == nil ? .none : .trusted
      return .empty
    }
    let header = file.header(of: opened)
    if let index = openIndex(), let header, let generation = header.generation {
      let base = IndexIdentity(storePath: realPath, status: opened.status, generation: generation)
      if let graph = try trustedGraph(
        from: index, base: base, header: header, opened: opened,
        deferringCategories: deferringCategories)
      {
        return graph
      }
    }
    // No index, or one that does not describe this file: read the file, then index it,
    // both on one progress line from the first byte, so that a large store shows it at once.
    let phases = OpeningProgress(
      progress, task: state.index == nil ? .readingStore : .indexingStore,
      size: opened.status.size)
    defer { phases.end() }
    let graph: LoadedGraph
    do {
      let read = try file.readGraph(of: opened, positioned: true, bytesRead: phases.read)
      file.adopt(opened, header: StoreReader.Header(generation: read.generation, epoch: read.epoch))
      graph = try file.attachingLog(to: read)
      file.loadedGeneration = graph.generation
    } catch {
      if file.loadedFile == opened.descriptor {
        file.adopt(nil, header: StoreReader.Header(generation: 0, epoch: nil))
      } else {
        file.close(opened)
      }
      file.markDamaged()
      throw error
    }
    let identity = IndexIdentity(
      storePath: realPath, status: opened.status, generation: file.loadedHeader.generation ?? 0,
      log: LogPosition(file.attached))
    guard let index = state.index else { return graph }
    state.trust(identity, isRacy: false)
    rebuild(index, from: graph, identity: identity, phases: phases)
    // Now the index describes the file: answer from it, as a later open would, so that a
    // save writes what changed rather than every document read just now. Rows just
    // written that the file contradicts: keep the graph read from the file.
    if state.index === index, case .answered(let found) = indexedCategories(index, identity),
      case .success(let unloaded) = categoriesOnlyGraph(
        fromIndexed: found.categories, isRacy: found.record.isRacy, identity: identity)
    {
      state.trust(identity, isRacy: found.record.isRacy)
      return unloaded
    }
    return graph
  }

  /// Rebuilds the index from `graph` under its write lock, unless another session rebuilt
  /// it meanwhile (then it describes this file) or saved since this one read the file (then
  /// its save brought the index in step with its own file, and a rebuild from this one
  /// would undo that).
  private func rebuild(
    _ index: StoreIndex, from graph: LoadedGraph, identity: IndexIdentity,
    phases: OpeningProgress
  ) {
    withIndex(index) { () throws(SQLiteError) in
      try index.rebuild(
        from: graph, identity: identity,
        when: { found in
          // Not over an index another process made of this file, as far into its log or
          // further: it describes what this one read, and more.
          if let found, found.identity.describesSameFile(as: identity),
            found.identity.generation == identity.generation,
            found.identity.log.end >= identity.log.end
          {
            return false
          }
          return isCurrentFile(identity)
        }
      ) { done throws(SQLiteError) in
        try stopIfInterrupted(.storeIndex)
        phases.indexed(done)
      }
    }
  }

  /// The graph from the index, categories only, when it provably describes `opened` (the
  /// file of identity `base`) and its save log: records of the log the index has not seen
  /// yet are applied to it first. With `deferringCategories`, no category either: the graph
  /// says they are deferred, and ``deferredCategories()`` reads them.
  /// - Throws: ``StoreError`` when the log cannot be read, or is one of a newer docsh.
  private func trustedGraph(
    from index: StoreIndex, base: IndexIdentity, header: StoreReader.Header,
    opened: JSONStore.OpenedFile, deferringCategories: Bool
  ) throws(StoreError) -> LoadedGraph? {
    let found: IndexRecord?
    do {
      found = try index.record()
    } catch {
      disable(index, error)
      return nil
    }
    guard let record = found, record.identity.describesSameFile(as: base),
      record.identity.storePath == base.storePath,
      record.identity.generation == base.generation
    else {
      indexState = .rebuilt(reason: Self.rebuildReason(found, base))
      return nil
    }
    file.adopt(opened, header: header)
    guard let identity = try caughtUp(index, record: record, header: header) else { return nil }
    if deferringCategories {
      // The same proof as reading the categories would give (the record, read in a
      // transaction, is this identity's), without reading them.
      let answer = ask(index) { () throws(SQLiteError) in
        try index.reading(identity) { record throws(SQLiteError) in record }
      }
      guard case .answered(let current) = answer else { return nil }
      state.trust(identity, isRacy: current.isRacy)
      indexState = .trusted
      var graph = LoadedGraph(generation: identity.storeGeneration, categories: [], documents: [])
      graph.epoch = file.loadedHeader.epoch
      graph.categoriesDeferred = true
      return graph
    }
    switch indexedCategories(index, identity) {
    case .failed, .describesAnotherFile:
      return nil
    case .answered(let found):
      switch categoriesOnlyGraph(
        fromIndexed: found.categories, isRacy: found.record.isRacy, identity: identity)
      {
      case .success(let graph):
        state.trust(identity, isRacy: found.record.isRacy)
        indexState = .trusted
        return graph
      case .failure(let contradiction):
        indexState = .rebuilt(reason: contradiction.reason)
        return nil
      }
    }
  }

  /// The identity the index holds once it is in step with the adopted file's log, the log
  /// attached: `record`'s, or the one after applying the records it has not seen. `nil`
  /// when the index does not describe the log (another log, or the log changed where the
  /// index had read it) or could not be brought in step.
  /// - Throws: ``StoreError`` when the log cannot be read, or is one of a newer docsh.
  private func caughtUp(
    _ index: StoreIndex, record: IndexRecord, header: StoreReader.Header
  ) throws(StoreError) -> IndexIdentity? {
    let generation = header.generation ?? 0
    let known = record.identity.log
    let log: SaveLog
    switch try file.findLog(
      extending: header.epoch, generation: generation, file: file.loadedFileStatus)
    {
    case .none, .empty:
      guard known.last == nil else { return distrust("its save log is gone") }
      return record.identity
    case .ignored(_, let warning):
      file.logWarning = warning
      guard known.last == nil else { return distrust("its save log is gone") }
      return record.identity
    case .extends(let found):
      log = found
    }
    var verified: SaveLogFrame?
    if let last = known.last {
      do {
        let size = try fileSystem.status(of: log.descriptor).size
        guard let frame = try log.frame(at: last.start, size: size),
          frame.checksum == last.checksum, frame.end == known.end,
          frame.generation == known.generation
        else { return distrust("its save log is not the one it read") }
        // Every record before it must still pass its checksum: the index never shows what
        // the log's checksums reject. Reading the frames costs what the log holds, which
        // folds keep in proportion to the store file.
        guard try log.wholeRun(from: log.headerLength).end >= frame.end else {
          return distrust("its save log is damaged before where it read")
        }
        verified = frame
      } catch {
        throw .system(file.logPath, operation: error.operation, errno: error.code)
      }
    }
    let tail = try file.readRecords(
      of: log, from: verified?.end ?? 0, after: verified?.generation ?? generation)
    guard tail.damage == nil else { return distrust("its save log is damaged") }
    let last = tail.last ?? verified
    file.attach(log, end: last?.end ?? log.headerLength, last: last)
    file.loadedGeneration = last?.generation ?? generation
    guard let newest = tail.last else { return record.identity }
    var after = record.identity
    after.log = LogPosition(after: newest)
    let applied = withIndex(index) { () throws(SQLiteError) -> Bool in
      do {
        return try index.apply(tail.records, to: record.identity, making: after) {
          location throws(StoreError) in try file.readContent(at: location)
        }
      } catch let error as SQLiteError {
        throw error
      } catch {
        // A content the index placed cannot be read: the index cannot be trusted.
        throw SQLiteError(operation: "read", code: SQLiteError.corrupt, message: "\(error)")
      }
    }
    switch applied {
    case true?: return after
    case false?:
      // Another process applied them first: the index is in step if it holds `after` now.
      return currentRecord(of: index)?.identity == after ? after : nil
    case nil: return nil
    }
  }

  /// Takes the index out of use for this load, saying why; always `nil`.
  private func distrust(_ reason: String) -> IndexIdentity? {
    indexState = .rebuilt(reason: reason)
    return nil
  }

  /// The index's record and categories, when it was made for `identity`.
  func indexedCategories(_ index: StoreIndex, _ identity: IndexIdentity)
    -> IndexAnswer<(record: IndexRecord, categories: [IndexedCategory])>
  {
    ask(index) { () throws(SQLiteError) in
      try index.reading(identity) { record throws(SQLiteError) in
        (record: record, categories: try index.categories())
      }
    }
  }

  /// Why the index's rows cannot stand for the file they were made for.
  struct Contradiction: Error {
    var reason: String
  }

  /// The categories-only graph of the adopted file from the index's rows `categories` (all
  /// of them, or the one looked up), or why the file or the rows contradict them.
  func categoriesOnlyGraph(
    fromIndexed categories: [IndexedCategory], isRacy: Bool, identity: IndexIdentity
  ) -> Result<LoadedGraph, Contradiction> {
    if isRacy {
      // Modified too close to when the index recorded it: check each category's header in
      // the file. A category the log made is not in the file; one the log renamed has its
      // old name there.
      let logChanged = identity.log.last != nil
      for category in categories where category.placement.start > 0 {
        guard let header = file.categoryHeader(at: category.placement.start),
          header.id == category.id, logChanged || header.name?.text == category.name
        else {
          return .failure(
            Contradiction(reason: "the store changed in the same instant it was indexed"))
        }
      }
    }
    var graph = LoadedGraph(
      generation: identity.storeGeneration, categories: [], documents: [])
    graph.epoch = file.loadedHeader.epoch
    graph.categories.reserveCapacity(categories.count)
    for category in categories {
      // A name the index holds that is not valid is a damaged row: the file is read instead.
      guard let name = try? Name(category.name), name.text == category.name else {
        return .failure(Contradiction(reason: "a category name in it is not valid"))
      }
      var stored = StoredCategory(id: category.id, name: name)
      stored.placement = category.placement
      stored.unloaded = UnloadedCategory(
        summary: category.summary, placement: category.placement,
        touchedByLog: category.touchedByLog)
      stored.touchedByLog = category.touchedByLog
      graph.categories.append(stored)
    }
    return .success(graph)
  }

  /// Whether the file now at the store's path is the one `identity` describes.
  func isCurrentFile(_ identity: IndexIdentity) -> Bool {
    guard let status = file.statusOfCurrentFile() else { return false }
    return IndexIdentity(storePath: realPath, status: status, generation: identity.generation)
      .describesSameFile(as: identity)
  }

  /// Why the index, which does not describe `identity`, is to be rebuilt; `nil` when the
  /// index failed reading its record (it is out of use then, and says why).
  func rebuildReason(_ index: StoreIndex, _ identity: IndexIdentity) -> String? {
    do {
      return Self.rebuildReason(try index.record(), identity)
    } catch {
      disable(index, error)
      return nil
    }
  }

  /// Why an index holding `found` (`nil`: no record) is to be rebuilt for `identity`, which
  /// it does not describe.
  static func rebuildReason(_ found: IndexRecord?, _ identity: IndexIdentity) -> String {
    guard let record = found else { return "there was none" }
    if record.identity.storePath != identity.storePath { return "it described another store" }
    if !record.identity.describesSameFile(as: identity) {
      return "the store file changed since it was indexed"
    }
    return "it described another generation of the store"
  }
}

/// The progress of opening a store without a trusted index, as one task on one line: reading
/// the file is the first half of the line and indexing what was read the second, or reading
/// is the whole line when there is no index to write. Both count in bytes of the file.
struct OpeningProgress {
  private let observer: (any ProgressObserver)?
  private let size: Int
  private let indexes: Bool

  /// Begins `task` on `observer` for a file of `size` bytes.
  init(_ observer: (any ProgressObserver)?, task: ProgressTask, size: Int) {
    self.observer = observer
    self.size = size
    indexes = task == .indexingStore
    observer?.beginTask(task, totalBytes: size)
  }

  /// What hears the bytes read so far; `nil` when nobody watches (the parse calls nothing).
  var read: ((Int) -> Void)? {
    guard let observer else { return nil }
    let (size, indexes) = (size, indexes)
    return { bytes in observer.advanceTask(to: indexes ? min(bytes, size) / 2 : min(bytes, size)) }
  }

  /// Hears how far through the file the indexing is.
  func indexed(_ bytes: Int) {
    observer?.advanceTask(to: size / 2 + min(bytes, size) / 2)
  }

  /// Ends the task, whatever became of it.
  func end() {
    observer?.endTask()
  }
}
