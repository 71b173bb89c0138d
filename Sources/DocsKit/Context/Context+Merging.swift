/// A change of this session that another session's save contradicts.
public struct MergeConflict: Hashable, Sendable, CustomStringConvertible {
  /// What contradicts what.
  public enum Kind: Hashable, Sendable {
    /// Both sessions changed this property of the object.
    case bothChanged(String)
    /// This session changed the object; the other one deleted it.
    case changedHereDeletedThere
    /// This session deleted the object; the other one changed it.
    case deletedHereChangedThere
    /// This session's name for the object is taken by another object of the other session.
    case nameTaken
  }

  /// The object: `Category/` or `Category/Document`.
  public var path: String
  /// What contradicts what.
  public var kind: Kind
  /// The document in conflict (`nil` for a category): what `save --theirs` and
  /// `save --both` act on.
  public var id: ObjectID?

  /// A conflict over the object at `path`; `id` names the document.
  init(path: String, kind: Kind, id: ObjectID? = nil) {
    self.path = path
    self.kind = kind
    self.id = id
  }

  /// Two conflicts are one when they name the same object and contradiction, as the user
  /// reads them; the id only tells a resolution which document to act on.
  public static func == (lhs: MergeConflict, rhs: MergeConflict) -> Bool {
    lhs.path == rhs.path && lhs.kind == rhs.kind
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(path)
    hasher.combine(kind)
  }

  /// Whether keeping this session's values settles it (a taken name does not).
  public var isResolvableByKeepingMine: Bool { kind != .nameTaken }

  public var description: String {
    switch kind {
    case .bothChanged(let property):
      return "\(path): \(property) changed here and in the other session"
    case .changedHereDeletedThere: return "\(path): changed here, deleted by the other session"
    case .deletedHereChangedThere: return "\(path): deleted here, changed by the other session"
    case .nameTaken: return "\(path): the other session gave this name to something else"
    }
  }
}

// Three-way merge with what another session saved: replay this session's changes, object by
// object and property by property, onto the store as it is now, with the state this session
// loaded as the common ancestor.
extension Context {
  /// Loads what the other session saved and replays this session's changes onto it,
  /// keeping this session's values where they conflict and recording the conflicts in
  /// ``conflicts``. The undo history is cleared: it describes a graph that is gone.
  func rebaseOntoSavedStore() throws(ContextError) {
    let pending = try pendingChanges(includingUnchanged: true)
    try reload()
    try replay(pending)
  }

  /// This session's changes as values, contents in memory: every object touched since the
  /// last save (`includingUnchanged`: also those changed back), and the categories they name.
  func pendingChanges(includingUnchanged: Bool) throws(ContextError) -> PendingChanges {
    var changes: [PendingChanges.Change] = []
    var categories: [ObjectID: CategoryRecord] = [:]
    let tracked = includingUnchanged ? nil : try trackedChanges()
    for (id, saved) in baseline {
      if let tracked, tracked.objects[id]?.isChanged != true { continue }
      let base: ObjectState?
      switch saved {
      case .absent: base = nil
      case .category(let record): base = .category(record)
      case .document(let record): base = .document(record)
      }
      let change = PendingChanges.Change(
        id: id, base: try resolved(base), mine: try resolved(state(of: id)))
      for state in [change.base, change.mine] {
        switch state {
        case .category(let record)?: categories[record.category.id] = record
        case .document(let record)?:
          if let category = categoryRecords[record.document.categoryID] {
            categories[category.category.id] = category
          }
        case nil: break
        }
      }
      changes.append(change)
    }
    // A category's current record wins over one a change remembers from before.
    for id in Array(categories.keys) {
      if let current = categoryRecords[id] { categories[id] = current }
    }
    changes.sort { $0.id < $1.id }
    return PendingChanges(generation: generation, changes: changes, categories: categories)
  }

  /// Replays `pending` onto the graph as loaded now, object by object and property by
  /// property, with each change's `base` as the common ancestor; conflicts keep `pending`'s
  /// values and are recorded in ``conflicts``. A content both sessions changed merges by
  /// lines (``LineMerge``): only overlapping edits conflict.
  func replay(_ pending: PendingChanges) throws(ContextError) {
    try loadCategoriesTouched(by: pending.changes)
    var replay = Replay(myCategories: pending.categories)
    for change in pending.changes { replayCategoryCreationOrRename(change, &replay) }
    for change in pending.changes {
      switch (change.base, change.mine) {
      case (nil, .document(let mine)?):
        try replayDocumentCreation(change.id, mine, &replay)
      case (.document(let base)?, .document(let mine)?):
        try replayDocumentEdit(change.id, base: base, mine: mine, &replay)
      case (.document(let base)?, nil):
        try replayDocumentDeletion(change.id, base: base, &replay)
      default:
        break
      }
    }
    // Categories deleted, after their documents: what is left in one the other session added.
    for change in pending.changes { replayCategoryDeletion(change, &replay) }
    conflicts = replay.found
  }

