// Change tracking: the difference between the graph and its baseline (the state each object
// touched since the last save had at that save), made once per change of the graph and kept
// until the graph or the baseline changes again. `hasChanges`, `changes()`, a rebase and the
// save's delta all read this one difference (GRDB compares against a saved reference copy in
// `databaseChanges(from:)`; here the comparison is made once, not once per question).

/// How one object touched since the last save differs from its saved state.
struct ObjectDifference: Sendable {
  /// What it was at the last save.
  let saved: Baseline
  /// What it is now; `nil` when it is gone.
  let now: ObjectState?
  /// Whether it differs from its saved state: created, deleted, a category renamed, or a
  /// property of a document changed (``properties``).
  let isChanged: Bool
  /// The properties of a document that changed; empty for any other difference.
  let properties: Set<DocumentProperty>
  /// Whether a document's modification date moved on: one changed and changed back is no
  /// change by itself, but a save that writes anyway writes that date, as the context shows it.
  let isRedated: Bool
}

/// The difference between the graph and its baseline: every object touched since the last
/// save that differs from its saved state or was given a new date.
struct ChangeSet: Sendable {
  /// The objects that differ or were redated, by id.
  var objects: [ObjectID: ObjectDifference] = [:]
  /// How many of them differ from their saved state.
  var changedCount = 0

  /// Whether anything differs from its saved state.
  var hasChanges: Bool { changedCount > 0 }
}

extension Context {
  /// The difference between the graph and its baseline, made at the first question after a
  /// change of either and kept until the next.
  /// - Throws: ``ContextError/store(_:)`` when the saved content of a document whose text
  ///   may be the same again cannot be read to compare it.
  func trackedChanges() throws(ContextError) -> ChangeSet {
    if let changeSet { return changeSet }
    var made = ChangeSet()
    for (id, saved) in baseline {
      let difference = try difference(of: id, since: saved)
      if difference.isChanged { made.changedCount += 1 }
      if difference.isChanged || difference.isRedated { made.objects[id] = difference }
    }
    changeSet = made
    return made
  }

  /// How the object `id` differs from `saved`, its state at the last save.
  private func difference(
    of id: ObjectID, since saved: Baseline
  ) throws(ContextError) -> ObjectDifference {
    let now = state(of: id)
    var isChanged = true
    var properties: Set<DocumentProperty> = []
    var isRedated = false
    switch (saved, now) {
    case (.absent, nil):
      isChanged = false
    case (.category(let then), .category(let now)?):
      // Only the name is tracked: a rename clears the record's place in the file, so
      // comparing whole records would count renaming back as a change.
      isChanged = then.category.name.text != now.category.name.text
    case (.document(let then), .document(let now)?):
      if then != now {
        properties = try Context.changedProperties(from: then, to: now) {
          content throws(ContextError) in try text(of: content)
        }
      }
      isChanged = !properties.isEmpty
      isRedated = then.document.modified != now.document.modified
    default:
      break  // created or deleted
    }
    return ObjectDifference(
      saved: saved, now: now, isChanged: isChanged, properties: properties,
      isRedated: isRedated)
  }

  /// The properties that differ between two states of a document, `text` reading a content
  /// (`nil` when it cannot say: then it counts as changed). Content counts as changed only
  /// when the text differs, so writing back what was saved is no change; texts of different
  /// sizes differ without reading either. The one rule `status`, the recovery offer and the
  /// save's delta share.
  /// - Throws: what `text` throws.
  static func changedProperties<Failure: Error>(
    from then: DocumentRecord, to now: DocumentRecord,
    text: (ContentStorage) throws(Failure) -> String?
  ) throws(Failure) -> Set<DocumentProperty> {
    var properties: Set<DocumentProperty> = []
    if then.document.name.text != now.document.name.text { properties.insert(.name) }
    if then.document.categoryID != now.document.categoryID { properties.insert(.category) }
    if then.document.tags.map(\.text) != now.document.tags.map(\.text) {
      properties.insert(.tags)
    }
    if then.content != now.content {
      switch (then.content, now.content) {
      case (.fault, .fault):
        properties.insert(.content)
      case _ where then.document.size != now.document.size:
        properties.insert(.content)
      default:
        let old = try text(then.content)
        let new = try text(now.content)
        if old == nil || old != new { properties.insert(.content) }
      }
    }
    // Every other change stamps a date too; a touch is the one that changes nothing else.
    if properties.isEmpty, then.touches != now.touches,
      then.document.modified != now.document.modified
    {
      properties.insert(.modified)
    }
    return properties
  }
}
