// Seeing what other sessions saved: a session with nothing unsaved shows the store as last
// saved by anyone; one with unsaved changes is told how far the store moved on.

/// What ``Context/catchUpWithStore()`` found and did.
public enum StoreCatchUp: Equatable, Sendable {
  /// Nobody else saved since this session loaded or last saved.
  case current
  /// Another session saved and this one had nothing unsaved: it now shows the store as
  /// saved; `droppedUndo` when it had an undo history, which described the old view.
  case refreshed(droppedUndo: Bool)
  /// Another session saved while this one has unsaved changes: `save` merges them.
  /// `saves` is how many saves came in, `nil` when the file was written whole.
  case behind(saves: Int?)
}

extension Context {
  /// What other sessions did to the store since this context loaded or last saved it:
  /// two `stat`s when nothing, and the frames of their records otherwise.
  public var storeMovement: StoreMovement { store.movementSinceLoad() }

  /// Brings a context with nothing unsaved up to date with what other sessions saved, and
  /// says what it found: the store as loaded, brought up to date, or moved on under unsaved
  /// changes (which stay as they are until `save` merges).
  /// - Throws: ``ContextError/store(_:)`` when the store cannot be read again; the context
  ///   is then as it was.
  public func catchUpWithStore() throws(ContextError) -> StoreCatchUp {
    let movement = store.movementSinceLoad()
    switch movement {
    case .none:
      return .current
    case .saves, .replaced:
      guard try !hasChanges else {
        if case .saves(let count) = movement { return .behind(saves: count) }
        return .behind(saves: nil)
      }
      let hadUndo = !undoStack.isEmpty || !redoStack.isEmpty
      try reload()
      return .refreshed(droppedUndo: hadUndo)
    }
  }
}