  /// Loads every category the replay touches: those named by the changes, and those that
  /// hold the changed documents in what the other session saved.
  private func loadCategoriesTouched(by changes: [PendingChanges.Change]) throws(ContextError) {
    var touched = Set<ObjectID>()
    for change in changes {
      for state in [change.base, change.mine] {
        switch state {
        case .category(let record)?: touched.insert(record.category.id)
        case .document(let record)?: touched.insert(record.document.categoryID)
        case nil: break
        }
      }
      if !unloadedCategories.isEmpty, let holder = store.unloadedCategory(holding: change.id) {
        touched.insert(holder)
      }
    }
    for id in touched { try loadDocuments(of: id) }
  }

  // MARK: - Categories

  /// Replays a category created or renamed here.
  private func replayCategoryCreationOrRename(
    _ change: PendingChanges.Change, _ replay: inout Replay
  ) {
    switch (change.base, change.mine) {
    case (nil, .category(var mine)?):
      if let existing = categoryIDsByKey[mine.category.name.key] {
        replay.sameNamedCategory[change.id] = existing  // both created it: one category
      } else {
        mine.sequence = nextSequenceNumber()
        setCategory(change.id, to: mine)
      }
    case (.category(let base)?, .category(let mine)?):
      let path = mine.category.name.text + "/"
      guard var theirs = categoryRecords[change.id] else {
        replay.found.append(MergeConflict(path: path, kind: .changedHereDeletedThere))
        if categoryIDsByKey[mine.category.name.key] == nil { setCategory(change.id, to: mine) }
        return
      }
      let theirName = theirs.category.name.text
      guard mine.category.name.text != base.category.name.text,
        theirName != mine.category.name.text
      else { return }
      if theirName != base.category.name.text {
        replay.found.append(MergeConflict(path: path, kind: .bothChanged("name")))
      }
      if let other = categoryIDsByKey[mine.category.name.key], other != change.id {
        replay.found.append(MergeConflict(path: path, kind: .nameTaken))
        return
      }
      theirs.category.name = mine.category.name
      setCategory(change.id, to: theirs)
    default:
      break
    }
  }

  /// Replays a category deleted here; one the other session renamed or added documents to
  /// is a conflict, and goes all the same.
  private func replayCategoryDeletion(_ change: PendingChanges.Change, _ replay: inout Replay) {
    guard case (.category(let base)?, nil) = (change.base, change.mine),
      let theirs = categoryRecords[change.id]
    else { return }
    let left = membersByCategory[change.id].map { Array($0.values) } ?? []
    if theirs.category.name.text != base.category.name.text || !left.isEmpty {
      replay.found.append(
        MergeConflict(path: theirs.category.name.text + "/", kind: .deletedHereChangedThere))
    }
    for documentID in left { setDocument(documentID, to: nil) }
    setCategory(change.id, to: nil)
  }

  /// Puts back a category of this session that the other one deleted.
  private func restoreCategory(_ id: ObjectID, _ replay: inout Replay) {
    guard categoryRecords[replay.categoryID(id)] == nil, var record = replay.myCategories[id]
    else { return }
    replay.found.append(
      MergeConflict(path: record.category.name.text + "/", kind: .changedHereDeletedThere))
    record.sequence = nextSequenceNumber()
    if categoryIDsByKey[record.category.name.key] == nil { setCategory(id, to: record) }
  }

  /// `Category/Name` of `document`, its category as merged.
  private func path(_ document: Document, _ replay: Replay) -> String {
    let id = document.categoryID
    let category = categoryRecords[replay.categoryID(id)] ?? replay.myCategories[id]
    return "\(category?.category.name.text ?? "?")/\(document.name)"
  }

  // MARK: - Documents

  /// Replays a document created here; one of the same name created there with other text
  /// is a conflict that keeps this session's text.
  private func replayDocumentCreation(
    _ id: ObjectID, _ mine: DocumentRecord, _ replay: inout Replay
  ) throws(ContextError) {
    var mine = mine
    restoreCategory(mine.document.categoryID, &replay)
    mine.document.categoryID = replay.categoryID(mine.document.categoryID)
    if let clashID = membersByCategory[mine.document.categoryID]?[mine.document.name.key],
      var theirs = documentRecords[clashID]
    {
      guard try text(of: theirs.content) != text(of: mine.content) else { return }
      replay.found.append(
        MergeConflict(
          path: path(mine.document, replay), kind: .bothChanged("content"), id: clashID))
      theirs.content = mine.content
      theirs.document.size = mine.document.size
      theirs.document.modified = mine.document.modified
      theirs.location = nil
      setDocument(clashID, to: theirs)
      return
    }
    mine.location = nil
    mine.sequence = nextSequenceNumber()
    setDocument(id, to: mine)
  }

