/// A plain-text document: the many side of the relationship, always in exactly one category.
///
/// A `Document` is a value holding everything but the content, which the context reads on
/// demand (``Context/content(of:)``): listing, sorting and summing sizes never touch it.
public struct Document: Identifiable, Hashable, Sendable {
  /// The stable identity of the document.
  public let id: ObjectID
  /// The name as typed, unique within its category.
  public internal(set) var name: Name
  /// The category the document belongs to.
  public internal(set) var categoryID: ObjectID
  /// The size of the content in UTF-8 bytes, stored when the content is set.
  public internal(set) var size: Int
  /// When the name, content, category or tags last changed.
  public internal(set) var modified: Timestamp
  /// The document's tags, sorted by key, one of each key (the many-to-many relationship:
  /// its inverse, the documents of a tag, is ``Context/documents(taggedWith:)``).
  public internal(set) var tags: [Tag] = []
}

/// One of the properties of a document that change tracking reports.
public enum DocumentProperty: String, Hashable, Sendable, CaseIterable {
  case name, content, category, tags
  /// The modification date alone, given anew by `touch`.
  case modified
}

/// What documents can be sorted by.
public enum DocumentSortKey: String, Sendable, CaseIterable {
  case name, size, modified
}

/// The direction of a sort.
public enum SortOrder: Sendable {
  case ascending, descending
}
