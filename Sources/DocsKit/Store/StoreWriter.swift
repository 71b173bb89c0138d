/// Writes a format v1 store to a file through a buffer: changed documents are encoded,
/// runs of unchanged ones are copied from the loaded file inside the kernel.
struct StoreWriter {
  private static let flushThreshold = 1 << 20

  private let fileSystem: any FileSystem
  private let file: Int32
  /// The loaded file unchanged documents are copied from.
  private let source: Int32?
  private var buffer: [UInt8] = []
  /// How many bytes reached the file so far.
  private var flushed = 0
  /// Unchanged documents waiting to be copied as one run of the loaded file.
  private var pendingRun: (start: Int, end: Int, lastSequence: Int, outputStart: Int)?
  /// Where each document was placed, to report in the receipt.
  private(set) var locations: [ObjectID: (document: StoredLocation, content: StoredLocation)] = [:]
  /// Where each category was placed.
  private(set) var placements: [ObjectID: CategoryPlacement] = [:]

  init(file: Int32, source: Int32?, fileSystem: any FileSystem) {
    self.file = file
    self.source = source
    self.fileSystem = fileSystem
    buffer.reserveCapacity(StoreWriter.flushThreshold + 65_536)
  }

  /// The offset in the new file of the next byte written.
  private var offset: Int { flushed + buffer.count }

  /// Writes the whole store.
  mutating func write(_ categories: [CategoryToSave], generation: Int) throws(SystemCallError) {
    append("{\"format\":\"docsh-store\",\"version\":1,\"generation\":")
    append(String(generation))
    append(",\"categories\":[")
    for (index, category) in categories.enumerated() {
      append(index == 0 ? "\n" : ",\n")
      let start = offset
      appendObjectStart(
        id: category.category.id, name: category.category.name, then: ",\"documents\":[")
      var documents = StoredLocation(offset: offset, length: 0)
      if let unloaded = category.unloadedDocuments {
        // Never loaded, so unchanged: the whole run of its documents is copied as it is.
        let run = unloaded.placement.documents
        if run.length > 0 && source != nil {
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
    if let location = document.unchangedLocation, source != nil,
      let contentLocation = document.contentLocation
    {
      if var run = pendingRun, run.lastSequence + 1 == document.sequence, run.end <= location.offset
      {
        // The two objects are neighbours in the loaded file: copy the comma between them too.
        run.end = location.end
        run.lastSequence = document.sequence
        pendingRun = run
      } else {
        try flushPendingRun()
        append(first ? "\n" : ",\n")
        // Nothing is appended while a run is pending, so it will land right here.
        pendingRun = (location.offset, location.end, document.sequence, offset)
      }
      // A run's bytes keep their distances in the new file.
      let shift = pendingRun.map { $0.outputStart - $0.start } ?? 0
      locations[document.document.id] = (
        StoredLocation(offset: location.offset + shift, length: location.length),
        StoredLocation(offset: contentLocation.offset + shift, length: contentLocation.length)
      )
      return
    }
    try flushPendingRun()
    append(first ? "\n" : ",\n")
    let start = offset
    appendObjectStart(id: document.document.id, name: document.document.name, then: ",\"content\":")
    let contentStart = offset
    if let text = document.content {
      JSONText.appendLiteral(text, to: &buffer)
    } else if let location = document.contentLocation {
      try copy(location)
    }
    let contentEnd = offset
    append(",\"size\":")
    append(String(document.document.size))
    append(",\"modified\":\"")
    append(document.document.modified.iso8601)
    append("\"}")
    locations[document.document.id] = (
      StoredLocation(offset: start, length: offset - start),
      StoredLocation(offset: contentStart, length: contentEnd - contentStart)
    )
    if buffer.count >= StoreWriter.flushThreshold { try flush() }
  }

  private mutating func flushPendingRun() throws(SystemCallError) {
    guard let run = pendingRun else { return }
    pendingRun = nil
    try copy(StoredLocation(offset: run.start, length: run.end - run.start))
  }

  private mutating func copy(_ location: StoredLocation) throws(SystemCallError) {
    guard let source else { return }
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

  /// Appends how a category's or a document's object starts, `{"id":"…","name":…`, then
  /// `next`, the start of its next member.
  private mutating func appendObjectStart(id: ObjectID, name: Name, then next: String) {
    append("{\"id\":\"")
    append(id)
    append("\",\"name\":")
    JSONText.appendLiteral(name.text, to: &buffer)
    append(next)
  }

  private mutating func append(_ text: String) {
    buffer.append(contentsOf: text.utf8)
  }

  private mutating func append(_ text: StaticString) {
    text.withUTF8Buffer { buffer.append(contentsOf: $0) }
  }

  private mutating func append(_ id: ObjectID) {
    let start = buffer.count
    buffer.append(contentsOf: repeatElement(0, count: 36))
    buffer.withUnsafeMutableBufferPointer { bytes in
      id.writeCanonicalForm(into: UnsafeMutableBufferPointer(rebasing: bytes[start..<(start + 36)]))
    }
  }

  private mutating func flush() throws(SystemCallError) {
    try fileSystem.writeFully(file, buffer)
    flushed += buffer.count
    buffer.removeAll(keepingCapacity: true)
  }
}
