/// A named group of documents: the one side of the one-to-many relationship.
///
/// A `Category` is a value: a snapshot of the object at the moment it was fetched from the
/// ``Context``. Its documents are reached through the context
/// (``Context/documents(in:sortedBy:order:)``), which keeps both sides of the relationship
/// in sync.
public struct Category: Identifiable, Hashable, Sendable {
  /// The stable identity of the category.
  public let id: ObjectID
  /// The name as typed.
  public internal(set) var name: Name
}

/// One of the properties of a category that change tracking reports.
public enum CategoryProperty: String, Hashable, Sendable, CaseIterable {
  case name
}
