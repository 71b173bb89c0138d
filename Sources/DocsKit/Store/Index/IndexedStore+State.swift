// What an `IndexedStore` knows of its index, as one state that only the transitions below
// change, and the answer of one question to the index.

/// The index's connection: what a load starts from.
enum IndexConnection {
  /// None is open: no cache folder, none opened yet, or the last one was let go of after
  /// it failed (the next open tries again).
  case none
  /// The index cannot be had for this run (`reason`: the cache folder or the database
  /// could not be opened); it is not tried again.
  case disabled(reason: String)
  /// Open.
  case open(StoreIndex)
}

/// Where an ``IndexedStore``'s answers about the loaded file come from.
enum IndexUse {
  /// From the file alone, or from nothing loaded: no index answers for the loaded file.
  case noIndex(IndexConnection)
  /// From the index, which answers for the loaded file as long as it records `identity`
  /// (each read checks); `isRacy`: the file changed too close to when the index recorded
  /// it, so the documents of a category are checked against the file as they are faulted.
  case trusted(StoreIndex, identity: IndexIdentity, isRacy: Bool)
  /// From the loaded file read whole; the index, when open, waits for the next load or save.
  case scanned(ScannedFile, IndexConnection)
}

/// The state of an ``IndexedStore``'s index, changed by its transitions only.
struct IndexStateMachine {
  /// Where the answers come from now.
  private(set) var use: IndexUse = .noIndex(.none)

  /// The index's connection, whatever answers.
  var connection: IndexConnection {
    switch use {
    case .noIndex(let connection), .scanned(_, let connection): return connection
    case .trusted(let index, _, _): return .open(index)
    }
  }

  /// The open index, when there is one.
  var index: StoreIndex? {
    if case .open(let index) = connection { return index }
    return nil
  }

  /// The index and the identity it answers for, while it is trusted.
  var trusted: (index: StoreIndex, identity: IndexIdentity, isRacy: Bool)? {
    if case .trusted(let index, let identity, let isRacy) = use { return (index, identity, isRacy) }
    return nil
  }

  /// The loaded file read whole, once it was.
  var scanned: ScannedFile? {
    if case .scanned(let file, _) = use { return file }
    return nil
  }

  // MARK: - Transitions

  /// A load begins: nothing answers for the file it loads yet; the connection stays.
  mutating func beginLoad() {
    use = .noIndex(connection)
  }

  /// The index was opened.
  mutating func opened(_ index: StoreIndex) {
    replaceConnection(with: .open(index))
  }

  /// The index could not be opened, for `reason`: not tried again.
  mutating func openingFailed(reason: String) {
    replaceConnection(with: .disabled(reason: reason))
  }

  /// The index `failed` is let go of: when it is the open one, none is open now, and the
  /// next open starts a new one.
  mutating func letGo(of failed: StoreIndex) {
    guard let index, index === failed else { return }
    replaceConnection(with: .none)
  }

  /// The open index answers for the loaded file of `identity`.
  mutating func trust(_ identity: IndexIdentity, isRacy: Bool) {
    guard let index else {
      assertionFailure("trusting an index that is not open")
      return
    }
    use = .trusted(index, identity: identity, isRacy: isRacy)
  }

  /// The index turned out not to answer for the loaded file.
  mutating func distrust() {
    use = .noIndex(connection)
  }

  /// The loaded file was read whole: it answers from now on.
  mutating func scan(_ file: ScannedFile) {
    use = .scanned(file, connection)
  }

  /// A save wrote the file of `identity` (`nil`: it cannot be told): the open index, brought
  /// in step with the save or not (each read checks its record), answers for it.
  mutating func saved(_ identity: IndexIdentity?) {
    if let identity, index != nil {
      trust(identity, isRacy: false)
    } else {
      use = .noIndex(connection)
    }
  }

  private mutating func replaceConnection(with connection: IndexConnection) {
    switch use {
    case .noIndex: use = .noIndex(connection)
    case .scanned(let file, _): use = .scanned(file, connection)
    case .trusted:
      // Whatever replaces a trusted index cannot answer for the file it described.
      use = .noIndex(connection)
    }
  }
}

/// What one question to the index came to: "answered", "it describes another file" and
/// "it failed" by name rather than by nesting optionals.
enum IndexAnswer<Value> {
  /// The index describes the loaded file, and this is its answer.
  case answered(Value)
  /// The index describes another file (or another state of it): the file must answer.
  case describesAnotherFile
  /// The index failed; it is out of use now (see ``IndexedStore/indexWarning``).
  case failed

  /// The answer of a read that found the index describing the file (`nil`: it did not).
  init(_ read: Value?) {
    self = read.map { .answered($0) } ?? .describesAnotherFile
  }

  /// The answer, when there is one.
  var value: Value? {
    if case .answered(let value) = self { return value }
    return nil
  }
}

/// The loaded file read whole, with what the store looks up in it.
struct ScannedFile {
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
