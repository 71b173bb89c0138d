/// A session's unsaved changes as plain values, contents in memory: what a recovery journal
/// keeps, and what another session can take over as its own unsaved changes.
///
/// Each change is one object as the session loaded it (`base`, `nil` for a new one) and as it
/// is now (`mine`, `nil` for a deleted one), so that taking them over merges with the store as
/// it is then, by the rules of two sessions' saves.
public struct PendingChanges: Sendable, Equatable {
  /// One object changed since the last save.
  struct Change: Sendable, Equatable {
    let id: ObjectID
    let base: ObjectState?
    let mine: ObjectState?
  }

  /// The generation of the store the changes were made on.
  public var generation: Int
  var changes: [Change]
  /// The categories the changes name, as the session had them.
  var categories: [ObjectID: CategoryRecord]

  /// How many objects changed.
  public var count: Int { changes.count }
  /// Whether nothing changed.
  public var isEmpty: Bool { changes.isEmpty }

  /// Equal when they hold the same changes: places in a file (sequence numbers, locations)
  /// belong to one session's graph and are not compared.
  public static func == (lhs: PendingChanges, rhs: PendingChanges) -> Bool {
    lhs.generation == rhs.generation && lhs.portable == rhs.portable
  }

  /// The changes and categories without places in a file.
  private var portable: ([Change], [ObjectID: String]) {
    func strip(_ state: ObjectState?) -> ObjectState? {
      switch state {
      case .category(var record)?:
        record.sequence = 0
        return .category(record)
      case .document(var record)?:
        record.sequence = 0
        record.location = nil
        return .document(record)
      case nil: return nil
      }
    }
    return (
      changes.map { Change(id: $0.id, base: strip($0.base), mine: strip($0.mine)) },
      categories.mapValues(\.category.name.text)
    )
  }
}

// Keeping unsaved changes outside the session, and taking them back.
extension Context {
  /// Every unsaved change, as values a recovery journal can keep; contents of changed
  /// documents are read from the store when they were not in memory.
  /// - Throws: ``ContextError/store(_:)`` when a content cannot be read.
  public func pendingChanges() throws(ContextError) -> PendingChanges {
    try pendingChanges(includingUnchanged: false)
  }

  /// Takes `pending` — the unsaved changes of a session that ended — as unsaved changes of
  /// this context, merged with the graph as loaded by the rules of a save that finds another
  /// session's save: what the store changed meanwhile stays, conflicts keep `pending`'s values
  /// and are recorded in ``conflicts``. Nothing is saved. One undo group, `actionName`.
  /// All or nothing: when it fails the graph is as it was.
  /// - Throws: ``ContextError/store(_:)`` when a category or content cannot be read.
  public func recover(_ pending: PendingChanges, actionName: String = "recover")
    throws(ContextError)
  {
    try checkFits(pending)
    let earlier = conflicts
    do {
      try performChanges(actionName) { () throws(ContextError) in try replay(pending) }
    } catch {
      conflicts = earlier
      throw error
    }
    conflicts = earlier + conflicts.filter { !earlier.contains($0) }
  }

  /// Refuses changes that name an object of this store as one of another kind (a category
  /// id that is a document here): no session made them, and replaying them would give two
  /// objects one id.
  private func checkFits(_ pending: PendingChanges) throws(ContextError) {
    func isCategory(_ state: ObjectState?) -> Bool? {
      switch state {
      case .category?: return true
      case .document?: return false
      case nil: return nil
      }
    }
    var kinds: [ObjectID: Bool] = [:]
    for id in pending.categories.keys { kinds[id] = true }
    for change in pending.changes {
      if let kind = isCategory(change.mine) ?? isCategory(change.base) { kinds[change.id] = kind }
    }
    for (id, isCategory) in kinds {
      if !unloadedCategories.isEmpty, let holder = store.unloadedCategory(holding: id) {
        try loadDocuments(of: holder)
      }
      let here: Bool? =
        categoryRecords[id] != nil ? true : documentRecords[id] != nil ? false : nil
      if let here, here != isCategory {
        throw .store(
          .invalidStore(
            store.displayName,
            reason:
              "the recovered changes name \(id) as a \(isCategory ? "category" : "document"), which is a \(here ? "category" : "document") here"
          ))
      }
    }
  }
}

extension PendingChanges {
  /// The changes as `status` lists them: new, changed (which properties) and deleted
  /// objects, compared with the state they were made on.
  public var summary: ChangeSummary {
    var summary = ChangeSummary()
    for change in changes {
      switch (change.base, change.mine) {
      case (nil, .category(let now)?): summary.insertedCategories.append(now.category)
      case (nil, .document(let now)?): summary.insertedDocuments.append(now.document)
      case (.category(let then)?, nil): summary.deletedCategories.append(then.category)
      case (.document(let then)?, nil): summary.deletedDocuments.append(then.document)
      case (.category(let then)?, .category(let now)?)
      where then.category.name.text != now.category.name.text:
        summary.updatedCategories.append(Update(object: now.category, properties: [.name]))
      case (.document(let then)?, .document(let now)?):
        // The rule `status` uses: tags and a touch's date count too. Pending contents are
        // texts already.
        let properties = Context.changedProperties(from: then, to: now) { content in
          if case .text(let text) = content { return text }
          return nil
        }
        if !properties.isEmpty {
          summary.updatedDocuments.append(Update(object: now.document, properties: properties))
        }
      default:
        break
      }
    }
    func byName(_ a: Category, _ b: Category) -> Bool { Context.nameOrder(a.name, b.name) }
    func documentOrder(_ a: Document, _ b: Document) -> Bool {
      let left = NameKey(categoryName(of: a.categoryID) ?? "").folded
      let right = NameKey(categoryName(of: b.categoryID) ?? "").folded
      return left != right ? left < right : Context.nameOrder(a.name, b.name)
    }
    summary.insertedCategories.sort(by: byName)
    summary.updatedCategories.sort { byName($0.object, $1.object) }
    summary.deletedCategories.sort(by: byName)
    summary.insertedDocuments.sort(by: documentOrder)
    summary.updatedDocuments.sort { documentOrder($0.object, $1.object) }
    summary.deletedDocuments.sort(by: documentOrder)
    return summary
  }

  /// The name of category `id` as the changes' session had it (its last name when it
  /// deleted or renamed it); `nil` when the changes do not name it.
  public func categoryName(of id: ObjectID) -> String? {
    if let record = categories[id] { return record.category.name.text }
    for change in changes where change.id == id {
      if case .category(let record)? = change.mine ?? change.base {
        return record.category.name.text
      }
    }
    return nil
  }
}
