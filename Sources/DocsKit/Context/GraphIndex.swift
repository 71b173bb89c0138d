/// The indexes of a loaded graph — records by id, names by key, the members of each
/// category — built in one pass that checks the rules a store file may break.
struct GraphIndex {
  var categories: [ObjectID: CategoryRecord] = [:]
  var categoryIDsByKey: [NameKey: ObjectID] = [:]
  var documents: [ObjectID: DocumentRecord] = [:]
  var membersByCategory: [ObjectID: [NameKey: ObjectID]] = [:]
  /// One more than the last sequence number given.
  var nextSequence = 0

  /// Indexes `graph`, calling `report` with every broken rule (duplicate ids, duplicate
  /// names); the offending object is left out. Stops early when `report` returns `false`.
  init(_ graph: LoadedGraph, report: (String) -> Bool) {
    categories.reserveCapacity(graph.categories.count)
    // Sized once, like the others: growing them a category at a time cost about 3 K
    // instructions a category of a store's list.
    categoryIDsByKey.reserveCapacity(graph.categories.count)
    membersByCategory.reserveCapacity(graph.categories.count)
    documents.reserveCapacity(graph.documents.count)
    for stored in graph.categories {
      let key = stored.name.key
      if let other = categoryIDsByKey[key], let existing = categories[other] {
        guard
          report("two categories are named \"\(existing.category.name)\" and \"\(stored.name)\"")
        else { return }
        continue
      }
      guard categories[stored.id] == nil else {
        guard report("the id \(stored.id) is used twice") else { return }
        continue
      }
      categories[stored.id] = CategoryRecord(
        category: Category(id: stored.id, name: stored.name),
        sequence: nextSequence)
      categoryIDsByKey[key] = stored.id
      membersByCategory[stored.id] = [:]
      nextSequence += 1
    }
    // Documents come grouped by category: fill one category's name index at a time rather
    // than looking the category up for every document.
    var currentCategory: ObjectID?
    var members: [NameKey: ObjectID] = [:]
    func flushMembers() {
      if let currentCategory { membersByCategory[currentCategory] = members }
    }
    for stored in graph.documents {
      guard let category = categories[stored.categoryID] else { continue }
      if stored.categoryID != currentCategory {
        flushMembers()
        currentCategory = stored.categoryID
        members = membersByCategory[stored.categoryID] ?? [:]
      }
      guard categories[stored.id] == nil else {
        guard report("the id \(stored.id) is used twice") else { return }
        continue
      }
      let key = stored.name.key
      if let other = members[key], let existing = documents[other] {
        guard
          report(
            "two documents of \"\(category.category.name)\" are named \"\(existing.document.name)\" and \"\(stored.name)\""
          )
        else { return }
        continue
      }
      let record = DocumentRecord(
        document: stored.document,
        content: .fault(stored.contentLocation), location: stored.location, sequence: nextSequence)
      if let first = documents.updateValue(record, forKey: stored.id) {
        documents[stored.id] = first  // keep the first of the two
        guard report("the id \(stored.id) is used twice") else { return }
        continue
      }
      members[key] = stored.id
      nextSequence += 1
    }
    flushMembers()
  }

  /// Indexes `graph`, refusing it at the first broken rule.
  /// - Throws: ``StoreError/invalidStore(_:reason:)`` naming `storeName`.
  init(checking graph: LoadedGraph, in storeName: String) throws(StoreError) {
    var problem: String?
    self.init(graph) { found in
      problem = found
      return false
    }
    if let problem { throw .invalidStore(storeName, reason: problem) }
  }
}
