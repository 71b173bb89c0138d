// The category list, read when first needed (Core Data's faulting, one level above
// ``Context+Faulting.swift``): a store whose index describes the file opens without reading
// a single category (``CategoryDeferringStore``), and the context reads the whole list the
// first time anything reads the graph (every accessor of ``Context/graph`` does).
//
// Until then the graph is empty and nothing has changed: no change can be made without
// reading the graph. The few questions a command asks first — the category it names, that
// category's documents, the tags — are answered by the store without the list, from the
// same loaded file the list would come from; their answers are values, never kept in the
// graph. A list that cannot be read leaves the store marked damaged (never saved over) and
// the failure for ``Context/readCategoryList()`` and ``Context/checkCategoryList()`` to say.

extension Context {
  /// What the context holds of the store's category list.
  enum CategoryList {
    /// Read: the graph holds every category.
    case read
    /// Deferred by the store; `lookedUp`: the categories the store named so far, by id.
    case deferred(lookedUp: [ObjectID: StoredCategory])
    /// Reading it failed: the graph is empty and the store refuses to be saved over.
    case failed(StoreError)
  }

  /// The graph's parts, held together so that reading a deferred list sets them at once.
  struct Graph {
    var categoryRecords: [ObjectID: CategoryRecord] = [:]
    var categoryIDsByKey: [NameKey: ObjectID] = [:]
    var documentRecords: [ObjectID: DocumentRecord] = [:]
    var membersByCategory: [ObjectID: [NameKey: ObjectID]] = [:]
    var documentsByTag: [TagKey: Set<ObjectID>] = [:]
    var nextSequence = 0
    var unloadedCategories: [ObjectID: UnloadedCategory] = [:]

    /// An empty graph.
    init() {}

    /// The graph `loaded` holds, checking the invariants a store file may break.
    /// - Throws: ``StoreError/invalidStore(_:reason:)`` naming `storeName`.
    init(checking loaded: LoadedGraph, in storeName: String) throws(StoreError) {
      let index: GraphIndex
      if let prebuilt = loaded.index {
        index = prebuilt
      } else {
        index = try GraphIndex(checking: loaded, in: storeName)
      }
      categoryRecords = index.categories
      categoryIDsByKey = index.categoryIDsByKey
      documentRecords = index.documents
      for (id, record) in documentRecords {
        for tag in record.document.tags { documentsByTag[tag.key, default: []].insert(id) }
      }
      membersByCategory = index.membersByCategory
      nextSequence = index.nextSequence
      unloadedCategories.reserveCapacity(loaded.categories.count)
      for category in loaded.categories {
        if let unloaded = category.unloaded { unloadedCategories[category.id] = unloaded }
      }
    }
  }

  /// Reads the category list if the store deferred it, so that the graph holds every
  /// category; does nothing once it is read.
  /// - Throws: ``ContextError/store(_:)`` when the list could not be read (the store is then
  ///   never saved over; every later call says so again).
  public func readCategoryList() throws(ContextError) {
    readDeferredCategories()
    try checkCategoryList()
  }

  /// Says whether an earlier read of the deferred category list failed, reading nothing.
  /// - Throws: ``ContextError/store(_:)`` with that failure.
  public func checkCategoryList() throws(ContextError) {
    if case .failed(let error) = categoryList { throw .store(error) }
  }

  /// Whether the store deferred the category list and it is not read yet.
  public var isCategoryListDeferred: Bool {
    if case .deferred = categoryList { return true }
    return false
  }

  /// Reads a deferred category list into the graph; on failure, keeps it for
  /// ``checkCategoryList()`` and marks the store damaged, so that nothing saves over it.
  func readDeferredCategories() {
    guard case .deferred = categoryList else { return }
    guard let deferring = store as? any CategoryDeferringStore else {
      categoryList = .read
      return
    }
    do {
      let loaded = try deferring.deferredCategories()
      graph = try Graph(checking: loaded, in: store.displayName)
      categoryList = .read
    } catch {
      store.markDamaged()
      categoryList = .failed(error)
    }
  }

  // MARK: - Answers without the list

  /// The category spelled `name`, from the store, while the list is deferred; `nil` when the
  /// list is read or the store cannot say without it.
  func deferredCategory(spelled name: Name) -> Category? {
    guard case .deferred(var lookedUp) = categoryList,
      let deferring = store as? any CategoryDeferringStore,
      let stored = deferring.deferredCategory(spelled: name), stored.unloaded != nil
    else { return nil }
    lookedUp[stored.id] = stored
    categoryList = .deferred(lookedUp: lookedUp)
    return Category(id: stored.id, name: stored.name)
  }

  /// The category `id` the store named while the list is deferred.
  func deferredCategory(withID id: ObjectID) -> StoredCategory? {
    guard case .deferred(let lookedUp) = categoryList else { return nil }
    return lookedUp[id]
  }

  /// The documents of the category `id`, read from the store alone while the list is
  /// deferred and the store named it; `nil` otherwise. Checked as faulting them in would.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot read them or they clash,
  ///   ``ContextError/interrupted`` when the interruption stops their reading.
  func deferredDocuments(in id: ObjectID) throws(ContextError) -> [Document]? {
    guard let category = deferredCategory(withID: id), let unloaded = category.unloaded else {
      return nil
    }
    let stored: [StoredDocument]
    do {
      stored = try store.documents(of: id, unloaded)
    } catch {
      throw .store(error)
    }
    var ids = Set<ObjectID>(minimumCapacity: stored.count)
    var keys = Set<NameKey>(minimumCapacity: stored.count)
    var documents: [Document] = []
    documents.reserveCapacity(stored.count)
    for document in stored {
      try checkForInterruption(.loadingCategory)
      guard ids.insert(document.id).inserted, keys.insert(document.name.key).inserted,
        document.categoryID == id
      else {
        throw .store(
          .invalidStore(
            store.displayName, reason: "the documents of \"\(category.name.text)\" clash"))
      }
      documents.append(document.document)
    }
    return documents
  }

  /// Every tag with its count, from the store alone while the list is deferred (nothing is
  /// in memory then); `nil` otherwise.
  /// - Throws: ``ContextError/store(_:)`` when the store cannot answer.
  func deferredTags() throws(ContextError) -> [TagCount]? {
    guard case .deferred = categoryList, let deferring = store as? any CategoryDeferringStore
    else { return nil }
    do {
      return Context.counting(try deferring.deferredTaggedDocuments(), into: [:])
    } catch {
      throw .store(error)
    }
  }
}
