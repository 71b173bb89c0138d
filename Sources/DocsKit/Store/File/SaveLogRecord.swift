// One record of the save log: a save's changes as after-images by id, encoded as one JSON
// object on one line, decoded by the store's own reader, and applied to a graph read from
// the store file.
//
//   {"generation":8,"categories":[{"id":"…","name":"Work"}],
//    "documents":[{"category":"…","document":{"id":"…","name":"Plan","content":"…",…}},
//                 {"deleted":"…"}],
//    "deleted-categories":["…"]}
//
// A document's object is spelled exactly as in the store file (StoreEncoding), so a fold
// copies it from the log as it is. The record that ends a folded log is {"generation":G,
// "folded-into":"EPOCH"}: the store file of that epoch holds everything before it.

/// A save as its record in the log holds it.
struct SaveLogRecord: Sendable {
  /// A document put (created, changed or moved) or deleted.
  enum Entry: Sendable {
    /// The document as it is after the save, its object and content located in the log.
    case put(StoredDocument)
    /// The document with this id is gone.
    case deleted(ObjectID)
  }

  /// The generation the save produced.
  var generation: Int
  /// Categories created or renamed, with their names after the save.
  var categories: [(id: ObjectID, name: Name)] = []
  /// Documents put or deleted, in order.
  var documents: [Entry] = []
  /// Categories deleted, with whatever documents they still hold.
  var deletedCategories: [ObjectID] = []
  /// Set on the record that ends a folded log: the store file of this epoch holds every
  /// record before it.
  var foldedInto: StoreEpoch?

  /// Whether a category or document of the store changes.
  var changesTheStore: Bool {
    !categories.isEmpty || !documents.isEmpty || !deletedCategories.isEmpty
  }
}

// MARK: - Encoding

extension SaveLogRecord {
  /// The body of the record of `delta`, producing `generation`, with where each document's
  /// object and content lie in it (offsets into the body).
  static func encode(
    _ delta: StoreDelta, generation: Int
  ) -> (body: [UInt8], placed: [ObjectID: (object: Range<Int>, content: Range<Int>)]) {
    var body: [UInt8] = []
    var placed: [ObjectID: (object: Range<Int>, content: Range<Int>)] = [:]
    StoreEncoding.appendStatic("{\"generation\":", to: &body)
    body.append(contentsOf: String(generation).utf8)
    StoreEncoding.appendStatic(",\"categories\":[", to: &body)
    var first = true
    for category in delta.categories {
      guard let name = category.after else { continue }
      if !first { body.append(UInt8(ascii: ",")) }
      first = false
      StoreEncoding.appendObjectStart(id: category.id, name: name, then: "}", to: &body)
    }
    StoreEncoding.appendStatic("],\"documents\":[", to: &body)
    first = true
    for change in delta.documents {
      if !first { body.append(UInt8(ascii: ",")) }
      first = false
      guard let document = change.after else {
        StoreEncoding.appendStatic("{\"deleted\":\"", to: &body)
        StoreEncoding.appendID(change.id, to: &body)
        StoreEncoding.appendStatic("\"}", to: &body)
        continue
      }
      StoreEncoding.appendStatic("{\"category\":\"", to: &body)
      StoreEncoding.appendID(document.categoryID, to: &body)
      StoreEncoding.appendStatic("\",\"document\":", to: &body)
      let objectStart = body.count
      StoreEncoding.appendObjectStart(
        id: document.id, name: document.name, then: ",\"content\":", to: &body)
      let contentStart = body.count
      JSONText.appendLiteral(change.content ?? "", to: &body)
      let contentEnd = body.count
      StoreEncoding.appendObjectEnd(of: document, to: &body)
      placed[document.id] = (objectStart..<body.count, contentStart..<contentEnd)
      body.append(UInt8(ascii: "}"))
    }
    StoreEncoding.appendStatic("],\"deleted-categories\":[", to: &body)
    first = true
    for category in delta.categories where category.after == nil {
      body.append(contentsOf: first ? Array("\"".utf8) : Array(",\"".utf8))
      first = false
      StoreEncoding.appendID(category.id, to: &body)
      body.append(UInt8(ascii: "\""))
    }
    StoreEncoding.appendStatic("]}", to: &body)
    return (body, placed)
  }

  /// The body of the record that ends a folded log.
  static func foldedBody(into epoch: StoreEpoch, generation: Int) -> [UInt8] {
    Array("{\"generation\":\(generation),\"folded-into\":\"\(epoch.text)\"}".utf8)
  }

  /// The record of `delta` as appended in `frame`, its documents located in the log.
  init(
    _ delta: StoreDelta, frame: SaveLogFrame,
    placed: [ObjectID: (object: Range<Int>, content: Range<Int>)]
  ) {
    generation = frame.generation
    for category in delta.categories {
      if let name = category.after {
        categories.append((category.id, name))
      } else {
        deletedCategories.append(category.id)
      }
    }
    for change in delta.documents {
      guard let document = change.after, let ranges = placed[document.id] else {
        documents.append(.deleted(change.id))
        continue
      }
      func located(_ range: Range<Int>) -> StoredLocation {
        StoredLocation(offset: frame.bodyStart + range.lowerBound, length: range.count, in: .log)
      }
      documents.append(
        .put(
          StoredDocument(
            id: document.id, name: document.name, categoryID: document.categoryID,
            size: document.size, modified: document.modified, tags: document.tags,
            contentLocation: located(ranges.content), location: located(ranges.object))))
    }
  }
}

// MARK: - Decoding

