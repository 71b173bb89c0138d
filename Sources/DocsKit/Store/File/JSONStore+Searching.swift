// The store file alone keeps no index: it hands every category over loaded, and leaves
// finding names, tags, links and words to the context, which looks through its graph.
// Stated here, each answer where a reader of `JSONStore` finds it, rather than as defaults
// of the role.

extension JSONStore: StoreSearching {
  /// Never called: every category is handed over loaded.
  public func documents(of category: ObjectID, _ unloaded: UnloadedCategory) throws(StoreError)
    -> [StoredDocument]
  { [] }

  /// No category is handed over unloaded.
  public func unloadedCategory(holding id: ObjectID) -> ObjectID? { nil }

  /// No category is handed over unloaded: no document to find there.
  public func documents(
    nameContaining needle: String, in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument] { [] }

  /// No category is handed over unloaded: no document to find there.
  public func documents(
    _ lookup: DocumentLookup, in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument] { [] }

  /// No category is handed over unloaded: no document to count there.
  public func documentCount(
    named key: NameKey, in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> Int { 0 }

  /// No category is handed over unloaded: no document to find there.
  public func documents(
    taggedWith keys: [TagKey], in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument] { [] }

  /// No index of links: the context finds them.
  public func links(to target: LinkedDocument) throws(WorkInterrupted) -> [IndexedLink]? {
    nil
  }

  /// No index of links: the context finds them.
  public func documents(linkingInto category: Name) throws(WorkInterrupted) -> [StoredDocument]? {
    nil
  }

  /// No full-text index: the context searches itself.
  public func search(_ request: IndexSearchRequest) throws(WorkInterrupted)
    -> IndexSearchResult?
  { nil }

  /// The tokenizer the index would use, so that a search finds the same documents with an
  /// index or without one.
  public func makeSearchTokenizer() throws(SearchUnavailable) -> IndexTokenizer {
    try IndexTokenizer(library: SystemSQLite())
  }

  /// Never works without an index it does not have.
  public var indexWarning: IndexWarning? { nil }
}
