// Settling the conflicts a save found with what another session saved: the user's choice
// per conflicting property or document, never at the cost of an unrelated unsaved change.

/// How `save` settles the conflicts it found with another session's save.
public enum ConflictResolution: String, Sendable, CaseIterable {
  /// This session's values for the conflicting properties (`save --mine`).
  case mine
  /// The other session's values for the conflicting properties only (`save --theirs`).
  case theirs
  /// The other session's version of each conflicting document, whole (`save --theirs-whole`).
  case theirsWhole = "theirs-whole"
  /// This session's version stays, the other's comes in beside it as
  /// `NAME (conflict DATE)`, as `sync` keeps both (`save --both`).
  case both
}

/// Both versions of a document in conflict.
public struct ConflictVersions: Sendable, Equatable {
  /// `Category/Name`.
  public var path: String
  /// What contradicts what.
  public var conflict: MergeConflict.Kind
  /// The other session's content; `nil` when it deleted the document.
  public var theirs: String?
  /// This session's content; `nil` when it deleted the document.
  public var mine: String?
}

extension Context {
  /// Both versions of each document the last save found in conflict (its conflicts are kept
  /// until a save settles them).
  /// - Throws: ``ContextError`` when a content cannot be read.
  public func conflictVersions() throws(ContextError) -> [ConflictVersions] {
    var versions: [ConflictVersions] = []
    for conflict in conflicts {
      guard let id = conflict.id else { continue }
      var theirs: String?
      if case .document(let record)? = baseline[id] { theirs = try text(of: record.content) }
      let mine = try documentRecords[id].map { record throws(ContextError) in
        try text(of: record.content)
      }
      versions.append(
        ConflictVersions(path: conflict.path, conflict: conflict.kind, theirs: theirs, mine: mine))
    }
    return versions
  }

  /// Settles ``conflicts`` by `resolution`, as one undoable change; what cannot be settled
  /// that way (a name both sessions gave to different objects) stays in ``conflicts``. The
  /// other session's version of a document is what it saved: the state change tracking
  /// keeps as saved.
  /// - Throws: ``ContextError`` when a content cannot be read.
  func resolveConflicts(_ resolution: ConflictResolution) throws(ContextError) {
    guard resolution != .mine else {
      conflicts = conflicts.filter { !$0.isResolvableByKeepingMine }
      return
    }
    var left: [MergeConflict] = []
    try performChanges("save --\(resolution.rawValue)") { () throws(ContextError) in
      var settled = Set<ObjectID>()
      for conflict in conflicts {
        guard conflict.isResolvableByKeepingMine, let id = conflict.id else {
          // A category's conflict keeps this session's value, as --mine does.
          if !conflict.isResolvableByKeepingMine { left.append(conflict) }
          continue
        }
        var theirs: DocumentRecord?
        if case .document(let record)? = baseline[id] { theirs = record }
        switch resolution {
        case .mine:
          break
        case .theirsWhole:
          guard settled.insert(id).inserted else { continue }
          setDocument(id, to: theirs)
        case .theirs:
          takeTheirs(conflict.kind, of: id, from: theirs)
        case .both:
          guard settled.insert(id).inserted else { continue }
          try keepBoth(id, theirs: theirs)
        }
      }
    }
    conflicts = left
  }

  /// Takes the other session's value of the property `kind` names into document `id`.
  private func takeTheirs(_ kind: MergeConflict.Kind, of id: ObjectID, from theirs: DocumentRecord?)
  {
    guard var mine = documentRecords[id], let theirs else {
      // One side deleted it: theirs is what stands (deleted there, or kept there).
      setDocument(id, to: theirs)
      return
    }
    switch kind {
    case .bothChanged("name"):
      if membersByCategory[mine.document.categoryID]?[theirs.document.name.key] == nil {
        mine.document.name = theirs.document.name
      }
    case .bothChanged("category"):
      guard categoryRecords[theirs.document.categoryID] != nil,
        membersByCategory[theirs.document.categoryID]?[mine.document.name.key] == nil
      else { return }
      mine.document.categoryID = theirs.document.categoryID
    case .bothChanged("tags"):
      mine.document.tags = theirs.document.tags
    case .bothChanged:
      mine.content = theirs.content
      mine.document.size = theirs.document.size
    default:
      setDocument(id, to: theirs)
      return
    }
    mine.location = nil
    setDocument(id, to: mine)
  }

  /// Keeps this session's version of document `id` and puts the other session's beside it,
  /// named `NAME (conflict DATE)` after the date it saved it; a document this session
  /// deleted and the other changed stays, as the other saved it.
  private func keepBoth(_ id: ObjectID, theirs: DocumentRecord?) throws(ContextError) {
    guard let theirs else { return }  // deleted there: this session's version is all there is
    guard documentRecords[id] != nil else {
      setDocument(id, to: theirs)
      return
    }
    let categoryID =
      categoryRecords[theirs.document.categoryID] != nil
      ? theirs.document.categoryID : documentRecords[id]?.document.categoryID
    guard let categoryID else { return }
    var taken = Set((membersByCategory[categoryID] ?? [:]).keys)
    let name = StoreMerge.conflictName(
      for: theirs.document.name, date: MergeDate(theirs.document.modified), avoiding: &taken)
    let document = Document(
      id: makeID(), name: name, categoryID: categoryID, size: theirs.document.size,
      modified: theirs.document.modified, tags: theirs.document.tags)
    setDocument(
      document.id,
      to: DocumentRecord(
        document: document, content: .text(try text(of: theirs.content)), location: nil,
        sequence: nextSequenceNumber()))
  }
}