extension StoreReader {
  /// Reads a record's body, which starts where the reader stands, as the log holds it.
  /// - Throws: ``StoreReadFailure`` when it is not a record's body.
  mutating func readLogRecord() throws(StoreReadFailure) -> SaveLogRecord {
    let start = offset
    try expect(UInt8(ascii: "{"), "expected a record")
    var record = SaveLogRecord(generation: -1)
    var first = true
    while let key = try nextKey(&first) {
      switch key {
      case .generation: record.generation = try readInteger("generation")
      case .categories:
        try readArray { reader throws(StoreReadFailure) in
          let (id, name) = try reader.readLoggedCategory()
          record.categories.append((id, name))
        }
      case .documents:
        try readArray { reader throws(StoreReadFailure) in
          record.documents.append(try reader.readLoggedDocument())
        }
      case .deletedCategories:
        try readArray { reader throws(StoreReadFailure) in
          record.deletedCategories.append(try reader.readID())
        }
      case .foldedInto: record.foldedInto = try readEpoch()
      default: try skipValue(depth: 1)
      }
    }
    guard record.generation >= 0 else {
      throw failure(.malformed, at: start, "a record has no \"generation\"")
    }
    return record
  }

  /// Reads an array whose elements `element` reads.
  private mutating func readArray(
    _ element: (inout StoreReader) throws(StoreReadFailure) -> Void
  ) throws(StoreReadFailure) {
    try expect(UInt8(ascii: "["), "expected an array")
    var first = true
    while try nextElement(&first) { try element(&self) }
  }

  private mutating func readLoggedCategory() throws(StoreReadFailure) -> (ObjectID, Name) {
    let start = offset
    let (id, name) = try readCategoryKeys(depth: 3, stoppingAtDocuments: false)
    guard let id, let name else {
      throw failure(.malformed, at: start, "a category of a record has no id or name")
    }
    return (id, name)
  }

  private mutating func readLoggedDocument() throws(StoreReadFailure) -> SaveLogRecord.Entry {
    let start = offset
    try expect(UInt8(ascii: "{"), "expected a document")
    var categoryID: ObjectID?
    var deleted: ObjectID?
    var graph = LoadedGraph.empty
    var first = true
    while let key = try nextKey(&first) {
      switch key {
      case .category: categoryID = try readID()
      case .deleted: deleted = try readID()
      case .document: try readDocument(into: &graph)
      default: try skipValue(depth: 3)
      }
    }
    if let deleted, graph.documents.isEmpty { return .deleted(deleted) }
    guard var document = graph.documents.first, graph.documents.count == 1, let categoryID else {
      throw failure(.malformed, at: start, "a document of a record is neither put nor deleted")
    }
    document.categoryID = categoryID
    return .put(document)
  }
}

// MARK: - Applying

extension LoadedGraph {
  /// The graph with `records` applied in order: what the store holds once its log is read.
  /// A document put into a category other than its own, or created, goes after that
  /// category's documents; a category created goes after the others.
  /// - Throws: a reason when a record names a category that is not there.
  func applying(_ records: [SaveLogRecord]) throws(SaveLogMismatch) -> LoadedGraph {
    guard records.contains(where: \.changesTheStore) else {
      var graph = self
      if let last = records.last { graph.generation = last.generation }
      return graph
    }
    var order = categories.map(\.id)
    var categoryByID = Dictionary(categories.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    var members: [ObjectID: [ObjectID]] = [:]
    var documentByID: [ObjectID: StoredDocument] = [:]
    for document in documents {
      members[document.categoryID, default: []].append(document.id)
      documentByID[document.id] = document
    }
    for record in records {
      for (id, name) in record.categories {
        if categoryByID[id] == nil {
          order.append(id)
          categoryByID[id] = StoredCategory(id: id, name: name)
        } else {
          categoryByID[id]?.name = name
        }
        categoryByID[id]?.touchedByLog = true
      }
      for entry in record.documents {
        switch entry {
        case .put(let document):
          guard categoryByID[document.categoryID] != nil else {
            throw SaveLogMismatch(
              reason: "record \(record.generation) puts a document into no category")
          }
          let old = documentByID[document.id]
          categoryByID[document.categoryID]?.touchedByLog = true
          if let old { categoryByID[old.categoryID]?.touchedByLog = true }
          if let old, old.categoryID != document.categoryID {
            members[old.categoryID]?.removeAll { $0 == document.id }
          }
          if old?.categoryID != document.categoryID {
            members[document.categoryID, default: []].append(document.id)
          }
          documentByID[document.id] = document
        case .deleted(let id):
          if let old = documentByID.removeValue(forKey: id) {
            members[old.categoryID]?.removeAll { $0 == id }
            categoryByID[old.categoryID]?.touchedByLog = true
          }
        }
      }
      for id in record.deletedCategories {
        for member in members.removeValue(forKey: id) ?? [] { documentByID[member] = nil }
        categoryByID[id] = nil
        order.removeAll { $0 == id }
      }
    }
    var graph = LoadedGraph(
      generation: records.last?.generation ?? generation, categories: [], documents: [])
    graph.epoch = epoch
    for id in order {
      guard let category = categoryByID[id] else { continue }
      graph.categories.append(category)
      for member in members[id] ?? [] {
        if let document = documentByID[member] { graph.documents.append(document) }
      }
    }
    return graph
  }
}

/// A save log that cannot stand for saves of the store file it names.
struct SaveLogMismatch: Error, Sendable {
  /// What does not fit.
  var reason: String
}
