/// Writes a whole store file (format v2) through a buffer: changed documents are encoded,
/// runs of unchanged ones are copied inside the kernel from where they lie, the loaded store
/// file or its save log.
struct StoreWriter {
  private static let flushThreshold = 1 << 20
  /// Two objects of the store file this few bytes apart are neighbours: no document object
  /// (an id and a date alone are 60 bytes) fits between them, so copying from the first to
  /// the second copies no document the save left out. Records of the log never neighbour:
  /// each object is wrapped in its entry.
  private static let largestGapBetweenNeighbours = 64

  private let fileSystem: any FileSystem
  private let file: Int32
  /// The loaded store file and its save log, which unchanged documents are copied from.
  private let sources: StoreSources
  private var buffer: [UInt8] = []
  /// How many bytes reached the file so far.
  private var flushed = 0
  /// Unchanged documents waiting to be copied as one run of one source.
  private var pendingRun: (location: StoredLocation, lastSequence: Int, outputStart: Int)?
  /// Where each document was placed, to report in the receipt.
  private(set) var locations: [ObjectID: (document: StoredLocation, content: StoredLocation)] = [:]
  /// Where each category was placed.
  private(set) var placements: [ObjectID: CategoryPlacement] = [:]

  init(file: Int32, sources: StoreSources, fileSystem: any FileSystem) {
    self.file = file
    self.sources = sources
    self.fileSystem = fileSystem
    buffer.reserveCapacity(StoreWriter.flushThreshold + 65_536)
  }

  /// The offset in the new file of the next byte written.
  private var offset: Int { flushed + buffer.count }

  /// Writes the whole store, naming it `epoch` (what its save log will say it extends).
  mutating func write(
    _ categories: [CategoryToSave], generation: Int, epoch: StoreEpoch
  ) throws(SystemCallError) {
    append("{\"format\":\"docsh-store\",\"version\":")
    append(String(StoreReader.supportedVersion))
    append(",\"generation\":")
    append(String(generation))
    append(",\"epoch\":\"")
    append(epoch.text)
    append("\",\"categories\":[")
    for (index, category) in categories.enumerated() {
      append(index == 0 ? "\n" : ",\n")
      let start = offset
      StoreEncoding.appendObjectStart(
        id: category.category.id, name: category.category.name, then: ",\"documents\":[",
        to: &buffer)
      var documents = StoredLocation(offset: offset, length: 0)
      if let unloaded = category.unloadedDocuments {
        // Never loaded, so unchanged: the whole run of its documents is copied as it is.
        let run = unloaded.placement.documents
        if run.length > 0 && sources.store != nil {
          append("\n")
          documents = StoredLocation(offset: offset, length: run.length)
          try copy(run)
          append("\n]}")
        } else {
          append("]}")
        }
      } else {
        for (position, document) in category.documents.enumerated() {
          try write(document, first: position == 0)
        }
        try flushPendingRun()
        if let first = category.documents.first.flatMap({ locations[$0.document.id] }),
          let last = category.documents.last.flatMap({ locations[$0.document.id] })
        {
          documents = StoredLocation(
            offset: first.document.offset, length: last.document.end - first.document.offset)
        }
        append(category.documents.isEmpty ? "]}" : "\n]}")
      }
      placements[category.category.id] = CategoryPlacement(start: start, documents: documents)
    }
    append(categories.isEmpty ? "]}\n" : "\n]}\n")
    try flush()
  }

  private mutating func write(_ document: DocumentToSave, first: Bool) throws(SystemCallError) {
    if let location = document.unchangedLocation, sources.holds(location),
      let contentLocation = document.contentLocation, contentLocation.file == location.file
    {
      if var run = pendingRun, run.lastSequence + 1 == document.sequence,
        location.file == .store, run.location.file == .store,
        run.location.end <= location.offset,
        location.offset - run.location.end < StoreWriter.largestGapBetweenNeighbours
      {
        // The two objects are neighbours in the store file: copy the comma between them too.
        run.location = StoredLocation(
          offset: run.location.offset, length: location.end - run.location.offset,
          in: location.file)
        run.lastSequence = document.sequence
        pendingRun = run
      } else {
        try flushPendingRun()
        append(first ? "\n" : ",\n")
        // Nothing is appended while a run is pending, so it will land right here.
        pendingRun = (location, document.sequence, offset)
      }
      // A run's bytes keep their distances in the new file.
      let shift = pendingRun.map { $0.outputStart - $0.location.offset } ?? 0
      locations[document.document.id] = (
        StoredLocation(offset: location.offset + shift, length: location.length),
        StoredLocation(offset: contentLocation.offset + shift, length: contentLocation.length)
      )
      return
    }
    try flushPendingRun()
    append(first ? "\n" : ",\n")
    let start = offset
    StoreEncoding.appendObjectStart(
      id: document.document.id, name: document.document.name, then: ",\"content\":",
      to: &buffer)
    let contentStart = offset
    if let text = document.content {
      JSONText.appendLiteral(text, to: &buffer)
    } else if let location = document.contentLocation {
      try copy(location)
    }
    let contentEnd = offset
    StoreEncoding.appendObjectEnd(of: document.document, to: &buffer)
    locations[document.document.id] = (
      StoredLocation(offset: start, length: offset - start),
      StoredLocation(offset: contentStart, length: contentEnd - contentStart)
    )
    if buffer.count >= StoreWriter.flushThreshold { try flush() }
  }

