// Faulting in: the documents of a category, a document's category, documents by name and
// contents, answered by the index while it describes the loaded file, by the file otherwise.

extension IndexedStore {
  // MARK: - Faulting in

  public func documents(of category: ObjectID, _ unloaded: UnloadedCategory) throws(StoreError)
    -> [StoredDocument]
  {
    if let scanned = state.scanned { return scanned.documents(of: category) }
    if let (index, identity, isRacy) = state.trusted {
      let answer = ask(index) { () throws(SQLiteError) -> [StoredDocument]?? in
        try index.reading(identity) { _ throws(SQLiteError) in
          try index.documents(of: category, base: unloaded.placement.documents.offset)
        }
      }
      if case .answered(let rows) = answer {
        if let documents = rows, isPlausible(documents, for: unloaded),
          !isRacy || verify(documents, of: category, unloaded)
        {
          issue(documents)
          return documents
        }
        // It describes this file, yet the file contradicts it: rebuild it from the file.
        return try scanLoadedFile(rebuildingIndex: true).documents(of: category)
      }
    }
    return try scanLoadedFile().documents(of: category)
  }

  /// Records that `documents` were handed out from the index.
  func issue(_ documents: [StoredDocument]) {
    issuedFromIndex.reserveCapacity(issuedFromIndex.count + documents.count)
    for document in documents { issuedFromIndex[document.contentLocation] = document.id }
  }

  /// Whether rows from the index can describe the category: its count; those in the store
  /// file in its run, in order; those in the save log within what was read of it. With no
  /// record in the log, the run holds exactly the category's documents.
  private func isPlausible(_ documents: [StoredDocument], for unloaded: UnloadedCategory) -> Bool {
    guard documents.count == unloaded.summary.documentCount else { return false }
    let run = unloaded.placement.documents
    let logEnd = file.attached?.end ?? 0
    var end = run.offset
    var inFile = 0
    for document in documents {
      guard document.contentLocation.offset > document.location.offset,
        document.contentLocation.end < document.location.end,
        document.contentLocation.file == document.location.file
      else { return false }
      if document.location.file == .log {
        guard document.location.end <= logEnd else { return false }
        continue
      }
      guard document.location.offset >= end, document.location.end <= run.end else { return false }
      end = document.location.end
      inFile += 1
    }
    guard file.attached?.last == nil else { return true }
    return inFile == 0 ? run.length == 0 : end == run.end
  }

