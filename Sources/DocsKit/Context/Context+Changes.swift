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
  public var hasChanges: Bool {
    baseline.contains { id, saved in !isUnchanged(id, since: saved) }
  }

  /// What changed since the last save: inserted, updated (which properties) and deleted
  /// objects. An object inserted and then deleted leaves no trace.
  public func changes() -> ChangeSummary {
    var summary = ChangeSummary()
    for (id, saved) in baseline {
      switch (saved, state(of: id)) {
      case (.absent, .category(let now)?):
        summary.insertedCategories.append(now.category)
      case (.absent, .document(let now)?):
        summary.insertedDocuments.append(now.document)
      case (.category(let then), nil):
        summary.deletedCategories.append(then.category)
      case (.document(let then), nil):
        summary.deletedDocuments.append(then.document)
      case (.category(let then), .category(let now)?)
      where then.category.name.text != now.category.name.text:
        summary.updatedCategories.append(Update(object: now.category, properties: [.name]))
      case (.document(let then), .document(let now)?):
        let properties = changedProperties(from: then, to: now)
        if !properties.isEmpty {
          summary.updatedDocuments.append(Update(object: now.document, properties: properties))
        }
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

  func isUnchanged(_ id: ObjectID, since saved: Baseline) -> Bool {
    switch (saved, state(of: id)) {
    case (.absent, nil): return true
    case (.category(let then), .category(let now)?):
      // Only the name is tracked: a rename clears the record's place in the file, so
      // comparing whole records would count renaming back as a change.
      return then.category.name.text == now.category.name.text
    case (.document(let then), .document(let now)?):
      return then == now || changedProperties(from: then, to: now).isEmpty
    default: return false
    }
  }

  /// The properties of a document that differ between two of its states. Content counts as
  /// changed only when the text differs, so writing back what was saved is no change.
  func changedProperties(
    from then: DocumentRecord, to now: DocumentRecord
  ) -> Set<DocumentProperty> {
    // A text that cannot be read counts as changed: the save that follows writes it and
    // reads it again, and reports the failure there; "unchanged" would skip writing it.
    Context.changedProperties(from: then, to: now) { try? text(of: $0) }
  }

  /// The properties that differ between two states of a document, `text` reading a content
  /// (`nil` when it cannot: then it counts as changed). The one rule `status`, the recovery
  /// offer and the save's delta share.
  static func changedProperties(
    from then: DocumentRecord, to now: DocumentRecord, text: (ContentStorage) -> String?
  ) -> Set<DocumentProperty> {
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
      default:
        let old = text(then.content)
        if old == nil || old != text(now.content) { properties.insert(.content) }
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
