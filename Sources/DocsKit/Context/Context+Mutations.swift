// Creating, renaming, moving and deleting: each public change is one undo group and
// validates everything before it touches the graph.
extension Context {
  // MARK: - Categories

  /// Creates a category named `name`.
  /// - Throws: ``ContextError`` when the name is invalid or taken.
  @discardableResult
  public func createCategory(named name: String) throws(ContextError) -> Category {
    let validName = try validated(name)
    try checkCategoryNameIsFree(validName, for: nil)
    let category = Category(id: makeID(), name: validName)
    performChanges("mkdir \(validName)") {
      setCategory(
        category.id,
        to: CategoryRecord(category: category, sequence: nextSequenceNumber()))
    }
    return category
  }

  /// Renames the category `id` to `name`; its documents stay with it, untouched.
  /// - Throws: ``ContextError`` when the category is gone or the name is invalid or taken.
  @discardableResult
  public func renameCategory(_ id: ObjectID, to name: String) throws(ContextError) -> Category {
    guard var record = categoryRecords[id] else { throw .noSuchCategory(id) }
    let validName = try validated(name)
    try checkCategoryNameIsFree(validName, for: id)
    guard record.category.name.text != validName.text else { return record.category }
    record.category.name = validName
    performChanges("rename category \(validName)") { setCategory(id, to: record) }
    return record.category
  }

  /// Deletes the category `id` and, by the cascade rule, all of its documents.
  /// - Returns: how many documents were deleted with it.
  /// - Throws: ``ContextError/noSuchCategory(_:)`` when it is gone.
  @discardableResult
  public func deleteCategory(_ id: ObjectID) throws(ContextError) -> Int {
    guard let record = categoryRecords[id] else { throw .noSuchCategory(id) }
    // The cascade deletes each document, so each must be in the graph.
    try loadDocuments(of: id)
    let members = membersByCategory[id].map { Array($0.values) } ?? []
    performChanges("rmdir \(record.category.name)") {
      for documentID in members { setDocument(documentID, to: nil) }
      setCategory(id, to: nil)
    }
    return members.count
  }

  // MARK: - Documents

  /// Creates a document named `name` in the category `categoryID` holding `content`.
  /// - Parameter modified: the modification date to record (an imported file's); `nil`
  ///   stamps the context's clock.
  /// - Throws: ``ContextError`` when the category is gone or the name is invalid or taken.
  @discardableResult
  public func createDocument(
    named name: String, in categoryID: ObjectID, content: String = "",
    modified: Timestamp? = nil
  ) throws(ContextError) -> Document {
    guard categoryRecords[categoryID] != nil else { throw .noSuchCategory(categoryID) }
    let validName = try validated(name)
    try loadDocuments(of: categoryID)
    try checkDocumentNameIsFree(validName, in: categoryID, for: nil)
    let document = Document(
      id: makeID(), name: validName, categoryID: categoryID, size: content.utf8.count,
      modified: modified ?? clock())
    performChanges("new \(validName)") {
      setDocument(
        document.id,
        to: DocumentRecord(
          document: document, content: .text(content), location: nil,
          sequence: nextSequenceNumber()))
    }
    return document
  }

  /// Replaces the content of the document `id`; size and modification date follow.
  /// Setting the content it already has changes nothing.
  /// - Parameter modified: the modification date to record (an imported file's); `nil`
  ///   stamps the context's clock.
  /// - Throws: ``ContextError`` when the document is gone or its old content unreadable.
  @discardableResult
  public func setContent(
    _ content: String, of id: ObjectID, modified: Timestamp? = nil
  ) throws(ContextError) -> Document {
    guard var record = try documentRecord(id) else { throw .noSuchDocument(id) }
    if record.document.size == content.utf8.count, try self.content(of: id) == content {
      return record.document
    }
    record.content = .text(content)
    record.document.size = content.utf8.count
    record.document.modified = modified ?? clock()
    record.location = nil
    performChanges("write \(record.document.name)") { setDocument(id, to: record) }
    return record.document
  }

  /// Adds `text` at the end of the document `id`'s content.
  /// - Throws: ``ContextError`` when the document is gone or its content unreadable.
  @discardableResult
  public func appendContent(_ text: String, to id: ObjectID) throws(ContextError) -> Document {
    try setContent(content(of: id) + text, of: id)
  }

  /// Renames the document `id` within its category.
  /// - Throws: ``ContextError`` when the document is gone or the name is invalid or taken.
  @discardableResult
  public func renameDocument(_ id: ObjectID, to name: String) throws(ContextError) -> Document {
    guard let record = try documentRecord(id) else { throw .noSuchDocument(id) }
    return try moveDocument(id, to: record.document.categoryID, renamingTo: name)
  }

  /// Moves the document `id` into the category `categoryID`, optionally renaming it.
  /// - Throws: ``ContextError`` when either is gone or the name is invalid or taken there.
  @discardableResult
  public func moveDocument(
    _ id: ObjectID, to categoryID: ObjectID, renamingTo name: String? = nil
  ) throws(ContextError) -> Document {
    guard var record = try documentRecord(id) else { throw .noSuchDocument(id) }
    guard categoryRecords[categoryID] != nil else { throw .noSuchCategory(categoryID) }
    try loadDocuments(of: categoryID)
    let validName =
      try name.map { name throws(ContextError) in try validated(name) }
      ?? record.document.name
    try checkDocumentNameIsFree(validName, in: categoryID, for: id)
    guard validName.text != record.document.name.text || categoryID != record.document.categoryID
    else { return record.document }
    record.document.name = validName
    record.document.categoryID = categoryID
    record.document.modified = clock()
    record.location = nil
    performChanges("mv \(validName)") { setDocument(id, to: record) }
    return record.document
  }

  /// Gives the document `id` the context clock's time as its modification date, as
  /// `touch` does; its name, content and category stay as they are.
  /// - Throws: ``ContextError/noSuchDocument(_:)`` when it is gone.
  @discardableResult
  public func touchDocument(_ id: ObjectID) throws(ContextError) -> Document {
    guard var record = try documentRecord(id) else { throw .noSuchDocument(id) }
    record.document.modified = clock()
    record.touches += 1
    record.location = nil
    performChanges("touch \(record.document.name)") { setDocument(id, to: record) }
    return record.document
  }

  /// Deletes the document `id`.
  /// - Throws: ``ContextError/noSuchDocument(_:)`` when it is gone.
  public func deleteDocument(_ id: ObjectID) throws(ContextError) {
    guard let record = try documentRecord(id) else { throw .noSuchDocument(id) }
    performChanges("rm \(record.document.name)") { setDocument(id, to: nil) }
  }

  // MARK: - Validation

  func validated(_ name: String) throws(ContextError) -> Name {
    do {
      return try Name(name)
    } catch {
      throw .invalidName(error)
    }
  }

  private func checkCategoryNameIsFree(_ name: Name, for id: ObjectID?) throws(ContextError) {
    if let other = categoryIDsByKey[name.key], other != id, let existing = categoryRecords[other] {
      throw .duplicateCategoryName(name.text, existing: existing.category.name.text)
    }
  }

  func checkDocumentNameIsFree(
    _ name: Name, in categoryID: ObjectID, for id: ObjectID?
  ) throws(ContextError) {
    if let other = membersByCategory[categoryID]?[name.key], other != id,
      let existing = documentRecords[other], let category = categoryRecords[categoryID]
    {
      throw .duplicateDocumentName(
        name.text, existing: existing.document.name.text, in: category.category.name.text)
    }
  }
}
