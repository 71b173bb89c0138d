#if canImport(Glibc)
  import Glibc
#endif

/// Reads a format v1 store through one small reusable buffer, with a scanner specialised for
/// the format: structure and metadata are parsed, contents are skipped and remembered as the
/// byte range of their JSON string (faults), so opening a store never decodes a content.
struct StoreReader: ~Copyable {
  /// The newest format version this reader understands, and the one docsh writes: 2 names
  /// the file's epoch, which its save log extends (version 1 files are read and converted
  /// by their first save).
  static let supportedVersion = 2
  static let bufferSize = 1 << 16
  static let maximumDepth = 200

  let fileSystem: any FileSystem
  let file: Int32
  let buffer: UnsafeMutableRawBufferPointer
  /// The file offset of `buffer[0]`.
  var bufferStart = 0
  /// The next byte to read in `buffer`.
  var position = 0
  /// How many bytes of `buffer` hold data.
  var filled = 0
  /// Whether the reader reads at its own offsets (`pread`) rather than where the file stands.
  let positioned: Bool
  /// Hears how far into the file the reader has read, once per buffer it fills (64 KiB):
  /// the progress of a long load, at no cost to the parse.
  var bytesRead: ((_ offset: Int) -> Void)?
  /// Which of the store's files the locations it finds are in: the store file, unless it
  /// reads the save log.
  var locatedIn = StoredLocation.File.store

  init(file: Int32, fileSystem: any FileSystem) {
    self.file = file
    self.fileSystem = fileSystem
    positioned = false
    buffer = .allocate(byteCount: StoreReader.bufferSize, alignment: 16)
  }

  /// A reader of part of the file, from `offset` on, that leaves the file's own position be.
  init(file: Int32, fileSystem: any FileSystem, startingAt offset: Int) {
    self.file = file
    self.fileSystem = fileSystem
    positioned = true
    bufferStart = offset
    buffer = .allocate(byteCount: StoreReader.bufferSize, alignment: 16)
  }

  deinit {
    buffer.deallocate()
  }

  var offset: Int { bufferStart + position }

  // MARK: - The format

  /// The keys of format v1, matched on their raw bytes.
  enum Key {
    case format, version, generation, categories, documents, id, name, content, size, modified
    /// A document's tags (format v2).
    case tags
    /// The store file's epoch, and the keys of the save log's records.
    case epoch, category, document, deleted, deletedCategories, foldedInto
    case other

    init(_ bytes: UnsafeRawBufferPointer) {
      func equals(_ text: StaticString) -> Bool {
        guard text.utf8CodeUnitCount == bytes.count, let base = bytes.baseAddress else {
          return false
        }
        return memcmp(text.utf8Start, base, bytes.count) == 0
      }
      switch bytes.count {
      case 2: self = equals("id") ? .id : .other
      case 4:
        self =
          equals("name") ? .name : equals("size") ? .size : equals("tags") ? .tags : .other
      case 5: self = equals("epoch") ? .epoch : .other
      case 6: self = equals("format") ? .format : .other
      case 7:
        self =
          equals("version")
          ? .version : equals("content") ? .content : equals("deleted") ? .deleted : .other
      case 8:
        self =
          equals("modified")
          ? .modified
          : equals("category") ? .category : equals("document") ? .document : .other
      case 9: self = equals("documents") ? .documents : .other
      case 10:
        self = equals("generation") ? .generation : equals("categories") ? .categories : .other
      case 11: self = equals("folded-into") ? .foldedInto : .other
      case 18: self = equals("deleted-categories") ? .deletedCategories : .other
      default: self = .other
      }
    }

    init(decoded text: String) {
      var text = text
      self = text.withUTF8 { Key(UnsafeRawBufferPointer($0)) }
    }
  }

