/// What a sync writes through: the context of the session syncing, handed to the sync as a
/// parameter. Only the context changes its own state.
protocol IncomingWriter: AnyObject {
  /// The generation of the store as this writer loaded or last saved it.
  var generation: Int { get }

  /// Puts `incoming` in the store as one save (merging, as every save does, with what
  /// another session saved since, keeping the incoming values where they conflict): the
  /// delta written, `nil` when nothing changed. The save takes the one save path, its
  /// observers told with the origin ``SaveOrigin/sync`` (a commit observer leaves it to the
  /// sync, which records what came in itself).
  /// - Throws: ``ContextError`` when a category cannot be loaded, a name is taken, or the
  ///   store cannot be written.
  func writeIncoming(_ incoming: StoreIncoming) throws(ContextError) -> StoreDelta?
}

extension Context: IncomingWriter {
  func writeIncoming(_ incoming: StoreIncoming) throws(ContextError) -> StoreDelta? {
    try apply(incoming)
    return try save(resolving: .mine, origin: .sync)
  }
}

extension Context {
  /// Puts `incoming`'s categories and documents in the graph as they are: ids, names,
  /// contents and dates.
  /// - Throws: ``ContextError`` when a category cannot be loaded, or a name is taken.
  func apply(_ incoming: StoreIncoming) throws(ContextError) {
    for (id, _) in incoming.categories where categoryRecords[id] != nil {
      try loadDocuments(of: id)
    }
    for (id, _, categoryID) in incoming.documents {
      if !unloadedCategories.isEmpty, let holder = store.unloadedCategory(holding: id) {
        try loadDocuments(of: holder)
      }
      if let categoryID, categoryRecords[categoryID] != nil { try loadDocuments(of: categoryID) }
    }
    // Every changed document out first, so that names they free can be taken; then what is
    // put back can clash only with a document the sync does not change.
    var sequences: [ObjectID: Int] = [:]
    for (id, _, _) in incoming.documents {
      sequences[id] = documentRecords[id]?.sequence
      setDocument(id, to: nil)
    }
    for (id, name) in incoming.categories where name == nil {
      for member in Array(membersByCategory[id]?.values ?? [:].values) {
        setDocument(member, to: nil)
      }
      setCategory(id, to: nil)
    }
    for (id, name) in incoming.categories {
      guard let name else { continue }
      if let other = categoryIDsByKey[name.key], other != id {
        throw .duplicateCategoryName(name.text, existing: categoryName(other))
      }
      let sequence = categoryRecords[id]?.sequence ?? nextSequenceNumber()
      setCategory(
        id, to: CategoryRecord(category: Category(id: id, name: name), sequence: sequence))
    }
    for (id, document, categoryID) in incoming.documents {
      guard let document, let categoryID else { continue }
      if let holder = membersByCategory[categoryID]?[document.name.key], holder != id {
        throw .duplicateDocumentName(
          document.name.text, existing: documentRecords[holder]?.document.name.text ?? "?",
          in: categoryName(categoryID))
      }
      setDocument(
        id,
        to: DocumentRecord(
          document: Document(
            id: id, name: document.name, categoryID: categoryID,
            size: document.content.utf8.count, modified: document.modified, tags: document.tags),
          content: .text(document.content), location: nil,
          sequence: sequences[id] ?? nextSequenceNumber()))
    }
  }

  private func categoryName(_ id: ObjectID) -> String {
    categoryRecords[id]?.category.name.text ?? "?"
  }
}