  private mutating func flushPendingRun() throws(SystemCallError) {
    guard let run = pendingRun else { return }
    pendingRun = nil
    try copy(run.location)
  }

  private mutating func copy(_ location: StoredLocation) throws(SystemCallError) {
    guard let source = sources.descriptor(for: location.file) else { return }
    try flush()
    var copied = 0
    while copied < location.length {
      let count = try fileSystem.copy(
        from: source, at: location.offset + copied, to: file, count: location.length - copied)
      guard count > 0 else { throw SystemCallError("copy", code: 5 /* EIO: the source shrank */) }
      copied += count
    }
    flushed += copied
  }

  private mutating func append(_ text: String) {
    buffer.append(contentsOf: text.utf8)
  }

  private mutating func append(_ text: StaticString) {
    text.withUTF8Buffer { buffer.append(contentsOf: $0) }
  }

  private mutating func flush() throws(SystemCallError) {
    try fileSystem.writeFully(file, buffer)
    flushed += buffer.count
    buffer.removeAll(keepingCapacity: true)
  }
}

/// The open files a store's bytes are copied from: the loaded store file and its save log.
struct StoreSources {
  /// The loaded store file; `nil` when there was none.
  var store: Int32?
  /// Its save log; `nil` when there is none.
  var log: Int32?

  /// The descriptor of `file`, when it is open.
  func descriptor(for file: StoredLocation.File) -> Int32? {
    switch file {
    case .store: return store
    case .log: return log
    }
  }

  /// Whether the bytes at `location` can be copied from an open file.
  func holds(_ location: StoredLocation) -> Bool {
    descriptor(for: location.file) != nil
  }
}

/// How the store spells its objects, shared by the whole file and the save log's records, so
/// that a document's object is the same bytes in both (and can be copied from one to the
/// other).
enum StoreEncoding {
  /// Appends how a category's or a document's object starts, `{"id":"…","name":…`, then
  /// `next`, the start of its next member.
  static func appendObjectStart(
    id: ObjectID, name: Name, then next: StaticString, to buffer: inout [UInt8]
  ) {
    appendStatic("{\"id\":\"", to: &buffer)
    appendID(id, to: &buffer)
    appendStatic("\",\"name\":", to: &buffer)
    JSONText.appendLiteral(name.text, to: &buffer)
    appendStatic(next, to: &buffer)
  }

  /// Appends what follows a document's content in its object:
  /// `,"size":…,"modified":"…"}`, with `,"tags":[…]` before the brace when it has tags.
  static func appendObjectEnd(of document: Document, to buffer: inout [UInt8]) {
    appendStatic(",\"size\":", to: &buffer)
    buffer.append(contentsOf: String(document.size).utf8)
    appendStatic(",\"modified\":\"", to: &buffer)
    buffer.append(contentsOf: document.modified.iso8601.utf8)
    if document.tags.isEmpty {
      appendStatic("\"}", to: &buffer)
      return
    }
    appendStatic("\",\"tags\":[", to: &buffer)
    for (index, tag) in document.tags.enumerated() {
      if index > 0 { buffer.append(UInt8(ascii: ",")) }
      JSONText.appendLiteral(tag.text, to: &buffer)
    }
    appendStatic("]}", to: &buffer)
  }

  /// Appends a whole document object with `content` as its text; returns where the content's
  /// literal lies in `buffer`.
  @discardableResult
  static func appendDocument(
    _ document: Document, content: String, to buffer: inout [UInt8]
  ) -> Range<Int> {
    appendObjectStart(id: document.id, name: document.name, then: ",\"content\":", to: &buffer)
    let start = buffer.count
    JSONText.appendLiteral(content, to: &buffer)
    let end = buffer.count
    appendObjectEnd(of: document, to: &buffer)
    return start..<end
  }

  /// Appends `id` in its canonical form, 36 characters.
  static func appendID(_ id: ObjectID, to buffer: inout [UInt8]) {
    let start = buffer.count
    buffer.append(contentsOf: repeatElement(0, count: 36))
    buffer.withUnsafeMutableBufferPointer { bytes in
      id.writeCanonicalForm(into: UnsafeMutableBufferPointer(rebasing: bytes[start..<(start + 36)]))
    }
  }

  static func appendStatic(_ text: StaticString, to buffer: inout [UInt8]) {
    text.withUTF8Buffer { buffer.append(contentsOf: $0) }
  }
}