  /// Reads the whole file.
  mutating func readGraph() throws(StoreReadFailure) -> LoadedGraph {
    var graph = LoadedGraph.empty
    var format: String?
    var version: Int?
    var generation: Int?
    var epoch: StoreEpoch?
    var sawCategories = false
    try skipWhitespace()
    let start = offset
    guard try peek() != nil else { throw failure(.malformed, "the file is empty") }
    try expect(UInt8(ascii: "{"), "expected '{' at the start of the store")
    var first = true
    while let key = try nextKey(&first) {
      switch key {
      case .format:
        format = try readString()
        if format != "docsh-store" { throw failure(.notAStore(format), at: start, "") }
      case .version:
        let value = try readInteger("version")
        if value > StoreReader.supportedVersion {
          throw failure(.newerVersion(value), at: start, "")
        }
        version = value
      case .generation:
        generation = try readInteger("generation")
      case .epoch:
        epoch = try readEpoch()
      case .categories:
        sawCategories = true
        try expect(UInt8(ascii: "["), "\"categories\" is not an array")
        var firstCategory = true
        while try nextElement(&firstCategory) { try readCategory(into: &graph) }
      default:
        try skipValue(depth: 1)
      }
    }
    try skipWhitespace()
    if try peek() != nil { throw failure(.malformed, "unexpected data after the end of the store") }
    guard format != nil else { throw failure(.notAStore(nil), at: start, "") }
    guard let version else { throw failure(.malformed, at: start, "missing \"version\"") }
    guard version >= 1 else { throw failure(.malformed, at: start, "unknown version \(version)") }
    if version == 1 {
      // Format v1 has no tags: a `"tags"` there is another tool's, ignored as unknown keys are.
      for index in graph.documents.indices { graph.documents[index].tags = [] }
    }
    guard let generation else { throw failure(.malformed, at: start, "missing \"generation\"") }
    guard sawCategories else { throw failure(.malformed, at: start, "missing \"categories\"") }
    graph.generation = generation
    graph.epoch = epoch
    return graph
  }

  /// Reads an `"epoch"`: 32 hexadecimal digits.
  mutating func readEpoch() throws(StoreReadFailure) -> StoreEpoch {
    let at = offset
    let text = try readString()
    guard let epoch = StoreEpoch(text) else {
      throw failure(.malformed, at: at, "\"epoch\" is not 32 hexadecimal digits")
    }
    return epoch
  }

  mutating func readCategory(into graph: inout LoadedGraph) throws(StoreReadFailure) {
    let start = offset
    try expect(UInt8(ascii: "{"), "expected a category object")
    var id: ObjectID?
    var name: Name?
    var sawDocuments = false
    let firstDocument = graph.documents.count
    var arrayStart = offset
    var first = true
    while let key = try nextKey(&first) {
      switch key {
      case .id: id = try readID()
      case .name: name = try readName()
      case .documents:
        sawDocuments = true
        try expect(UInt8(ascii: "["), "\"documents\" is not an array")
        arrayStart = offset
        var firstDocument = true
        while try nextElement(&firstDocument) { try readDocument(into: &graph) }
      default: try skipValue(depth: 2)
      }
    }
    guard let id else { throw failure(.malformed, at: start, "a category has no \"id\"") }
    guard let name else { throw failure(.malformed, at: start, "a category has no \"name\"") }
    guard sawDocuments else {
      throw failure(.malformed, at: start, "category \"\(name)\" has no \"documents\"")
    }
    for index in firstDocument..<graph.documents.count {
      graph.documents[index].categoryID = id
    }
    let documents =
      firstDocument < graph.documents.count
      ? StoredLocation(
        offset: graph.documents[firstDocument].location.offset,
        length: graph.documents[graph.documents.count - 1].location.end
          - graph.documents[firstDocument].location.offset)
      : StoredLocation(offset: arrayStart, length: 0)
    var category = StoredCategory(id: id, name: name)
    category.placement = CategoryPlacement(start: start, documents: documents)
    graph.categories.append(category)
  }

  // MARK: - Parts of a file

