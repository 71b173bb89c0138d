// Replacing the whole store under a context: what a machine's first sync writes from a
// commit, a category at a time, through the store's writer role (``StoreReplacement``);
// the graph is loaded again once the new file stands, as after a restored store.
extension Context {
  /// Begins replacing the whole store file (``StoreWriting/beginReplacement()``). The
  /// context's changes must be saved: the graph is loaded anew when the replacement is
  /// finished (``finishReplacement(_:)``).
  /// - Throws: ``ContextError/store(_:)`` when it cannot begin (another session saved since
  ///   this context loaded, the store is locked or damaged).
  func beginReplacement() throws(ContextError) -> StoreReplacement {
    do {
      return try store.beginReplacement()
    } catch {
      throw .store(error)
    }
  }

  /// Commits `replacement` and loads the graph of the new file.
  /// - Returns: the generation of the new file.
  /// - Throws: ``ContextError/store(_:)`` when the new file cannot be put in place (the
  ///   store is then as it was) or loaded.
  func finishReplacement(_ replacement: StoreReplacement) throws(ContextError) -> Int {
    let generation: Int
    do {
      generation = try replacement.commit()
    } catch {
      throw .store(error)
    }
    try reload()
    return generation
  }
}