  /// Replays a document changed here onto the other session's version: property by
  /// property, the content by lines.
  private func replayDocumentEdit(
    _ id: ObjectID, base: DocumentRecord, mine: DocumentRecord, _ replay: inout Replay
  ) throws(ContextError) {
    var mine = mine
    mine.document.categoryID = replay.categoryID(mine.document.categoryID)
    guard var merged = documentRecords[id] else {
      replay.found.append(
        MergeConflict(
          path: path(mine.document, replay), kind: .changedHereDeletedThere, id: mine.document.id))
      restoreCategory(mine.document.categoryID, &replay)
      if membersByCategory[mine.document.categoryID]?[mine.document.name.key] != nil {
        replay.found.append(MergeConflict(path: path(mine.document, replay), kind: .nameTaken))
        return
      }
      mine.location = nil
      setDocument(id, to: mine)
      return
    }
    let theirs = merged
    var changed = false
    func take<Value: Equatable>(
      _ property: String, _ keyPath: WritableKeyPath<DocumentRecord, Value>
    ) {
      guard mine[keyPath: keyPath] != base[keyPath: keyPath],
        theirs[keyPath: keyPath] != mine[keyPath: keyPath]
      else { return }
      if theirs[keyPath: keyPath] != base[keyPath: keyPath] {
        replay.found.append(
          MergeConflict(
            path: path(mine.document, replay), kind: .bothChanged(property), id: mine.document.id))
      }
      merged[keyPath: keyPath] = mine[keyPath: keyPath]
      changed = true
    }
    take("name", \.document.name)
    take("category", \.document.categoryID)
    // Tags merge element by element: both sessions' additions stay, either's removal holds.
    let tags = Tag.merged(
      base: base.document.tags, current: mine.document.tags, other: theirs.document.tags)
    if tags.map(\.text) != theirs.document.tags.map(\.text) {
      merged.document.tags = tags
      changed = true
    }
    if try replayContent(base: base, mine: mine, into: &merged, &replay) { changed = true }
    // A touch here moves the date on, when it is later than theirs; counted as a touch
    // of the merged record too, so that the save that follows keeps it.
    if !changed, mine.touches != base.touches,
      mine.document.modified > theirs.document.modified
    {
      merged.touches += 1
      changed = true
    }
    guard changed else { return }
    restoreCategory(merged.document.categoryID, &replay)
    if let other = membersByCategory[merged.document.categoryID]?[merged.document.name.key],
      other != id
    {
      replay.found.append(MergeConflict(path: path(merged.document, replay), kind: .nameTaken))
      return
    }
    merged.document.modified = max(mine.document.modified, theirs.document.modified)
    merged.location = nil
    setDocument(id, to: merged)
  }

  /// Takes this session's content change into `merged`, the other session's record: as it
  /// is when only this session changed it, merged by lines when both did; overlapping edits
  /// are a conflict that keeps this session's text. Whether `merged` changed.
  private func replayContent(
    base: DocumentRecord, mine: DocumentRecord, into merged: inout DocumentRecord,
    _ replay: inout Replay
  ) throws(ContextError) -> Bool {
    let baseText = try text(of: base.content)
    let myText = try text(of: mine.content)
    guard myText != baseText else { return false }
    let theirText = try text(of: merged.content)
    guard theirText != myText else { return false }
    var result = myText
    if theirText != baseText {
      switch LineMerge.merge(base: baseText, mine: myText, theirs: theirText) {
      case .merged(let text):
        result = text
      case .conflict:
        replay.found.append(
          MergeConflict(
            path: path(mine.document, replay), kind: .bothChanged("content"),
            id: mine.document.id))
      }
    }
    guard result != theirText else { return false }
    merged.content = .text(result)
    merged.document.size = result.utf8.count
    return true
  }

  /// Replays a document deleted here; one the other session changed is a conflict, and
  /// goes all the same.
  private func replayDocumentDeletion(
    _ id: ObjectID, base: DocumentRecord, _ replay: inout Replay
  ) throws(ContextError) {
    guard let theirs = documentRecords[id] else { return }
    let sameText = try text(of: theirs.content) == text(of: base.content)
    let unchangedThere =
      theirs.document.name.text == base.document.name.text
      && theirs.document.categoryID == base.document.categoryID && sameText
    if !unchangedThere {
      replay.found.append(
        MergeConflict(
          path: path(theirs.document, replay), kind: .deletedHereChangedThere,
          id: theirs.document.id))
    }
    setDocument(id, to: nil)
  }

  /// The state with its content in memory, for a graph about to be replaced.
  private func resolved(_ state: ObjectState?) throws(ContextError) -> ObjectState? {
    guard case .document(var record) = state, case .fault = record.content else { return state }
    record.content = .text(try text(of: record.content))
    return .document(record)
  }
}

/// What a replay carries from phase to phase.
private struct Replay {
  /// The categories this session's changes name, as this session had them.
  let myCategories: [ObjectID: CategoryRecord]
  /// Categories created here that the other session created too, by one name: its id.
  var sameNamedCategory: [ObjectID: ObjectID] = [:]
  /// The conflicts found so far.
  var found: [MergeConflict] = []

  /// The category `id` stands for in the merged graph.
  func categoryID(_ id: ObjectID) -> ObjectID { sameNamedCategory[id] ?? id }
}
