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
    for (id, saved) in baseline {
      if !includingUnchanged && isUnchanged(id, since: saved) { continue }
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
  /// values and are recorded in ``conflicts``.
  func replay(_ pending: PendingChanges) throws(ContextError) {
    let changes = pending.changes
    let myCategories = pending.categories
    // Every category the replay touches must be in the graph: those named by the changes,
    // and those that hold the changed documents in what the other session saved.
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

    var found: [MergeConflict] = []
    var sameNamedCategory: [ObjectID: ObjectID] = [:]
    func categoryID(_ id: ObjectID) -> ObjectID { sameNamedCategory[id] ?? id }
    func categoryName(_ id: ObjectID) -> String {
      (categoryRecords[categoryID(id)] ?? myCategories[id])?.category.name.text ?? "?"
    }
    func path(_ document: Document) -> String {
      "\(categoryName(document.categoryID))/\(document.name)"
    }
    /// Puts back a category of this session that the other one deleted.
    func ensureCategory(_ id: ObjectID, for document: Document) {
      guard categoryRecords[categoryID(id)] == nil, var record = myCategories[id] else { return }
      found.append(
        MergeConflict(path: record.category.name.text + "/", kind: .changedHereDeletedThere))
      record.sequence = nextSequenceNumber()
      if categoryIDsByKey[record.category.name.key] == nil { setCategory(id, to: record) }
    }

    // Categories created or renamed.
    for change in changes {
      switch (change.base, change.mine) {
      case (nil, .category(var mine)?):
        if let existing = categoryIDsByKey[mine.category.name.key] {
          sameNamedCategory[change.id] = existing  // both created it: one category
        } else {
          mine.sequence = nextSequenceNumber()
          setCategory(change.id, to: mine)
        }
      case (.category(let base)?, .category(let mine)?):
        guard var theirs = categoryRecords[change.id] else {
          found.append(
            MergeConflict(path: mine.category.name.text + "/", kind: .changedHereDeletedThere))
          if categoryIDsByKey[mine.category.name.key] == nil {
            setCategory(change.id, to: mine)
          }
          continue
        }
        let theirName = theirs.category.name.text
        guard mine.category.name.text != base.category.name.text,
          theirName != mine.category.name.text
        else { continue }
        if theirName != base.category.name.text {
          found.append(
            MergeConflict(path: mine.category.name.text + "/", kind: .bothChanged("name")))
        }
        if let other = categoryIDsByKey[mine.category.name.key], other != change.id {
          found.append(MergeConflict(path: mine.category.name.text + "/", kind: .nameTaken))
          continue
        }
        theirs.category.name = mine.category.name
        setCategory(change.id, to: theirs)
      default:
        break
      }
    }

    // Documents created, changed or deleted.
    for change in changes {
      switch (change.base, change.mine) {
      case (nil, .document(var mine)?):
        ensureCategory(mine.document.categoryID, for: mine.document)
        mine.document.categoryID = categoryID(mine.document.categoryID)
        if let clashID = membersByCategory[mine.document.categoryID]?[mine.document.name.key],
          var theirs = documentRecords[clashID]
        {
          let theirText = try text(of: theirs.content)
          let myText = try text(of: mine.content)
          guard theirText != myText else { continue }
          found.append(MergeConflict(path: path(mine.document), kind: .bothChanged("content")))
          theirs.content = mine.content
          theirs.document.size = mine.document.size
          theirs.document.modified = mine.document.modified
          theirs.location = nil
          setDocument(clashID, to: theirs)
          continue
        }
        mine.location = nil
        mine.sequence = nextSequenceNumber()
        setDocument(change.id, to: mine)
      case (.document(let base)?, .document(var mine)?):
        mine.document.categoryID = categoryID(mine.document.categoryID)
        guard var merged = documentRecords[change.id] else {
          found.append(MergeConflict(path: path(mine.document), kind: .changedHereDeletedThere))
          ensureCategory(mine.document.categoryID, for: mine.document)
          if membersByCategory[mine.document.categoryID]?[mine.document.name.key] != nil {
            found.append(MergeConflict(path: path(mine.document), kind: .nameTaken))
            continue
          }
          mine.location = nil
          setDocument(change.id, to: mine)
          continue
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
            found.append(MergeConflict(path: path(mine.document), kind: .bothChanged(property)))
          }
          merged[keyPath: keyPath] = mine[keyPath: keyPath]
          changed = true
        }
        take("name", \.document.name)
        take("category", \.document.categoryID)
        let baseText = try text(of: base.content)
        let myText = try text(of: mine.content)
        if myText != baseText {
          let theirText = try text(of: theirs.content)
          if theirText != myText {
            if theirText != baseText {
              found.append(MergeConflict(path: path(mine.document), kind: .bothChanged("content")))
            }
            merged.content = .text(myText)
            merged.document.size = mine.document.size
            changed = true
          }
        }
        // A touch here moves the date on, when it is later than theirs; counted as a touch
        // of the merged record too, so that the save that follows keeps it.
        if !changed, mine.touches != base.touches,
          mine.document.modified > theirs.document.modified
        {
          merged.touches += 1
          changed = true
        }
        guard changed else { continue }
        ensureCategory(merged.document.categoryID, for: merged.document)
        if let other = membersByCategory[merged.document.categoryID]?[merged.document.name.key],
          other != change.id
        {
          found.append(MergeConflict(path: path(merged.document), kind: .nameTaken))
          continue
        }
        merged.document.modified = max(mine.document.modified, theirs.document.modified)
        merged.location = nil
        setDocument(change.id, to: merged)
      case (.document(let base)?, nil):
        guard let theirs = documentRecords[change.id] else { continue }
        let sameText = try text(of: theirs.content) == text(of: base.content)
        let unchangedThere =
          theirs.document.name.text == base.document.name.text
          && theirs.document.categoryID == base.document.categoryID && sameText
        if !unchangedThere {
          found.append(MergeConflict(path: path(theirs.document), kind: .deletedHereChangedThere))
        }
        setDocument(change.id, to: nil)
      default:
        break
      }
    }

    // Categories deleted, after their documents: what is left in one the other session added.
    for change in changes {
      guard case (.category(let base)?, nil) = (change.base, change.mine),
        let theirs = categoryRecords[change.id]
      else { continue }
      let left = membersByCategory[change.id].map { Array($0.values) } ?? []
      if theirs.category.name.text != base.category.name.text || !left.isEmpty {
        found.append(
          MergeConflict(path: theirs.category.name.text + "/", kind: .deletedHereChangedThere))
      }
      for documentID in left { setDocument(documentID, to: nil) }
      setCategory(change.id, to: nil)
    }
    conflicts = found
  }

  /// The state with its content in memory, for a graph about to be replaced.
  private func resolved(_ state: ObjectState?) throws(ContextError) -> ObjectState? {
    guard case .document(var record) = state, case .fault = record.content else { return state }
    record.content = .text(try text(of: record.content))
    return .document(record)
  }
}
