// The two primitives every change of the graph goes through. They keep the relationship's
// two sides and the name indexes in sync, and record each change for undo and tracking.
extension Context {
  /// The current state of the object `id`, if it exists.
  func state(of id: ObjectID) -> ObjectState? {
    if let record = categoryRecords[id] { return .category(record) }
    if let record = documentRecords[id] { return .document(record) }
    return nil
  }

  /// Sets (or with `nil` removes) the category `id`, recording the change.
  func setCategory(_ id: ObjectID, to new: CategoryRecord?) {
    let old = categoryRecords[id]
    guard old != new else { return }
    record(id, before: old.map(ObjectState.category), after: new.map(ObjectState.category))
    if let old, categoryIDsByKey[old.category.name.key] == id {
      categoryIDsByKey[old.category.name.key] = nil
    }
    if let new {
      categoryRecords[id] = new
      categoryIDsByKey[new.category.name.key] = id
      if membersByCategory[id] == nil { membersByCategory[id] = [:] }
    } else {
      categoryRecords[id] = nil
      membersByCategory[id] = nil
    }
  }

  /// Sets (or with `nil` removes) the document `id`, recording the change.
  func setDocument(_ id: ObjectID, to new: DocumentRecord?) {
    let old = documentRecords[id]
    guard old != new else { return }
    record(id, before: old.map(ObjectState.document), after: new.map(ObjectState.document))
    if let old, membersByCategory[old.document.categoryID]?[old.document.name.key] == id {
      membersByCategory[old.document.categoryID]?[old.document.name.key] = nil
    }
    if let old, old.document.tags != new?.document.tags {
      for tag in old.document.tags {
        documentsByTag[tag.key]?.remove(id)
        if documentsByTag[tag.key]?.isEmpty == true { documentsByTag[tag.key] = nil }
      }
    }
    if let new {
      if old?.document.tags != new.document.tags { addTags(of: new.document, id) }
      documentRecords[id] = new
      membersByCategory[new.document.categoryID, default: [:]][new.document.name.key] = id
    } else {
      documentRecords[id] = nil
    }
  }

  /// Enters the document `id` in the inverse of each of its tags.
  func addTags(of document: Document, _ id: ObjectID) {
    for tag in document.tags { documentsByTag[tag.key, default: []].insert(id) }
  }

  /// Puts `state` (or absence) back for `id` without recording it for undo.
  func restore(_ id: ObjectID, to state: ObjectState?, kind: ObjectState?) {
    switch state ?? kind {
    case .category:
      if case .category(let record) = state {
        setCategory(id, to: record)
      } else {
        setCategory(id, to: nil)
      }
    case .document:
      if case .document(let record) = state {
        setDocument(id, to: record)
      } else {
        setDocument(id, to: nil)
      }
    case nil:
      break
    }
  }

  private func record(_ id: ObjectID, before: ObjectState?, after: ObjectState?) {
    editCount += 1
    if baseline[id] == nil {
      switch before {
      case .category(let record): baseline[id] = .category(record)
      case .document(let record): baseline[id] = .document(record)
      case nil: baseline[id] = .absent
      }
    }
    openGroup?.changes.append(UndoGroup.Change(id: id, before: before, after: after))
  }
}
