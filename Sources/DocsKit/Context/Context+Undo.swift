/// The changes one user command made, undone and redone together.
struct UndoGroup: Sendable {
  /// One primitive change: the object's state before and after it.
  struct Change: Sendable {
    let id: ObjectID
    var before: ObjectState?
    var after: ObjectState?
  }

  /// What the user did, as `undo` reports it ("rmdir Work").
  let actionName: String
  var changes: [Change] = []
}

extension Context {
  /// Runs `body` as one undo group named `actionName`: one user command, undone as one.
  ///
  /// When `body` throws, every change it made is taken back before the error propagates,
  /// so a failing command changes nothing. Groups nest: an inner call joins the outer group,
  /// and its `actionName` is then never made (a script's every line makes one otherwise).
  /// - Throws: whatever `body` throws.
  public func performChanges<Result, Failure: Error>(
    _ actionName: @autoclosure () -> String, _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    if let outer = openGroup {
      // Joins the outer group; on failure takes back only what this body did.
      let mark = outer.changes.count
      do {
        return try body()
      } catch {
        if var group = openGroup, group.changes.count > mark {
          let made = UndoGroup(actionName: actionName(), changes: Array(group.changes[mark...]))
          group.changes.removeSubrange(mark...)
          openGroup = nil
          revert(made)
          openGroup = group
        }
        throw error
      }
    }
    openGroup = UndoGroup(actionName: actionName())
    let result: Result
    do {
      result = try body()
    } catch {
      let group = openGroup
      openGroup = nil
      if let group { revert(group) }
      throw error
    }
    if let group = openGroup, !group.changes.isEmpty {
      undoStack.append(group)
      redoStack.removeAll()
    }
    openGroup = nil
    return result
  }

  /// Whether there is a change to undo.
  public var canUndo: Bool { !undoStack.isEmpty }
  /// Whether there is an undone change to redo.
  public var canRedo: Bool { !redoStack.isEmpty }
  /// The name of the action ``undo()`` would take back.
  public var undoActionName: String? { undoStack.last?.actionName }
  /// The name of the action ``redo()`` would do again.
  public var redoActionName: String? { redoStack.last?.actionName }

  /// Takes back the last group of changes and returns its action name.
  /// - Throws: ``ContextError/nothingToUndo`` when there is none.
  @discardableResult
  public func undo() throws(ContextError) -> String {
    guard let group = undoStack.popLast() else { throw .nothingToUndo }
    revert(group)
    redoStack.append(group)
    return group.actionName
  }

  /// Does the last undone group of changes again and returns its action name.
  /// - Throws: ``ContextError/nothingToRedo`` when there is none.
  @discardableResult
  public func redo() throws(ContextError) -> String {
    guard let group = redoStack.popLast() else { throw .nothingToRedo }
    for change in group.changes {
      restore(change.id, to: change.after, kind: change.before)
    }
    undoStack.append(group)
    return group.actionName
  }

  /// Discards every change since the last save (or load), and the undo history with them.
  public func rollback() {
    for (id, saved) in baseline {
      switch saved {
      case .absent:
        if categoryRecords[id] != nil { setCategory(id, to: nil) }
        if documentRecords[id] != nil { setDocument(id, to: nil) }
      case .category(let record):
        setCategory(id, to: record)
      case .document(let record):
        setDocument(id, to: record)
      }
    }
    baseline = [:]
    undoStack.removeAll()
    redoStack.removeAll()
  }

  private func revert(_ group: UndoGroup) {
    for change in group.changes.reversed() {
      restore(change.id, to: change.before, kind: change.after)
    }
  }
}
