/// A document of a ``StoreSnapshot``: everything the store file says of it.
struct SnapshotDocument: Hashable, Sendable {
  var id: ObjectID
  var name: Name
  var size: Int
  var modified: Timestamp
  var content: String
  /// Its tags, sorted by key.
  var tags: [Tag] = []
}

/// A category of a ``StoreSnapshot`` with its documents, in file order.
struct SnapshotCategory: Hashable, Sendable {
  var id: ObjectID
  var name: Name
  var documents: [SnapshotDocument]
}

/// A whole store held in memory, contents decoded: what a three-way merge reads and writes.
///
/// Unlike a ``Context``, which leaves contents in the file, a snapshot is a plain value made
/// from the bytes of one version of the store (a file, or a blob read from git).
struct StoreSnapshot: Hashable, Sendable {
  /// The generation the file records.
  var generation: Int
  /// The categories in file order.
  var categories: [SnapshotCategory]

  /// A store with nothing in it, as a missing file loads.
  static let empty = StoreSnapshot(generation: 0, categories: [])

  init(generation: Int, categories: [SnapshotCategory]) {
    self.generation = generation
    self.categories = categories
  }

  /// Reads a store from the bytes of a file.
  /// - Parameter name: what messages call the file (a path, `COMMIT:store.json`).
  /// - Throws: ``StoreError`` when the bytes are not a valid docsh store (format v1, unique
  ///   ids and names, decodable contents).
  init(bytes: [UInt8], name: String) throws(StoreError) {
    let parsed = try ParsedStore(bytes: bytes, name: name)
    var documentsByCategory: [ObjectID: [SnapshotDocument]] = [:]
    for stored in parsed.graph.documents {
      let content = try parsed.decodedContent(of: stored)
      documentsByCategory[stored.categoryID, default: []].append(
        SnapshotDocument(
          id: stored.id, name: stored.name, size: stored.size, modified: stored.modified,
          content: content, tags: stored.tags))
    }
    generation = parsed.graph.generation
    categories = parsed.graph.categories.map {
      SnapshotCategory(id: $0.id, name: $0.name, documents: documentsByCategory[$0.id] ?? [])
    }
  }

  /// The store file for this snapshot, written as docsh writes every save (one document a
  /// line, the same bytes a ``JSONStore`` would write for this graph).
  func encoded() -> [UInt8] {
    var sequence = 0
    let toSave = categories.map { category in
      CategoryToSave(
        category: Category(id: category.id, name: category.name),
        documents: category.documents.map { document in
          sequence += 1
          return DocumentToSave(
            document: Document(
              id: document.id, name: document.name, categoryID: category.id,
              size: document.size, modified: document.modified, tags: document.tags),
            content: document.content, unchangedLocation: nil, contentLocation: nil,
            sequence: sequence)
        })
    }
    let file = InMemoryFile()
    var writer = StoreWriter(
      file: InMemoryFile.descriptor, sources: StoreSources(), fileSystem: file)
    // Writing to memory cannot fail: the in-memory file takes every byte.
    try? writer.write(toSave, generation: generation, epoch: contentEpoch)
    return file.bytes
  }

  /// The epoch of the file written for this snapshot: made from what it holds, so that the
  /// same snapshot is always the same bytes (another version of the store gets another).
  var contentEpoch: StoreEpoch {
    let digits = [UInt64(0), 1].map { salt -> String in
      var hash = StableHash()
      hash.combine(salt)
      hash.combine(UInt64(generation))
      for category in categories {
        hash.combine(category.id.high)
        hash.combine(category.id.low)
        hash.combine(Array(category.name.text.utf8) + [0])
        for document in category.documents {
          hash.combine(document.id.high)
          hash.combine(document.id.low)
          hash.combine(Array(document.name.text.utf8) + [0])
          hash.combine(UInt64(bitPattern: document.modified.millisecondsSince1970))
          hash.combine(Array(document.content.utf8) + [0])
        }
      }
      return hash.hexDigits
    }
    return StoreEpoch(digits.joined()) ?? .random()
  }

  /// How many documents the snapshot holds.
  var documentCount: Int { categories.reduce(0) { $0 + $1.documents.count } }
}

/// The bytes of one version of a store, parsed and checked but contents left encoded.
struct ParsedStore {
  /// The bytes read.
  let bytes: [UInt8]
  /// The graph the reader found, every rule of the format checked.
  let graph: LoadedGraph
  /// What messages call the file.
  let name: String

