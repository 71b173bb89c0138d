/// An object changed since the last save, with the properties that changed.
public struct Update<Object: Sendable, Property: Hashable & Sendable>: Sendable {
  /// The object as it is now.
  public var object: Object
  /// The properties that differ from the last save.
  public var properties: Set<Property>
}

/// Every change since the last save, like `git status`.
public struct ChangeSummary: Sendable {
  /// Categories created since the last save.
  public var insertedCategories: [Category] = []
  /// Categories changed since the last save.
  public var updatedCategories: [Update<Category, CategoryProperty>] = []
  /// Categories deleted since the last save, as they were.
  public var deletedCategories: [Category] = []
  /// Documents created since the last save.
  public var insertedDocuments: [Document] = []
  /// Documents changed since the last save.
  public var updatedDocuments: [Update<Document, DocumentProperty>] = []
  /// Documents deleted since the last save, as they were.
  public var deletedDocuments: [Document] = []

  /// How many objects changed.
  public var count: Int {
    insertedCategories.count + updatedCategories.count + deletedCategories.count
      + insertedDocuments.count + updatedDocuments.count + deletedDocuments.count
  }

  /// Whether nothing changed.
  public var isEmpty: Bool { count == 0 }
}

extension Context {
  /// Whether anything was touched since the last save, at no cost: `false` means
  /// ``hasChanges`` is `false`; `true` may still mean changes that were taken back.
  public var mayHaveChanges: Bool { !baseline.isEmpty }

  /// Whether anything changed since the last save.
  /// - Throws: ``ContextError/store(_:)`` when a saved content cannot be read to compare
  ///   it with one written since.
  public var hasChanges: Bool {
    get throws(ContextError) { try trackedChanges().hasChanges }
  }

  /// Whether nothing changed since the last save, `false` when that cannot be told (a saved
  /// content cannot be read to compare): for callers that act only on "nothing", to whom
  /// "maybe" costs only what they skip.
  public var surelyHasNoChanges: Bool {
    do {
      return try !hasChanges
    } catch {
      return false
    }
  }

  /// What changed since the last save: inserted, updated (which properties) and deleted
  /// objects. An object inserted and then deleted leaves no trace.
  /// - Throws: ``ContextError/store(_:)`` when a saved content cannot be read to compare
  ///   it with one written since.
  public func changes() throws(ContextError) -> ChangeSummary {
    var summary = ChangeSummary()
    for difference in try trackedChanges().objects.values where difference.isChanged {
      switch (difference.saved, difference.now) {
      case (.absent, .category(let now)?):
        summary.insertedCategories.append(now.category)
      case (.absent, .document(let now)?):
        summary.insertedDocuments.append(now.document)
      case (.category(let then), nil):
        summary.deletedCategories.append(then.category)
      case (.document(let then), nil):
        summary.deletedDocuments.append(then.document)
      case (.category, .category(let now)?):
        summary.updatedCategories.append(Update(object: now.category, properties: [.name]))
      case (.document, .document(let now)?):
        summary.updatedDocuments.append(
          Update(object: now.document, properties: difference.properties))
      default:
        break
      }
    }
    summary.insertedCategories.sort { Context.nameOrder($0.name, $1.name) }
    summary.updatedCategories.sort { Context.nameOrder($0.object.name, $1.object.name) }
    summary.deletedCategories.sort { Context.nameOrder($0.name, $1.name) }
    summary.insertedDocuments.sort(by: categoryThenName)
    summary.updatedDocuments.sort { categoryThenName($0.object, $1.object) }
    summary.deletedDocuments.sort { Context.nameOrder($0.name, $1.name) }
    return summary
  }
}
