/// The object graph of categories and documents: the `NSManagedObjectContext` of docsh.
///
/// A context loads a graph from a ``DocumentStore``, lets you query and change it in memory
/// with validation, change tracking and grouped undo, and commits it back with ``save()``.
/// Contents stay in the store until read (faults), so listing never touches them.
///
/// A context has one owner and is not `Sendable`; give each session its own.
public final class Context {
  /// The store this context loads from and saves to; the shell reaches it only through the
  /// context.
  let store: any DocumentStore
  let clock: () -> Timestamp
  let makeID: () -> ObjectID
  /// What follows every save that wrote the store (committing it to its repository).
  let observer: (any SaveObserver)?
  /// Asked by long work (searches) whether to stop; `nil`: never stops.
  let interruption: (any Interruption)?
  /// Why the follow-up of the last save failed, when it did; the save itself stood.
  public internal(set) var saveWarning: String?

  // MARK: - The graph

  /// The graph as held; read through the accessors below, which first read a category list
  /// the store deferred (``categoryList``): while it is deferred, every part is empty.
  var graph = Graph() { didSet { changeSet = nil } }
  /// Whether the category list is read, deferred by the store, or failed to be read.
  var categoryList = CategoryList.read

  var categoryRecords: [ObjectID: CategoryRecord] {
    get {
      readDeferredCategories()
      return graph.categoryRecords
    }
    _modify {
      readDeferredCategories()
      yield &graph.categoryRecords
    }
  }
  var categoryIDsByKey: [NameKey: ObjectID] {
    get {
      readDeferredCategories()
      return graph.categoryIDsByKey
    }
    _modify {
      readDeferredCategories()
      yield &graph.categoryIDsByKey
    }
  }
  var documentRecords: [ObjectID: DocumentRecord] {
    get {
      readDeferredCategories()
      return graph.documentRecords
    }
    _modify {
      readDeferredCategories()
      yield &graph.documentRecords
    }
  }
  /// The documents of each category, by name key: both sides of the relationship are kept
  /// in sync by ``setDocument(_:to:)``, the only place that changes them.
  var membersByCategory: [ObjectID: [NameKey: ObjectID]] {
    get {
      readDeferredCategories()
      return graph.membersByCategory
    }
    _modify {
      readDeferredCategories()
      yield &graph.membersByCategory
    }
  }
  /// The inverse of the documents' tags: the loaded documents of each tag, by key. Kept in
  /// step by ``setDocument(_:to:)``; a tag no document holds has no entry (it is gone).
  var documentsByTag: [TagKey: Set<ObjectID>] {
    get {
      readDeferredCategories()
      return graph.documentsByTag
    }
    _modify {
      readDeferredCategories()
      yield &graph.documentsByTag
    }
  }
  /// Orders new objects after the ones loaded, so a save keeps the file's order.
  var nextSequence: Int {
    get {
      readDeferredCategories()
      return graph.nextSequence
    }
    _modify {
      readDeferredCategories()
      yield &graph.nextSequence
    }
  }
  /// Categories whose documents are still in the store, with the store's handle and totals.
  var unloadedCategories: [ObjectID: UnloadedCategory] {
    get {
      readDeferredCategories()
      return graph.unloadedCategories
    }
    _modify {
      readDeferredCategories()
      yield &graph.unloadedCategories
    }
  }
  /// The tokenizer of ranked search, made when first needed.
  var searchTokenizer: (any SearchTokenizing)?

  // MARK: - Change tracking and undo

  /// The state at the last save of every object touched since.
  var baseline: [ObjectID: Baseline] = [:] { didSet { changeSet = nil } }
  /// The difference between the graph and ``baseline`` once made (``trackedChanges()``);
  /// every change of either clears it.
  var changeSet: ChangeSet?
  var undoStack: [UndoGroup] = []
  var redoStack: [UndoGroup] = []
  var openGroup: UndoGroup?
  /// Conflicts found by the last merge with another session's save, not yet resolved.
  public internal(set) var conflicts: [MergeConflict] = []
  /// The generation of the store as last loaded or saved.
  public internal(set) var generation = 0
  /// Counts every change of the graph, undo and redo, and every load and save: while it
  /// stands still, what is unsaved has not changed (the recovery journal asks).
  public internal(set) var editCount = 0