  /// What the top of a store file says before its categories.
  struct Header: Equatable {
    /// Its generation; `nil` when it does not come before the categories.
    var generation: Int?
    /// Its epoch; `nil` in a version 1 file.
    var epoch: StoreEpoch?
  }

  /// Reads the top of the store up to its `"categories"` key: the generation and the epoch,
  /// when they come before the categories (docsh writes them there).
  /// - Throws: ``StoreReadFailure`` when the top is not the start of a store.
  mutating func readHeader() throws(StoreReadFailure) -> Header {
    try skipWhitespace()
    try expect(UInt8(ascii: "{"), "expected '{' at the start of the store")
    var header = Header()
    var first = true
    while let key = try nextKey(&first) {
      switch key {
      case .format:
        if try readString() != "docsh-store" { throw failure(.notAStore(nil), "") }
      case .version:
        let version = try readInteger("version")
        if version < 1 || version > StoreReader.supportedVersion {
          throw failure(.malformed, "another version")
        }
      case .generation: header.generation = try readInteger("generation")
      case .epoch: header.epoch = try readEpoch()
      case .categories: return header
      default: try skipValue(depth: 1)
      }
    }
    return header
  }

  /// Reads a category object's keys up to its `"documents"` array: its id and name, when
  /// they come first (docsh writes them there).
  /// - Throws: ``StoreReadFailure`` when this is not the start of a category.
  mutating func readCategoryHeader() throws(StoreReadFailure) -> (id: ObjectID?, name: Name?) {
    try readCategoryKeys(depth: 2, stoppingAtDocuments: true)
  }

  /// Reads a category object's id and name, skipping every other key's value as nested
  /// `depth` deep: up to its `"documents"` array when `stoppingAtDocuments` (a store file's
  /// category, its documents next), else to the object's end (a save log record's).
  /// - Throws: ``StoreReadFailure`` when this is not a category object.
  mutating func readCategoryKeys(
    depth: Int, stoppingAtDocuments: Bool
  ) throws(StoreReadFailure) -> (id: ObjectID?, name: Name?) {
    try expect(UInt8(ascii: "{"), "expected a category object")
    var id: ObjectID?
    var name: Name?
    var first = true
    while let key = try nextKey(&first) {
      switch key {
      case .id: id = try readID()
      case .name: name = try readName()
      case .documents where stoppingAtDocuments: return (id, name)
      default: try skipValue(depth: depth)
      }
    }
    return (id, name)
  }

  /// Reads `count` document objects (or every one up to the array's end, when `nil`)
  /// separated by commas, starting at the first, and checks that the array ends after them.
  /// - Throws: ``StoreReadFailure`` when the bytes are not such a run.
  mutating func readDocumentRun(count: Int?, of categoryID: ObjectID) throws(StoreReadFailure)
    -> [StoredDocument]
  {
    var graph = LoadedGraph.empty
    var index = 0
    while count.map({ index < $0 }) ?? true {
      if index > 0 {
        try skipWhitespace()
        if count == nil, try peek() == UInt8(ascii: "]") { break }
        try expect(UInt8(ascii: ","), "expected ',' between documents")
        try skipWhitespace()
      }
      try readDocument(into: &graph)
      index += 1
    }
    try skipWhitespace()
    try expect(UInt8(ascii: "]"), "expected the end of the documents")
    for index in graph.documents.indices { graph.documents[index].categoryID = categoryID }
    return graph.documents
  }

