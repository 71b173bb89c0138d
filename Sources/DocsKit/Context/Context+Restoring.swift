/// A document as it was at a commit of the store's history: what ``Context/restoreDocument(_:)``
/// puts back.
public struct SavedDocument: Hashable, Sendable {
  /// The document's identity.
  public var id: ObjectID
  /// Its name then.
  public var name: String
  /// Its category's identity then.
  public var categoryID: ObjectID
  /// Its category's name then.
  public var categoryName: String
  /// Its content then.
  public var content: String
  /// Its stored size then.
  public var size: Int
  /// Its modification date then.
  public var modified: Timestamp
  /// Its tags then.
  public var tags: [Tag]

  /// A saved document of these values.
  public init(
    id: ObjectID, name: String, categoryID: ObjectID, categoryName: String, content: String,
    size: Int, modified: Timestamp, tags: [Tag] = []
  ) {
    self.tags = tags
    self.id = id
    self.name = name
    self.categoryID = categoryID
    self.categoryName = categoryName
    self.content = content
    self.size = size
    self.modified = modified
  }
}

// Putting back a version from history, as one undoable change that save commits.
extension Context {
  /// Puts back the document `saved` describes, as one undoable change.
  ///
  /// When the document exists, its content and name become `saved`'s; it stays in its
  /// category and its date becomes now. When it is gone, it is created again with
  /// `saved`'s id, name, content and date in its category — the same one if it still
  /// exists (renamed or not), else the one of its old name, else created again with its old
  /// id and name.
  /// - Throws: ``ContextError`` when the name is taken in that category, or invalid.
  @discardableResult
  public func restoreDocument(_ saved: SavedDocument) throws(ContextError) -> Document {
    let name = try validated(saved.name)
    if var record = try documentRecord(saved.id) {
      try checkDocumentNameIsFree(name, in: record.document.categoryID, for: saved.id)
      let sameContent = try content(of: saved.id) == saved.content
      guard !sameContent || record.document.name.text != name.text else { return record.document }
      record.document.name = name
      if !sameContent {
        record.content = .text(saved.content)
        record.document.size = saved.content.utf8.count
      }
      record.document.modified = clock()
      record.location = nil
      performChanges("restore \(name)") { setDocument(saved.id, to: record) }
      return record.document
    }
    let categoryName = try validated(saved.categoryName)
    return try performChanges("restore \(name)") { () throws(ContextError) -> Document in
      let categoryID: ObjectID
      if categoryRecords[saved.categoryID] != nil {
        categoryID = saved.categoryID
        try loadDocuments(of: categoryID)
      } else if let existing = categoryIDsByKey[categoryName.key] {
        categoryID = existing
        try loadDocuments(of: categoryID)
      } else {
        categoryID = state(of: saved.categoryID) == nil ? saved.categoryID : makeID()
        setCategory(
          categoryID,
          to: CategoryRecord(
            category: Category(id: categoryID, name: categoryName),
            sequence: nextSequenceNumber()))
      }
      try checkDocumentNameIsFree(name, in: categoryID, for: nil)
      let id = state(of: saved.id) == nil ? saved.id : makeID()
      let document = Document(
        id: id, name: name, categoryID: categoryID, size: saved.content.utf8.count,
        modified: saved.modified, tags: saved.tags)
      setDocument(
        id,
        to: DocumentRecord(
          document: document, content: .text(saved.content), location: nil,
          sequence: nextSequenceNumber()))
      return document
    }
  }
}
