/// A store that can open without reading its category list, and answer the few questions a
/// command asks before the list is read: the one category it names, the tagged documents.
///
/// What it answers is the loaded file's, as the whole list read at the open would have
/// been: never a later save's. A context with nothing read yet (no change, no document in
/// memory) asks it; anything more reads the whole list (``deferredCategories()``) first.
protocol CategoryDeferringStore: DocumentStore {
  /// Loads the store as ``DocumentStore/load()`` does, except that a store able to answer
  /// for the file without its categories hands over none (``LoadedGraph/categoriesDeferred``).
  /// - Throws: as ``DocumentStore/load()``.
  func loadDeferringCategories() throws(StoreError) -> LoadedGraph

  /// The graph the deferred load stood for: its categories (unloaded, with their totals),
  /// or the whole graph read from the file when its index cannot answer for it.
  /// - Throws: ``StoreError`` when the file must be read and cannot be.
  func deferredCategories() throws(StoreError) -> LoadedGraph

  /// The category spelled `name` byte for byte, unloaded, when the store can say so without
  /// reading its whole list; `nil` when it cannot (no such spelling, or no index to ask).
  func deferredCategory(spelled name: Name) -> StoredCategory?

  /// The saved documents of every category that hold a tag.
  /// - Throws: ``StoreError`` when the file must be read and cannot be.
  func deferredTaggedDocuments() throws(StoreError) -> [StoredDocument]
}
