// Opening without the category list: an index that describes the loaded file answers for
// it with no category read, and each later question is asked under the same proof (the
// index's record is the loaded file's identity) or answered by the loaded file itself.

extension IndexedStore: CategoryDeferringStore {
  func loadDeferringCategories() throws(StoreError) -> LoadedGraph {
    try load(deferringCategories: true)
  }

  func deferredCategories() throws(StoreError) -> LoadedGraph {
    if let scanned = state.scanned { return scanned.graph }
    if let (index, identity, isRacy) = state.trusted {
      let answer = ask(index) { () throws(SQLiteError) in
        try index.reading(identity) { _ throws(SQLiteError) in try index.categories() }
      }
      if case .answered(let categories) = answer {
        switch categoriesOnlyGraph(fromIndexed: categories, isRacy: isRacy, identity: identity) {
        case .success(let graph):
          return graph
        case .failure(let contradiction):
          indexState = .rebuilt(reason: contradiction.reason)
          return try scanLoadedFile(rebuildingIndex: true).graph
        }
      }
    }
    return try scanLoadedFile().graph
  }

  func deferredCategory(spelled name: Name) -> StoredCategory? {
    guard let (index, identity, isRacy) = state.trusted else { return nil }
    let answer = ask(index) { () throws(SQLiteError) -> IndexedCategory?? in
      try index.reading(identity) { _ throws(SQLiteError) in
        try index.category(spelled: name.text)
      }
    }
    guard case .answered(let found?) = answer,
      case .success(let graph) = categoriesOnlyGraph(
        fromIndexed: [found], isRacy: isRacy, identity: identity),
      let category = graph.categories.first, category.name.text == name.text
    else { return nil }
    return category
  }

  func deferredTaggedDocuments() throws(StoreError) -> [StoredDocument] {
    try documents(taggedWith: []) { _ in true }
  }
}
