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

  public var description: String {
    switch self {
    case .indexingStore: return "indexing the store"
    case .readingStore: return "reading the store"
    case .indexingContents: return "building the search index"
    case .checkingStore: return "checking the store"
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
  private let fileSystem: any FileSystem
  private let cacheFolder: String?
  private let progress: (any ProgressObserver)?
  /// Asked while the index is filled whether to stop; `nil`: never stops.
  private let interruption: (any Interruption)?
  let sqlite: any SQLiteLibrary
  private let busyTimeoutMilliseconds: Int
  /// How many steps of SQLite's virtual machine go between two questions to the
  /// interruption while a query runs.
  private let interruptionInterval: Int32
  private let now: () -> Int64

  /// The index, once opened; `nil` before or when it cannot be used.
  private var index: StoreIndex?
  private var indexOpenAttempted = false
  /// The path the index is named from and records.
  private lazy var realPath: String = resolvedRealPath()
  /// The identity of the loaded file, as an index describing it records it.
  private var loadedIdentity: IndexIdentity?
  /// Whether the index was racily clean when loaded: categories are verified as faulted.
  private var isRacy = false
  /// The loaded file read whole, when the index turned out not to describe it.
  private var scanned: ScannedFile?
  /// Contents handed out from the index, by document, for remapping if the index lied.
  private var issuedFromIndex: [StoredLocation: ObjectID] = [:]

  public private(set) var indexWarning: IndexWarning?
  /// What became of the index at the last load or check.
  public private(set) var indexState: IndexState = .none

  /// The store at `path` with its index in `cacheFolder` (`nil`: no index); long work is
  /// reported to `progress`. Filling the index stops when `interruption` asks: rolled back,
  /// left for the next search or open to fill again, never taken for damage.
  public convenience init(
    path: String, cacheFolder: String?, progress: (any ProgressObserver)? = nil,
    interruption: (any Interruption)? = nil, fileSystem: any FileSystem = SystemFileSystem()
  ) {
    self.init(
      path: path, cacheFolder: cacheFolder, progress: progress, interruption: interruption,
      fileSystem: fileSystem, sqlite: SystemSQLite())
  }

  init(
    path: String, cacheFolder: String?, progress: (any ProgressObserver)?,
    interruption: (any Interruption)? = nil, fileSystem: any FileSystem,
    sqlite: any SQLiteLibrary, busyTimeoutMilliseconds: Int = 3_000,
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

  /// The index database's path, when there is a cache folder.
  public var indexPath: String? {
    cacheFolder.map { $0 + "/" + IndexedStore.indexFileName(for: realPath) }
  }

  // MARK: - Loading

  public func load() throws(StoreError) -> LoadedGraph {
    scanned = nil
    issuedFromIndex = [:]
    isRacy = false
    loadedIdentity = nil
    guard let opened = try file.openCurrentFile() else {
      file.adopt(nil, generation: 0)
      indexState = cacheFolder == nil ? .none : .trusted
      return .empty
    }
    let generation = file.headerGeneration(of: opened)
    if let index = openIndex(), let generation {
      let identity = IndexIdentity(
        storePath: realPath, status: opened.status, generation: generation)
      if let graph = trustedGraph(from: index, identity: identity, opened: opened) {
        return graph
      }
    }
    // No index, or one that does not describe this file: read the file, then index it,
    // both on one progress line from the first byte, so that a large store shows it at once.
    let size = opened.status.size
    let phases = OpeningProgress(
      progress, task: index == nil ? .readingStore : .indexingStore, size: size)
    defer { phases.end() }
    let graph: LoadedGraph
    do {
      graph = try file.readGraph(of: opened, positioned: true, bytesRead: phases.read)
    } catch {
      file.close(opened)
      throw error
    }
    file.adopt(opened, generation: graph.generation)
    let identity = IndexIdentity(
      storePath: realPath, status: opened.status, generation: graph.generation)
    loadedIdentity = identity
    if let index {
      withIndex(index) { () throws(SQLiteError) in
        // Looked at under the index's write lock: another session may have rebuilt it
        // meanwhile (then it describes this file), or saved since this one read the file
        // (then its save brought the index in step with its own file, and a rebuild from
        // this one would undo that).
        try index.rebuild(
          from: graph, identity: identity,
          when: { $0?.identity != identity && isCurrentFile(identity) }
        ) { done throws(SQLiteError) in
          try stopIfInterrupted(.storeIndex)
          phases.indexed(done)
        }
      }
      // Now the index describes the file: answer from it, as a later open would, so that
      // a save writes what changed rather than every document read just now.
      if self.index === index, let categories = indexedCategories(index, identity) {
        let state = indexState  // why it was rebuilt, which `check` and the tests report
        defer { indexState = state }
        if let unloaded = categoriesOnlyGraph(fromIndexed: categories, identity: identity) {
          return unloaded
        }
        // Rows just written that the file contradicts: keep the graph read from the file.
        loadedIdentity = identity
        isRacy = false
      }
    }
    return graph
  }

  /// The graph from the index, categories only, when it provably describes `opened`.
  private func trustedGraph(
    from index: StoreIndex, identity: IndexIdentity, opened: JSONStore.OpenedFile
  ) -> LoadedGraph? {
    guard let found = indexedCategories(index, identity) else {
      if case .unavailable = indexState {
      } else {
        indexState = .rebuilt(reason: rebuildReason(index, identity))
      }
      return nil
    }
    file.adopt(opened, generation: identity.generation)
    return categoriesOnlyGraph(fromIndexed: found, identity: identity)
  }

  /// The index's record and categories, when it was made for `identity`.
  private func indexedCategories(_ index: StoreIndex, _ identity: IndexIdentity)
    -> (record: IndexRecord, categories: [IndexedCategory])?
  {
    let found = withIndex(index) { () throws(SQLiteError) -> (IndexRecord, [IndexedCategory])? in
      try index.reading(identity) { record throws(SQLiteError) in
        (record, try index.categories())
      }
    }
    guard let (record, categories) = found ?? nil else { return nil }
    return (record, categories)
  }

  /// The categories-only graph of the adopted file from the index's rows; `nil` (and the
  /// reason recorded) when the file or the rows contradict them.
  private func categoriesOnlyGraph(
    fromIndexed found: (record: IndexRecord, categories: [IndexedCategory]),
    identity: IndexIdentity
  ) -> LoadedGraph? {
    loadedIdentity = identity
    isRacy = found.record.isRacy
    if isRacy {
      // Modified too close to when the index recorded it: check each category's header.
      for category in found.categories {
        guard let header = file.categoryHeader(at: category.placement.start),
          header.id == category.id, header.name?.text == category.name
        else {
          indexState = .rebuilt(reason: "the store changed in the same instant it was indexed")
          loadedIdentity = nil
          return nil
        }
      }
    }
    var graph = LoadedGraph(generation: identity.generation, categories: [], documents: [])
    graph.categories.reserveCapacity(found.categories.count)
    for category in found.categories {
      guard let name = try? Name(category.name), name.text == category.name else {
        indexState = .rebuilt(reason: "a category name in it is not valid")
        loadedIdentity = nil
        return nil
      }
      var stored = StoredCategory(id: category.id, name: name)
      stored.placement = category.placement
      stored.unloaded = UnloadedCategory(summary: category.summary, placement: category.placement)
      graph.categories.append(stored)
    }
    indexState = .trusted
    return graph
  }

  /// Whether the file now at the store's path is the one `identity` describes.
  private func isCurrentFile(_ identity: IndexIdentity) -> Bool {
    guard let status = file.statusOfCurrentFile() else { return false }
    return IndexIdentity(storePath: realPath, status: status, generation: identity.generation)
      .describesSameFile(as: identity)
  }

  private func rebuildReason(_ index: StoreIndex, _ identity: IndexIdentity) -> String {
    guard let record = try? index.record() else { return "there was none" }
    if record.identity.storePath != identity.storePath { return "it described another store" }
    if !record.identity.describesSameFile(as: identity) {
      return "the store file changed since it was indexed"
    }
    return "it described another generation of the store"
  }

  // MARK: - Faulting in

  public func documents(of category: ObjectID, _ unloaded: UnloadedCategory) throws(StoreError)
    -> [StoredDocument]
  {
    if let scanned { return scanned.documents(of: category) }
    if let index, let identity = loadedIdentity {
      let rows = withIndex(index) { () throws(SQLiteError) -> [StoredDocument]?? in
        try index.reading(identity) { _ throws(SQLiteError) in
          try index.documents(of: category, base: unloaded.placement.documents.offset)
        }
      }
      if let answered = rows, let found = answered {
        if let documents = found, isPlausible(documents, for: unloaded),
          !isRacy || verify(documents, of: category, unloaded)
        {
          for document in documents { issuedFromIndex[document.contentLocation] = document.id }
          return documents
        }
        // It describes this file, yet the file contradicts it: rebuild it from the file.
        return try scanLoadedFile(rebuildingIndex: true).documents(of: category)
      }
    }
    return try scanLoadedFile().documents(of: category)
  }

  /// Whether rows from the index can describe the category: its count, in its run, in order.
  private func isPlausible(_ documents: [StoredDocument], for unloaded: UnloadedCategory) -> Bool {
    guard documents.count == unloaded.summary.documentCount else { return false }
    let run = unloaded.placement.documents
    var end = run.offset
    for document in documents {
      guard document.location.offset >= end, document.location.end <= run.end,
        document.contentLocation.offset > document.location.offset,
        document.contentLocation.end < document.location.end
      else { return false }
      end = document.location.end
    }
    return documents.isEmpty
      ? run.length == 0 : documents[documents.count - 1].location.end == run.end
  }

  /// Reads the category's run from the file and compares it with the index's rows.
  private func verify(
    _ documents: [StoredDocument], of category: ObjectID, _ unloaded: UnloadedCategory
  ) -> Bool {
    guard
      let read = file.documentRun(
        unloaded.placement.documents, count: documents.count, of: category)
    else { return false }
    return zip(read, documents).allSatisfy { read, indexed in
      read.id == indexed.id && read.name.text == indexed.name.text && read.size == indexed.size
        && read.modified == indexed.modified && read.location == indexed.location
        && read.contentLocation == indexed.contentLocation
    }
  }

  public func unloadedCategory(holding id: ObjectID) -> ObjectID? {
    if let scanned { return scanned.categoryOfDocument[id] }
    guard let index, let identity = loadedIdentity else { return nil }
    let found = withIndex(index) { () throws(SQLiteError) -> ObjectID?? in
      try index.reading(identity) { _ throws(SQLiteError) in try index.category(holding: id) }
    }
    if let found = found ?? nil { return found }
    // The index is out of use: the file answers.
    return (try? scanLoadedFile())?.categoryOfDocument[id]
  }

  public func documents(
    nameContaining needle: String, in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument] {
    func filtered(_ documents: [StoredDocument]) -> [StoredDocument] {
      documents.filter {
        categories[$0.categoryID] != nil && (needle.isEmpty || $0.name.key.folded.contains(needle))
      }
    }
    if let scanned { return filtered(scanned.graph.documents) }
    if let index, let identity = loadedIdentity {
      let found = withIndex(index) { () throws(SQLiteError) -> [StoredDocument]? in
        try index.reading(identity) { _ throws(SQLiteError) in
          try index.documents(nameContaining: needle)
        }
      }
      if let documents = found ?? nil {
        let kept = filtered(documents)
        for document in kept { issuedFromIndex[document.contentLocation] = document.id }
        return kept
      }
    }
    return filtered(try scanLoadedFile().graph.documents)
  }

  // MARK: - Contents

  public func readContent(at location: StoredLocation) throws(StoreError) -> String {
    let resolved = remapped(location)
    do {
      return try file.readContent(at: resolved)
    } catch {
      // A range from the index that holds no string: the index lied. Read the file.
      guard scanned == nil, issuedFromIndex[location] != nil else { throw error }
      _ = try scanLoadedFile(rebuildingIndex: true)
      return try file.readContent(at: remapped(location))
    }
  }

  public func withEncodedContents(
    at locations: [StoredLocation], _ visit: (Int, UnsafeRawBufferPointer) throws -> Void
  ) throws {
    try file.withEncodedContents(at: locations.map(remapped), visit)
  }

  private func remapped(_ location: StoredLocation) -> StoredLocation {
    guard let scanned, scanned.indexLied, let id = issuedFromIndex[location],
      let placed = scanned.locations[id]
    else { return location }
    return placed.content
  }

  /// Reads the loaded file whole, for when the index does not (or no longer) describe it.
  /// When `rebuildingIndex`, the index described this file but the file contradicts it:
  /// it is rebuilt from what was read.
  private func scanLoadedFile(rebuildingIndex: Bool = false) throws(StoreError) -> ScannedFile {
    if let scanned { return scanned }
    let graph = try file.readLoadedGraph()
    let scan = ScannedFile(graph: graph, indexLied: !issuedFromIndex.isEmpty)
    scanned = scan
    if rebuildingIndex, let index, let identity = loadedIdentity {
      indexState = .rebuilt(reason: "the store contradicted it")
      withIndex(index) { () throws(SQLiteError) in
        try index.rebuild(
          from: graph, identity: identity, when: { _ in isCurrentFile(identity) }
        ) { _ in }
      }
    }
    return scan
  }

  // MARK: - Searching

  public func search(_ request: IndexSearchRequest) throws(WorkInterrupted)
    -> IndexSearchResult?
  {
    guard scanned == nil, let index, let identity = loadedIdentity else { return nil }
    let found = try searching(index) { () throws(SQLiteError) -> IndexSearchResult?? in
      try index.search(request, identity: identity)
    }
    switch found {
    case .some(.some(.some(let result))):
      for hit in result.hits { issuedFromIndex[hit.document.contentLocation] = hit.document.id }
      return result
    case .some(.some(.none)):
      // The index holds no full text yet: build it, then ask again.
      guard try buildFullText(index, identity) else { return nil }
      let again = try searching(index) { () throws(SQLiteError) -> IndexSearchResult?? in
        try index.search(request, identity: identity)
      }
      guard case .some(.some(.some(let result))) = again else { return nil }
      for hit in result.hits { issuedFromIndex[hit.document.contentLocation] = hit.document.id }
      return result
    default:
      return nil
    }
  }

  /// The index's tokenizer, from the SQLite the index uses.
  public func makeSearchTokenizer() throws(SearchUnavailable) -> IndexTokenizer {
    try IndexTokenizer(library: sqlite)
  }

  /// ``withIndex(_:_:)`` for a query that may run long (a full-text search of a large
  /// store): SQLite asks the interruption as it runs; stopped, the index stays in use.
  /// - Throws: ``WorkInterrupted`` when the interruption stopped the query.
  private func searching<Result>(
    _ index: StoreIndex, _ body: () throws(SQLiteError) -> Result
  ) throws(WorkInterrupted) -> Result? {
    guard let interruption else { return withIndex(index, body) }
    let handler = SQLiteProgressHandler { interruption.isRequested(during: .rankedSearch) }
    do {
      return try index.database.asking(handler, every: interruptionInterval, body)
    } catch let error where error.isInterruption {
      throw WorkInterrupted(.rankedSearch)
    } catch {
      disable(index, error)
      return nil
    }
  }

  /// Fills the index's full text; whether it could.
  /// - Throws: ``WorkInterrupted`` when the interruption stopped it: rolled back, the index
  ///   stands as it was, without full text, for the next search.
  private func buildFullText(_ index: StoreIndex, _ identity: IndexIdentity)
    throws(WorkInterrupted) -> Bool
  {
    guard
      let rows = withIndex(index, { () throws(SQLiteError) in try index.documentsInFileOrder() })
    else { return false }
    var built = false
    var interrupted = false
    reportProgress(.indexingContents, total: Int(identity.size)) { advance in
      do {
        try index.buildFullText(identity: identity) { insert in
          var position = 0
          try file.withEncodedContents(at: rows.map(\.content)) { row, literal in
            try stopIfInterrupted(.fullTextIndex)
            // Contents come in file order: decode, then hand the UTF-8 to SQLite.
            let text = try JSONText.decodeLiteral(literal)
            var content = text
            try content.withUTF8 { bytes in
              try insert(rows[row].rowID, rows[row].name, UnsafeRawBufferPointer(bytes))
            }
            position += 1
            if position % 512 == 0 { advance(rows[row].content.end) }
          }
        }
        built = true
      } catch let error as SQLiteError where error.isInterruption {
        interrupted = true
      } catch let error as SQLiteError {
        disable(index, error)
      } catch {
        // The file could not be read as the index said: the index is wrong.
        _ = try? scanLoadedFile(rebuildingIndex: true)
      }
    }
    if interrupted { throw WorkInterrupted(.fullTextIndex) }
    return built
  }

  // MARK: - Saving

  public func withSaveLock<Result>(_ body: () throws -> Result) throws -> Result {
    try file.withSaveLock(body)
  }

  public func save(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt {
    let categories = categories.map(remapped)
    do {
      return try file.withSaveLock { () throws -> SaveReceipt in
        try saveHoldingLock(categories)
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw .invalidStore(displayName, reason: "\(error)")
    }
  }

  private func saveHoldingLock(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt {
    // Old texts for the full text come from the old file, before it is replaced.
    var plan: StoreIndex.UpdatePlan?
    if scanned == nil, let index, let identity = loadedIdentity {
      do {
        plan = try index.planUpdate(for: categories, identity: identity) {
          location throws(StoreError) in try file.readContent(at: location)
        }
      } catch let error as SQLiteError {
        disable(index, error)
      } catch {
        plan = nil
      }
    }
    let receipt = try file.save(categories)
    scanned = nil
    issuedFromIndex = [:]
    isRacy = false
    // Stat the new file now it is in place: the rename changed its change time.
    guard let status = file.statusOfLoadedFile() else {
      loadedIdentity = nil
      return receipt
    }
    let identity = IndexIdentity(
      storePath: realPath, status: status, generation: receipt.generation)
    loadedIdentity = identity
    if let plan, let index {
      do {
        try index.apply(
          plan, saved: categories, receipt: receipt, identity: identity
        ) { location throws(StoreError) in try file.readContent(at: location) }
      } catch let error as SQLiteError {
        disable(index, error)
      } catch {
        // The new file could not be read back: the next load rebuilds the index.
      }
    }
    return receipt
  }

  private func remapped(_ category: CategoryToSave) -> CategoryToSave {
    guard let scanned, scanned.indexLied else { return category }
    var category = category
    if category.unloadedDocuments != nil,
      let placement = scanned.placements[category.category.id]
    {
      category.unloadedDocuments?.placement = placement
    }
    category.documents = category.documents.map { document in
      var document = document
      if let location = document.contentLocation,
        let id = issuedFromIndex[location], let placed = scanned.locations[id]
      {
        document.contentLocation = placed.content
        if document.unchangedLocation != nil { document.unchangedLocation = placed.document }
      }
      return document
    }
    return category
  }

  // MARK: - The rest

  public func markDamaged() {
    file.markDamaged()
  }

  public func check() -> StoreCheckReport {
    var began = false
    let (report, graph, status) = file.checkedScan(
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
    var checked = report
    guard cacheFolder != nil, !report.wasInterrupted else { return checked }
    guard let graph, let status, report.isSound, let index = openIndex() else {
      checked.index = index == nil ? .unavailable(reason: indexWarningReason) : indexState
      return checked
    }
    let identity = IndexIdentity(storePath: realPath, status: status, generation: graph.generation)
    let disagreement = withIndex(index) { () throws(SQLiteError) -> String?? in
      try index.disagreement(with: graph, identity: identity)
    }
    switch disagreement {
    case .some(.some(.none)):
      checked.index = .trusted
    default:
      let reason: String
      if case .some(.some(.some(let found))) = disagreement {
        reason = "it disagreed with the store: \(found)"
      } else {
        reason = rebuildReason(index, identity)
      }
      let rebuilt = withIndex(index) { () throws(SQLiteError) -> Bool in
        try index.rebuild(
          from: graph, identity: identity, when: { _ in isCurrentFile(identity) }
        ) { _ in }
      }
      switch rebuilt {
      case nil: checked.index = .unavailable(reason: indexWarningReason)
      case false?: checked.index = .unavailable(reason: "the store changed while it was checked")
      case true?: checked.index = .rebuilt(reason: reason)
      }
    }
    indexState = checked.index ?? .none
    return checked
  }

  private var indexWarningReason: String {
    indexWarning.map {
      switch $0 {
      case .cacheUnavailable(_, let reason), .indexFailed(_, let reason): return reason
      }
    } ?? "it could not be opened"
  }

  // MARK: - The index file

  private func openIndex() -> StoreIndex? {
    if indexOpenAttempted { return index }
    indexOpenAttempted = true
    guard let cacheFolder else { return nil }
    if let problem = prepareCacheFolder(cacheFolder) {
      warn(.cacheUnavailable(folder: cacheFolder, reason: problem))
      indexState = .unavailable(reason: problem)
      return nil
    }
    let path = cacheFolder + "/" + IndexedStore.indexFileName(for: realPath)
    do {
      index = try StoreIndex.open(
        at: path, library: sqlite, fileSystem: fileSystem,
        busyTimeoutMilliseconds: busyTimeoutMilliseconds, now: now)
    } catch {
      warn(.cacheUnavailable(folder: cacheFolder, reason: error.message))
      indexState = .unavailable(reason: error.message)
    }
    return index
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
      try? fileSystem.close(directory)
    } catch {
      return StoreError.message(for: error.code)
    }
    return nil
  }

  /// Runs `body` on the index; on any SQLite failure the index is out of use for this store
  /// (the next load starts it again) and `nil` is returned.
  @discardableResult
  private func withIndex<Result>(
    _ index: StoreIndex, _ body: () throws(SQLiteError) -> Result
  ) -> Result? {
    do {
      return try body()
    } catch {
      disable(index, error)
      return nil
    }
  }

  private func disable(_ failed: StoreIndex, _ error: SQLiteError) {
    if error.isInterruption {
      // A rebuild stopped part way and rolled back: the index does not describe the file,
      // so it is out of use for this load; it is sound, and the next open rebuilds it.
      if index === failed { index = nil }
      indexOpenAttempted = false
      indexState = .unavailable(reason: error.message)
      return
    }
    if error.isDamage || error.isBusy {
      // Damaged or held: it is a cache; the next open starts a new one. Not while another
      // process has it open: that one would go on with files nobody else sees.
      failed.closeRemovingFilesIfUnused()
    }
    if index === failed { index = nil }
    indexOpenAttempted = false
    warn(.indexFailed(path: failed.path, reason: error.message))
    indexState = .unavailable(reason: error.message)
  }

  /// Throws ``SQLiteError/interrupted`` when the interruption asks `work` to stop.
  private func stopIfInterrupted(_ work: InterruptibleWork) throws(SQLiteError) {
    if let interruption, interruption.isRequested(during: work) { throw .interrupted }
  }

  private func warn(_ warning: IndexWarning) {
    if indexWarning == nil { indexWarning = warning }
  }

  private func reportProgress(
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
  private func resolvedRealPath() -> String {
    let target = file.targetPath
    let (folder, name) = splitPath(target)
    if let real = realPath(of: target) { return real }
    if let real = realPath(of: folder) { return (real == "/" ? "" : real) + "/" + name }
    return target
  }

  private func realPath(of path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// The index file's name for the store at `realPath`: readable, and unique by a hash.
  static func indexFileName(for realPath: String) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in realPath.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01B3
    }
    let base = splitPath(realPath).name.filter { $0.isLetter || $0.isNumber || $0 == "." }
      .prefix(40)
    let hex = String(hash, radix: 16)
    return "\(base)-\(String(repeating: "0", count: 16 - hex.count))\(hex).index"
  }

  /// CLOCK_REALTIME in nanoseconds.
  static func realtimeNanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
  }
}

/// The progress of opening a store without a trusted index, as one task on one line: reading
/// the file is the first half of the line and indexing what was read the second, or reading
/// is the whole line when there is no index to write. Both count in bytes of the file.
private struct OpeningProgress {
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

/// The loaded file read whole, with what the store looks up in it.
private struct ScannedFile {
  let graph: LoadedGraph
  /// Whether handles from the index were given out before: they are remapped through this.
  let indexLied: Bool
  let categoryOfDocument: [ObjectID: ObjectID]
  let locations: [ObjectID: (document: StoredLocation, content: StoredLocation)]
  let placements: [ObjectID: CategoryPlacement]
  private let ranges: [ObjectID: Range<Int>]

  init(graph: LoadedGraph, indexLied: Bool) {
    self.graph = graph
    self.indexLied = indexLied
    var categoryOfDocument: [ObjectID: ObjectID] = [:]
    var locations: [ObjectID: (document: StoredLocation, content: StoredLocation)] = [:]
    var ranges: [ObjectID: Range<Int>] = [:]
    var start = 0
    for (index, document) in graph.documents.enumerated() {
      categoryOfDocument[document.id] = document.categoryID
      locations[document.id] = (document.location, document.contentLocation)
      if index + 1 == graph.documents.count
        || graph.documents[index + 1].categoryID != document.categoryID
      {
        ranges[document.categoryID] = start..<(index + 1)
        start = index + 1
      }
    }
    self.categoryOfDocument = categoryOfDocument
    self.locations = locations
    self.ranges = ranges
    var placements: [ObjectID: CategoryPlacement] = [:]
    for category in graph.categories {
      if let placement = category.placement { placements[category.id] = placement }
    }
    self.placements = placements
  }

  func documents(of category: ObjectID) -> [StoredDocument] {
    ranges[category].map { Array(graph.documents[$0]) } ?? []
  }
}