  /// Parses `bytes` as a store named `name` in messages.
  /// - Throws: ``StoreError`` when they are not a valid docsh store.
  init(bytes: [UInt8], name: String) throws(StoreError) {
    self.bytes = bytes
    self.name = name
    let file = InMemoryFile(bytes)
    var reader = StoreReader(file: InMemoryFile.descriptor, fileSystem: file)
    var graph: LoadedGraph
    do {
      graph = try reader.readGraph()
    } catch {
      throw error.storeError(in: name) { ParsedStore.position(of: $0, in: bytes) }
    }
    graph.index = try GraphIndex(checking: graph, in: name)
    self.graph = graph
  }

  /// The decoded content of `document`.
  /// - Throws: ``StoreError/malformed(_:line:column:reason:)`` when it is not a valid string.
  func decodedContent(of document: StoredDocument) throws(StoreError) -> String {
    let location = document.contentLocation
    guard location.end <= bytes.count else {
      throw .invalidStore(name, reason: "the file was cut short (a content ends past its end)")
    }
    let decoded = bytes.withUnsafeBytes { raw in
      Result { () throws(JSONTextError) in
        try JSONText.decodeLiteral(
          UnsafeRawBufferPointer(rebasing: raw[location.offset..<location.end]))
      }
    }
    switch decoded {
    case .success(let text):
      return text
    case .failure(let error):
      let (line, column) = ParsedStore.position(of: location.offset + error.offset, in: bytes)
      throw .malformed(name, line: line, column: column, reason: error.reason)
    }
  }

  /// The bytes of `location`.
  func slice(_ location: StoredLocation) -> ArraySlice<UInt8> {
    bytes[location.offset..<min(location.end, bytes.count)]
  }

  /// The line and column (from 1, columns in bytes) of `offset` in `bytes`.
  static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
    var line = 1
    var lineStart = 0
    for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A {
      line += 1
      lineStart = index + 1
    }
    return (line, offset - lineStart + 1)
  }
}

/// What changed, by id, from one snapshot of a store to another: the one comparison of two
/// snapshots, which a sync's commit message (``StoreChanges``) and the incoming side of a
/// sync (``StoreIncoming``) both read.
struct SnapshotDifference {
  /// A category made, renamed or deleted: its name before (`nil`: made) and after (`nil`:
  /// deleted).
  struct CategoryChange {
    var id: ObjectID
    var before: Name?
    var after: Name?
  }

  /// A document made, changed, moved or deleted: before and after, each with its category.
  struct DocumentChange {
    var id: ObjectID
    var before: (document: SnapshotDocument, category: SnapshotCategory)?
    var after: (document: SnapshotDocument, category: SnapshotCategory)?
  }

  /// Categories in the new snapshot's order, then those deleted in the old one's.
  var categories: [CategoryChange] = []
  /// Documents in the new snapshot's order, then those deleted in the old one's.
  var documents: [DocumentChange] = []

  /// The difference from `old` to `new`.
  init(from old: StoreSnapshot, to new: StoreSnapshot) {
    var oldCategories: [ObjectID: SnapshotCategory] = [:]
    var oldDocuments: [ObjectID: (document: SnapshotDocument, category: SnapshotCategory)] = [:]
    for category in old.categories {
      oldCategories[category.id] = category
      for document in category.documents { oldDocuments[document.id] = (document, category) }
    }
    var newCategories = Set<ObjectID>()
    var newDocuments = Set<ObjectID>()
    for category in new.categories {
      newCategories.insert(category.id)
      let before = oldCategories[category.id]?.name
      if before?.text != category.name.text {
        categories.append(CategoryChange(id: category.id, before: before, after: category.name))
      }
      for document in category.documents {
        newDocuments.insert(document.id)
        let then = oldDocuments[document.id]
        if let then, then.document == document, then.category.id == category.id { continue }
        documents.append(DocumentChange(id: document.id, before: then, after: (document, category)))
      }
    }
    for category in old.categories {
      if !newCategories.contains(category.id) {
        categories.append(CategoryChange(id: category.id, before: category.name, after: nil))
      }
      for document in category.documents where !newDocuments.contains(document.id) {
        documents.append(
          DocumentChange(id: document.id, before: (document, category), after: nil))
      }
    }
  }
}