  /// Reads the category's run from the file and compares it with the index's rows of the
  /// documents in the file (those the log put elsewhere are in the run too, superseded).
  private func verify(
    _ documents: [StoredDocument], of category: ObjectID, _ unloaded: UnloadedCategory
  ) -> Bool {
    let inFile = documents.filter { $0.location.file == .store }
    let logChanged = file.attached?.last != nil
    guard
      let read = file.documentRun(
        unloaded.placement.documents, count: logChanged ? nil : inFile.count, of: category)
    else { return false }
    let byID = Dictionary(read.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    return inFile.allSatisfy { indexed in
      guard let read = byID[indexed.id] else { return false }
      return read.name.text == indexed.name.text && read.size == indexed.size
        && read.modified == indexed.modified && read.location == indexed.location
        && read.contentLocation == indexed.contentLocation
    }
  }

  public func unloadedCategory(holding id: ObjectID) -> ObjectID? {
    if let scanned = state.scanned { return scanned.categoryOfDocument[id] }
    guard let (index, identity, _) = state.trusted else { return nil }
    let answer = ask(index) { () throws(SQLiteError) -> ObjectID?? in
      try index.reading(identity) { _ throws(SQLiteError) in try index.category(holding: id) }
    }
    if case .answered(let found) = answer { return found }
    // The index is out of use: the file answers. A file that cannot be read now cannot say
    // (this question has no way to fail): the document is taken as held by no unloaded
    // category, and the read failure is reported by the next fault-in or save, which read
    // the file again and throw.
    do {
      return try scanLoadedFile().categoryOfDocument[id]
    } catch {
      return nil
    }
  }

  public func documents(
    nameContaining needle: String, in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument] {
    func filtered(_ documents: [StoredDocument]) -> [StoredDocument] {
      documents.filter {
        categories[$0.categoryID] != nil && (needle.isEmpty || $0.name.key.contains(needle))
      }
    }
    if let scanned = state.scanned { return filtered(scanned.graph.documents) }
    if let (index, identity, _) = state.trusted {
      let answer = ask(index) { () throws(SQLiteError) -> [StoredDocument]? in
        try index.reading(identity) { _ throws(SQLiteError) in
          try index.documents(nameContaining: needle)
        }
      }
      if case .answered(let documents) = answer {
        let kept = filtered(documents)
        issue(kept)
        return kept
      }
    }
    return filtered(try scanLoadedFile().graph.documents)
  }

  public func documents(
    _ lookup: DocumentLookup, in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument] {
    func wanted(_ documents: [StoredDocument]) -> [StoredDocument] {
      documents.filter { categories[$0.categoryID] != nil && lookup.names($0) }
    }
    if let scanned = state.scanned { return wanted(scanned.graph.documents) }
    guard let (index, identity, isRacy) = state.trusted else {
      return wanted(try scanLoadedFile().graph.documents)
    }
    // Where the rows alone cannot answer, the documents of the categories that may hold
    // them do: a key other spellings may equal is not found by its bytes, and while the
    // index is racily clean a category's rows are checked against the file as it is first
    // read (as faulting it in would; a search of every category trusts the rows, as `find`).
    let only = categories.count == 1 ? categories.first : nil
    switch lookup {
    case .named(let key) where !key.isSpelledOneWay || (isRacy && only != nil):
      if let (category, unloaded) = only {
        return wanted(try documents(of: category, unloaded))
      }
      return try documents(nameContaining: "", in: categories).filter(lookup.names)
    case .identified(let id) where isRacy:
      guard let category = unloadedCategory(holding: id), let unloaded = categories[category]
      else { return [] }
      return wanted(try documents(of: category, unloaded))
    default:
      break
    }
    let answer = ask(index) { () throws(SQLiteError) -> [StoredDocument]? in
      try index.reading(identity) { _ throws(SQLiteError) in
        switch lookup {
        case .named(let key): return try index.documents(namedKey: key.folded, in: only?.key)
        case .identified(let id): return try index.document(withID: id).map { [$0] } ?? []
        }
      }
    }
    if case .answered(let documents) = answer {
      let kept = wanted(documents)
      issue(kept)
      return kept
    }
    return wanted(try scanLoadedFile().graph.documents)
  }

  public func documentCount(
    named key: NameKey, in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> Int {
    // Where the rows alone cannot answer (see documents(_:in:)), the documents are read.
    guard let (index, identity, isRacy) = state.trusted, key.isSpelledOneWay,
      !isRacy || categories.count != 1
    else { return try documents(.named(key), in: categories).count }
    let answer = ask(index) { () throws(SQLiteError) -> [ObjectID]? in
      try index.reading(identity) { _ throws(SQLiteError) in
        try index.categories(ofDocumentsNamedKey: key.folded)
      }
    }
    guard case .answered(let found) = answer else {
      return try documents(.named(key), in: categories).count
    }
    return found.count { categories[$0] != nil }
  }

  public func documents(
    taggedWith keys: [TagKey], in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument] {
    try documents(taggedWith: keys) { categories[$0] != nil }
  }

  /// The saved documents holding a tag (the first of `keys`, when given, narrows the rows
  /// read) of the categories `isWanted` takes.
  func documents(
    taggedWith keys: [TagKey], ofCategories isWanted: (ObjectID) -> Bool
  ) throws(StoreError) -> [StoredDocument] {
    func filtered(_ documents: [StoredDocument]) -> [StoredDocument] {
      documents.filter { isWanted($0.categoryID) && !$0.tags.isEmpty }
    }
    if let scanned = state.scanned { return filtered(scanned.graph.documents) }
    if let (index, identity, _) = state.trusted {
      let answer = ask(index) { () throws(SQLiteError) -> [StoredDocument]? in
        try index.reading(identity) { _ throws(SQLiteError) in
          try index.documents(taggedWith: keys.first)
        }
      }
      if case .answered(let documents) = answer {
        let kept = filtered(documents)
        issue(kept)
        return kept
      }
    }
    return filtered(try scanLoadedFile().graph.documents)
  }

  // MARK: - Contents

  public func readContent(at location: StoredLocation) throws(StoreError) -> String {
    let resolved = remapped(location)
    do {
      return try file.readContent(at: resolved)
    } catch {
      // A range from the index that holds no string: the index lied. Read the file.
      guard state.scanned == nil, issuedFromIndex[location] != nil else { throw error }
      _ = try scanLoadedFile(rebuildingIndex: true)
      return try file.readContent(at: remapped(location))
    }
  }

  public func withEncodedContents<Stop: Error>(
    at locations: [StoredLocation], _ visit: (Int, UnsafeRawBufferPointer) throws(Stop) -> Void
  ) throws(EncodedContentsError<Stop>) {
    try file.withEncodedContents(at: locations.map(remapped), visit)
  }

  private func remapped(_ location: StoredLocation) -> StoredLocation {
    guard let scanned = state.scanned, scanned.indexLied, let id = issuedFromIndex[location],
      let placed = scanned.locations[id]
    else { return location }
    return placed.content
  }

  /// Reads the loaded file whole, for when the index does not (or no longer) describe it.
  /// When `rebuildingIndex`, the index described this file but the file contradicts it:
  /// it is rebuilt from what was read.
  @discardableResult
  func scanLoadedFile(rebuildingIndex: Bool = false) throws(StoreError) -> ScannedFile {
    if let scanned = state.scanned { return scanned }
    let trusted = state.trusted
    let graph = try file.readLoadedGraph()
    let scan = ScannedFile(graph: graph, indexLied: !issuedFromIndex.isEmpty)
    state.scan(scan)
    if rebuildingIndex, let (index, identity, _) = trusted {
      indexState = .rebuilt(reason: "the store contradicted it")
      withIndex(index) { () throws(SQLiteError) in
        try index.rebuild(
          from: graph, identity: identity, when: { _ in isCurrentFile(identity) }
        ) { _ in }
      }
    }
    return scan
  }
}