  /// Opens a context on `store` and loads its graph.
  /// - Parameters:
  ///   - store: where the graph is loaded from and saved to.
  ///   - clock: the time stamped on documents as they change (injected for tests).
  ///   - makeID: makes the identity of each new object (injected for tests).
  ///   - observer: told of every save that wrote the store, its delta in hand
  ///     (``GitCommitOnSave``); `nil` for none.
  ///   - interruption: asked by long work (searches) whether to stop; `nil`: never stops.
  /// - Throws: ``StoreError`` when the store cannot be read or is not a valid store.
  public init(
    store: any DocumentStore,
    clock: @escaping () -> Timestamp = { Timestamp.now() },
    makeID: @escaping () -> ObjectID = RandomIDSource().make,
    observer: (any SaveObserver)? = nil,
    interruption: (any Interruption)? = nil
  ) throws(StoreError) {
    self.store = store
    self.interruption = interruption
    self.clock = clock
    self.makeID = makeID
    self.observer = observer
    let graph = try Context.load(store)
    do {
      try install(graph)
    } catch {
      // The file parsed but breaks a rule (duplicate ids or names): never save over it.
      store.markDamaged()
      throw error
    }
  }

  /// Loads `store`, deferring its category list when it can.
  /// - Throws: ``StoreError`` when the store cannot be read or is not a valid store.
  static func load(_ store: any DocumentStore) throws(StoreError) -> LoadedGraph {
    if let deferring = store as? any CategoryDeferringStore {
      return try deferring.loadDeferringCategories()
    }
    return try store.load()
  }

  /// Replaces the whole graph with `graph`, checking the invariants a store file may break.
  func install(_ loaded: LoadedGraph) throws(StoreError) {
    if loaded.categoriesDeferred {
      graph = Graph()
      categoryList = .deferred(lookedUp: [:])
    } else {
      graph = try Graph(checking: loaded, in: store.displayName)
      categoryList = .read
    }
    generation = loaded.generation
    baseline = [:]
    undoStack = []
    redoStack = []
    openGroup = nil
    conflicts = []
    editCount += 1
  }

  /// Discards every unsaved change and the undo history, and loads the store again, so
  /// that what another session saved shows. When the store cannot be read, nothing changes.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot be read.
  public func reload() throws(ContextError) {
    do {
      try install(Context.load(store))
    } catch {
      throw .store(error)
    }
  }

  func nextSequenceNumber() -> Int {
    defer { nextSequence += 1 }
    return nextSequence
  }
}

// MARK: - Records

/// A category as the context keeps it.
struct CategoryRecord: Hashable, Sendable {
  var category: Category
  /// The category's place in the file's order.
  var sequence: Int
}

/// A document as the context keeps it: the public value plus its content and file place.
struct DocumentRecord: Hashable, Sendable {
  var document: Document
  var content: ContentStorage
  /// Where the document object lies in the loaded file while it is unchanged.
  var location: StoredLocation?
  /// The document's place in the file's order.
  var sequence: Int
  /// How many times ``Context/touchDocument(_:)`` gave it a new date: a date changed by
  /// a touch is a change to save, one changed by a move that was moved back is not.
  var touches = 0
}

/// The state of one object: what undo restores and change tracking compares.
enum ObjectState: Hashable, Sendable {
  case category(CategoryRecord)
  case document(DocumentRecord)
}

/// What an object was at the last save.
enum Baseline: Hashable, Sendable {
  /// It did not exist.
  case absent
  /// It was a category.
  case category(CategoryRecord)
  /// It was a document.
  case document(DocumentRecord)
}