  mutating func readDocument(into graph: inout LoadedGraph) throws(StoreReadFailure) {
    let start = offset
    try expect(UInt8(ascii: "{"), "expected a document object")
    var id: ObjectID?
    var name: Name?
    var content: StoredLocation?
    var size: Int?
    var modified: Timestamp?
    var tags: [Tag] = []
    var first = true
    while let key = try nextKey(&first) {
      switch key {
      case .id: id = try readID()
      case .name: name = try readName()
      case .content: content = try skipString()
      case .size: size = try readInteger("size")
      case .modified: modified = try readTimestamp()
      case .tags: tags = try readTags()
      default: try skipValue(depth: 3)
      }
    }
    func missing(_ key: String) -> StoreReadFailure {
      failure(.malformed, at: start, "a document has no \"\(key)\"")
    }
    guard let id else { throw missing("id") }
    guard let name else { throw missing("name") }
    guard let content else { throw missing("content") }
    guard let size else { throw missing("size") }
    guard let modified else { throw missing("modified") }
    graph.documents.append(
      StoredDocument(
        id: id, name: name, categoryID: id, size: size, modified: modified, tags: tags,
        contentLocation: content,
        location: StoredLocation(offset: start, length: offset - start, in: locatedIn)))
  }

  /// Reads a document's `"tags"`: the valid tag names of an array, sorted by key, one of
  /// each. What is no valid tag (another type, a string that is no tag) is skipped, as an
  /// unknown key is: a file of version 1 converted by its first save keeps the objects
  /// another tool wrote byte for byte, `"tags"` of theirs included.
  mutating func readTags() throws(StoreReadFailure) -> [Tag] {
    try skipWhitespace()
    guard try peek() == UInt8(ascii: "[") else {
      try skipValue(depth: 3)
      return []
    }
    position += 1
    var tags: [Tag] = []
    var first = true
    while try nextElement(&first) {
      guard try peek() == UInt8(ascii: "\"") else {
        try skipValue(depth: 4)
        continue
      }
      if let tag = try? Tag(try readString()) { tags.append(tag) }
    }
    return tags.normalizedTags()
  }

  /// What a string's bytes gave when read without decoding it: a value, nothing (they are no
  /// such value), or a string with escapes, which only its decoded text can tell.
  private enum PlainParse<Value> {
    case parsed(Value?)
    case escaped
  }

  mutating func readID() throws(StoreReadFailure) -> ObjectID {
    let at = offset
    let parsed: PlainParse<ObjectID> = try withStringBody { body, hasEscapes in
      hasEscapes
        ? .escaped : .parsed(body.withMemoryRebound(to: UInt8.self) { ObjectID(uuidBytes: $0) })
    }
    let id: ObjectID?
    switch parsed {
    case .parsed(let plain): id = plain
    case .escaped: id = ObjectID(try stringAt(at))
    }
    guard let id else { throw failure(.malformed, at: at, "an \"id\" is not a UUID") }
    return id
  }

  mutating func readTimestamp() throws(StoreReadFailure) -> Timestamp {
    let at = offset
    let parsed: PlainParse<Timestamp> = try withStringBody { body, hasEscapes in
      hasEscapes
        ? .escaped
        : .parsed(body.withMemoryRebound(to: UInt8.self) { Timestamp(iso8601Bytes: $0) })
    }
    if case .parsed(let time?) = parsed { return time }
    let text = try stringAt(at)
    guard let time = Timestamp(iso8601: text) else {
      throw failure(.malformed, at: at, "\"modified\" is not an ISO 8601 date: \"\(text)\"")
    }
    return time
  }

  mutating func readName() throws(StoreReadFailure) -> Name {
    let at = offset
    // Most names are plain ASCII: printable, no slash, no space at either end. Those are
    // valid as they stand; anything else goes through the full rules.
    let plain = try withStringBody { body, hasEscapes -> Name? in
      guard !hasEscapes, let first = body.first, let last = body.last, first != 0x20, last != 0x20
      else {
        return nil
      }
      for byte in body where byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "/") { return nil }
      if body.count <= 2 && body.allSatisfy({ $0 == UInt8(ascii: ".") }) { return nil }
      return Name(unchecked: String(decoding: body, as: UTF8.self))
    }
    if let plain { return plain }
    let text = try stringAt(at)
    let name: Name
    do {
      name = try Name(text)
    } catch {
      throw failure(.malformed, at: at, "invalid name: \(error)")
    }
    guard name.text == text else {
      throw failure(.malformed, at: at, "the name \"\(text)\" has white space around it")
    }
    return name
  }
}
