#if canImport(Glibc)
  import Glibc
#endif

/// Why a store file could not be parsed, and at which byte.
struct StoreReadFailure: Error {
  enum Kind {
    /// Not JSON, or not the shape of format v1.
    case malformed
    /// JSON whose `format` is not `docsh-store`.
    case notAStore(String?)
    /// A newer version of the format.
    case newerVersion(Int)
    /// The read itself failed.
    case system(SystemCallError)
  }

  var kind: Kind
  var offset: Int
  var reason: String
}

/// Reads a format v1 store through one small reusable buffer, with a scanner specialised for
/// the format: structure and metadata are parsed, contents are skipped and remembered as the
/// byte range of their JSON string (faults), so opening a store never decodes a content.
struct StoreReader: ~Copyable {
  /// The newest format version this reader understands.
  static let supportedVersion = 1
  private static let bufferSize = 1 << 16
  private static let maximumDepth = 200

  private let fileSystem: any FileSystem
  private let file: Int32
  private let buffer: UnsafeMutableRawBufferPointer
  /// The file offset of `buffer[0]`.
  private var bufferStart = 0
  /// The next byte to read in `buffer`.
  private var position = 0
  /// How many bytes of `buffer` hold data.
  private var filled = 0
  /// Whether the reader reads at its own offsets (`pread`) rather than where the file stands.
  private let positioned: Bool
  /// Hears how far into the file the reader has read, once per buffer it fills (64 KiB):
  /// the progress of a long load, at no cost to the parse.
  var bytesRead: ((_ offset: Int) -> Void)?

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

  private var offset: Int { bufferStart + position }

  // MARK: - The format

  /// The keys of format v1, matched on their raw bytes.
  enum Key {
    case format, version, generation, categories, documents, id, name, content, size, modified
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
      case 4: self = equals("name") ? .name : equals("size") ? .size : .other
      case 6: self = equals("format") ? .format : .other
      case 7: self = equals("version") ? .version : equals("content") ? .content : .other
      case 8: self = equals("modified") ? .modified : .other
      case 9: self = equals("documents") ? .documents : .other
      case 10:
        self = equals("generation") ? .generation : equals("categories") ? .categories : .other
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
    guard let generation else { throw failure(.malformed, at: start, "missing \"generation\"") }
    guard sawCategories else { throw failure(.malformed, at: start, "missing \"categories\"") }
    graph.generation = generation
    return graph
  }

  private mutating func readCategory(into graph: inout LoadedGraph) throws(StoreReadFailure) {
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

  /// Reads the top of the store up to its `"categories"` key: the generation, when it comes
  /// before the categories (docsh writes it there).
  /// - Throws: ``StoreReadFailure`` when the top is not the start of a store.
  mutating func readHeaderGeneration() throws(StoreReadFailure) -> Int? {
    try skipWhitespace()
    try expect(UInt8(ascii: "{"), "expected '{' at the start of the store")
    var generation: Int?
    var first = true
    while let key = try nextKey(&first) {
      switch key {
      case .format:
        if try readString() != "docsh-store" { throw failure(.notAStore(nil), "") }
      case .version:
        if try readInteger("version") != StoreReader.supportedVersion {
          throw failure(.malformed, "another version")
        }
      case .generation: generation = try readInteger("generation")
      case .categories: return generation
      default: try skipValue(depth: 1)
      }
    }
    return generation
  }

  /// Reads a category object's keys up to its `"documents"` array: its id and name, when
  /// they come first (docsh writes them there).
  /// - Throws: ``StoreReadFailure`` when this is not the start of a category.
  mutating func readCategoryHeader() throws(StoreReadFailure) -> (id: ObjectID?, name: Name?) {
    try expect(UInt8(ascii: "{"), "expected a category object")
    var id: ObjectID?
    var name: Name?
    var first = true
    while let key = try nextKey(&first) {
      switch key {
      case .id: id = try readID()
      case .name: name = try readName()
      case .documents: return (id, name)
      default: try skipValue(depth: 2)
      }
    }
    return (id, name)
  }

  /// Reads `count` document objects separated by commas, starting at the first, and checks
  /// that the array ends after them.
  /// - Throws: ``StoreReadFailure`` when the bytes are not such a run.
  mutating func readDocumentRun(count: Int, of categoryID: ObjectID) throws(StoreReadFailure)
    -> [StoredDocument]
  {
    var graph = LoadedGraph.empty
    for index in 0..<count {
      if index > 0 {
        try skipWhitespace()
        try expect(UInt8(ascii: ","), "expected ',' between documents")
        try skipWhitespace()
      }
      try readDocument(into: &graph)
    }
    try skipWhitespace()
    try expect(UInt8(ascii: "]"), "expected the end of the documents")
    for index in graph.documents.indices { graph.documents[index].categoryID = categoryID }
    return graph.documents
  }

  private mutating func readDocument(into graph: inout LoadedGraph) throws(StoreReadFailure) {
    let start = offset
    try expect(UInt8(ascii: "{"), "expected a document object")
    var id: ObjectID?
    var name: Name?
    var content: StoredLocation?
    var size: Int?
    var modified: Timestamp?
    var first = true
    while let key = try nextKey(&first) {
      switch key {
      case .id: id = try readID()
      case .name: name = try readName()
      case .content: content = try skipString()
      case .size: size = try readInteger("size")
      case .modified: modified = try readTimestamp()
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
        id: id, name: name, categoryID: id, size: size, modified: modified,
        contentLocation: content, location: StoredLocation(offset: start, length: offset - start)))
  }

  private mutating func readID() throws(StoreReadFailure) -> ObjectID {
    let at = offset
    let parsed: ObjectID?? = try withStringBody { body, hasEscapes in
      hasEscapes ? .none : .some(body.withMemoryRebound(to: UInt8.self) { ObjectID(uuidBytes: $0) })
    }
    let id: ObjectID?
    switch parsed {
    case .some(let plain): id = plain
    case .none: id = ObjectID(try stringAt(at))
    }
    guard let id else { throw failure(.malformed, at: at, "an \"id\" is not a UUID") }
    return id
  }

  private mutating func readTimestamp() throws(StoreReadFailure) -> Timestamp {
    let at = offset
    let parsed: Timestamp?? = try withStringBody { body, hasEscapes in
      hasEscapes
        ? .none : .some(body.withMemoryRebound(to: UInt8.self) { Timestamp(iso8601Bytes: $0) })
    }
    if case .some(let time?) = parsed { return time }
    let text = try stringAt(at)
    guard let time = Timestamp(iso8601: text) else {
      throw failure(.malformed, at: at, "\"modified\" is not an ISO 8601 date: \"\(text)\"")
    }
    return time
  }

  private mutating func readName() throws(StoreReadFailure) -> Name {
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

  // MARK: - JSON

  /// Steps to the next member of an object whose `{` was read: its key, with the `:` after
  /// it read too, or `nil` at the closing `}`. `first` tracks whether a `,` is due.
  private mutating func nextKey(_ first: inout Bool) throws(StoreReadFailure) -> Key? {
    try skipWhitespace()
    if first {
      first = false
      if try peek() == UInt8(ascii: "}") {
        position += 1
        return nil
      }
    } else {
      switch try next() {
      case UInt8(ascii: ","): try skipWhitespace()
      case UInt8(ascii: "}"): return nil
      case nil: throw failure(.malformed, "the file ends in the middle of the store")
      default: throw failure(.malformed, at: offset - 1, "expected ',' or '}' in an object")
      }
    }
    guard try peek() == UInt8(ascii: "\"") else {
      throw failure(.malformed, "expected a key in quotes")
    }
    let at = offset
    var key = try withStringBody { body, hasEscapes in hasEscapes ? nil : Key(body) }
    if key == nil { key = Key(decoded: try stringAt(at)) }
    try skipWhitespace()
    try expect(UInt8(ascii: ":"), "expected ':' after a key")
    try skipWhitespace()
    return key
  }

  /// Steps to the next element of an array whose `[` was read: `true` when there is one,
  /// `false` at the closing `]`.
  private mutating func nextElement(_ first: inout Bool) throws(StoreReadFailure) -> Bool {
    try skipWhitespace()
    if first {
      first = false
      if try peek() == UInt8(ascii: "]") {
        position += 1
        return false
      }
    } else {
      switch try next() {
      case UInt8(ascii: ","): break
      case UInt8(ascii: "]"): return false
      case nil: throw failure(.malformed, "the file ends in the middle of the store")
      default: throw failure(.malformed, at: offset - 1, "expected ',' or ']' in an array")
      }
    }
    try skipWhitespace()
    return true
  }

  /// Skips any JSON value, checking its syntax.
  private mutating func skipValue(depth: Int) throws(StoreReadFailure) {
    guard depth < StoreReader.maximumDepth else {
      throw failure(.malformed, "values are nested too deeply")
    }
    switch try peek() {
    case UInt8(ascii: "\"")?:
      _ = try readString()
    case UInt8(ascii: "{")?:
      position += 1
      var first = true
      while try nextKey(&first) != nil { try skipValue(depth: depth + 1) }
    case UInt8(ascii: "[")?:
      position += 1
      var first = true
      while try nextElement(&first) { try skipValue(depth: depth + 1) }
    case UInt8(ascii: "t")?: try expectWord("true")
    case UInt8(ascii: "f")?: try expectWord("false")
    case UInt8(ascii: "n")?: try expectWord("null")
    case let byte? where byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39):
      _ = try readNumber()
    case nil:
      throw failure(.malformed, "the file ends in the middle of the store")
    default:
      throw failure(.malformed, "expected a value")
    }
  }

  /// What a JSON number was, once scanned.
  private struct ScannedNumber {
    /// Whether it is digits alone: no minus sign, fraction or exponent.
    var isPlainDigits: Bool
    /// Its value when it is plain digits that fit an `Int`.
    var value: Int?
  }

  /// Reads a JSON number, exactly as RFC 8259 writes it:
  /// `-? (0 | [1-9][0-9]*) (\.[0-9]+)? ([eE][+-]?[0-9]+)?`. Anything else (`012`, `1.`,
  /// `-`, `1e`) is refused at the number's first byte. The number ends at the first byte
  /// the grammar cannot take; what comes next is for the caller to judge.
  private mutating func readNumber() throws(StoreReadFailure) -> ScannedNumber {
    let at = offset
    func invalid(_ why: String) -> StoreReadFailure {
      failure(.malformed, at: at, "invalid number: \(why)")
    }
    var isPlainDigits = true
    if try peek() == UInt8(ascii: "-") {
      position += 1
      isPlainDigits = false
    }
    var value: Int? = 0
    let firstDigit = try peek()
    let integerDigits = try digits { digit in
      let (times, overflowed) = (value ?? 0).multipliedReportingOverflow(by: 10)
      let (sum, overflowedAgain) = times.addingReportingOverflow(digit)
      value = overflowed || overflowedAgain || value == nil ? nil : sum
    }
    guard integerDigits > 0 else { throw invalid("no digit after '-'") }
    if integerDigits > 1, firstDigit == UInt8(ascii: "0") {
      throw invalid("a leading 0 before other digits")
    }
    if try peek() == UInt8(ascii: ".") {
      position += 1
      isPlainDigits = false
      guard try digits() > 0 else { throw invalid("no digit after '.'") }
    }
    if let byte = try peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
      position += 1
      isPlainDigits = false
      if let sign = try peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
        position += 1
      }
      guard try digits() > 0 else { throw invalid("no digit in the exponent") }
    }
    return ScannedNumber(isPlainDigits: isPlainDigits, value: isPlainDigits ? value : nil)
  }

  /// Steps over the digits at the current byte, handing each to `visit`; their count.
  private mutating func digits(
    _ visit: (Int) -> Void = { _ in }
  ) throws(StoreReadFailure) -> Int {
    var count = 0
    while let byte = try peek(), byte >= 0x30 && byte <= 0x39 {
      visit(Int(byte - 0x30))
      position += 1
      count += 1
    }
    return count
  }

  /// Reads a whole number of 0 or more written as digits alone. Other JSON numbers are
  /// refused even when their value is whole (`1.0`, `1e2`, `-0`): docsh never writes them,
  /// and the format keeps one spelling for each value.
  private mutating func readInteger(_ key: String) throws(StoreReadFailure) -> Int {
    let at = offset
    guard let first = try peek(), first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39)
    else {
      throw failure(.malformed, at: at, "\"\(key)\" is not a whole number of 0 or more")
    }
    let number = try readNumber()
    guard number.isPlainDigits else {
      throw failure(
        .malformed, at: at, "\"\(key)\" is not a whole number of 0 or more in plain digits")
    }
    guard let value = number.value else {
      throw failure(.malformed, at: at, "\"\(key)\" is too large")
    }
    return value
  }

  private mutating func expectWord(_ word: StaticString) throws(StoreReadFailure) {
    for index in 0..<word.utf8CodeUnitCount {
      guard try next() == word.utf8Start[index] else {
        throw failure(.malformed, at: offset - 1, "expected a value")
      }
    }
  }

  /// Reads a string and decodes it.
  private mutating func readString() throws(StoreReadFailure) -> String {
    let at = offset
    let plain = try withStringBody { body, hasEscapes in
      hasEscapes ? nil : JSONText.validatedString(body)
    }
    if let plain { return plain }
    return try stringAt(at)
  }

  /// Decodes the string literal that was just skipped, which started at `literalOffset`:
  /// escapes, validation and all.
  private mutating func stringAt(_ literalOffset: Int) throws(StoreReadFailure) -> String {
    let length = offset - literalOffset
    let literal = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
    defer { literal.deallocate() }
    if literalOffset >= bufferStart {
      literal.copyMemory(
        from: UnsafeRawBufferPointer(rebasing: buffer[(literalOffset - bufferStart)..<position]))
    } else {
      try readFully(into: literal, at: literalOffset)
    }
    do {
      return try JSONText.decodeLiteral(UnsafeRawBufferPointer(literal))
    } catch {
      let reason =
        error.reason == JSONText.invalidUTF8 ? "a string is not valid UTF-8" : error.reason
      throw failure(.malformed, at: literalOffset + error.offset, reason)
    }
  }

  /// Skips a string literal and hands its body (between the quotes) to `body`, with whether
  /// it holds a backslash; straight from the buffer when the whole literal is still there.
  private mutating func withStringBody<Result>(
    _ body: (UnsafeRawBufferPointer, _ hasEscapes: Bool) -> Result
  ) throws(StoreReadFailure) -> Result {
    let location = try skipString()
    let literalStart = location.offset - bufferStart
    let bodyRange: Range<Int>
    let storage: UnsafeMutableRawBufferPointer?
    if literalStart >= 0 {
      bodyRange = (literalStart + 1)..<(literalStart + location.length - 1)
      storage = nil
    } else {
      let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: location.length, alignment: 1)
      try readFully(into: copy, at: location.offset)
      bodyRange = 1..<(location.length - 1)
      storage = copy
    }
    defer { storage?.deallocate() }
    let bytes = UnsafeRawBufferPointer(rebasing: (storage ?? buffer)[bodyRange])
    let hasEscapes = bytes.baseAddress.map { memchr($0, 0x5C, bytes.count) != nil } ?? false
    return body(bytes, hasEscapes)
  }

  /// Skips a string literal, returning where it lies (quotes included). Finding its end costs
  /// a `memchr` for the next quote plus a count of the backslashes before it.
  private mutating func skipString() throws(StoreReadFailure) -> StoredLocation {
    let start = offset
    guard try next() == UInt8(ascii: "\"") else {
      throw failure(.malformed, at: start, "expected a string")
    }
    // Backslashes that ended the previous buffer, when the run reaches its start.
    var carriedBackslashes = 0
    while true {
      if position == filled {
        guard try refill() else {
          throw failure(.malformed, "the file ends inside a string")
        }
      }
      let base = buffer.baseAddress.unsafelyUnwrapped
      let searchStart = position
      guard let found = memchr(base + position, Int32(UInt8(ascii: "\"")), filled - position) else {
        var run = 0
        var index = filled - 1
        while index >= searchStart, buffer[index] == UInt8(ascii: "\\") {
          run += 1
          index -= 1
        }
        carriedBackslashes = index < searchStart ? carriedBackslashes + run : run
        position = filled
        continue
      }
      let quote = base.distance(to: found)
      var run = 0
      var index = quote - 1
      while index >= searchStart, buffer[index] == UInt8(ascii: "\\") {
        run += 1
        index -= 1
      }
      if index < searchStart { run += carriedBackslashes }
      position = quote + 1
      carriedBackslashes = 0
      if run % 2 == 0 {
        return StoredLocation(offset: start, length: offset - start)
      }
    }
  }

  // MARK: - Bytes

  @inline(__always)
  private mutating func skipWhitespace() throws(StoreReadFailure) {
    while true {
      if position == filled {
        guard try refill() else { return }
      }
      switch buffer[position] {
      case 0x20, 0x0A, 0x0D, 0x09: position += 1
      default: return
      }
    }
  }

  @inline(__always)
  private mutating func peek() throws(StoreReadFailure) -> UInt8? {
    if position == filled {
      guard try refill() else { return nil }
    }
    return buffer[position]
  }

  @inline(__always)
  private mutating func next() throws(StoreReadFailure) -> UInt8? {
    guard let byte = try peek() else { return nil }
    position += 1
    return byte
  }

  private mutating func expect(_ byte: UInt8, _ reason: String) throws(StoreReadFailure) {
    let at = offset
    guard let found = try next() else {
      throw failure(.malformed, at: at, "the file ends in the middle of the store")
    }
    guard found == byte else { throw failure(.malformed, at: at, reason) }
  }

  /// Reads the next part of the file; `false` at its end.
  private mutating func refill() throws(StoreReadFailure) -> Bool {
    bufferStart += filled
    position = 0
    filled = 0
    let count: Int
    do {
      count =
        try positioned
        ? fileSystem.read(file, into: buffer, at: bufferStart) : fileSystem.read(file, into: buffer)
    } catch {
      throw StoreReadFailure(kind: .system(error), offset: bufferStart, reason: "")
    }
    filled = count
    if count > 0, let bytesRead { bytesRead(bufferStart + count) }
    return count > 0
  }

  private func readFully(
    into target: UnsafeMutableRawBufferPointer, at fileOffset: Int
  ) throws(StoreReadFailure) {
    let count: Int
    do {
      count = try fileSystem.readFully(file, into: target, at: fileOffset)
    } catch {
      throw StoreReadFailure(kind: .system(error), offset: fileOffset, reason: "")
    }
    guard count == target.count else {
      throw StoreReadFailure(
        kind: .malformed, offset: fileOffset, reason: "the file ends inside a string")
    }
  }

  private func failure(_ kind: StoreReadFailure.Kind, _ reason: String) -> StoreReadFailure {
    StoreReadFailure(kind: kind, offset: offset, reason: reason)
  }

  private func failure(
    _ kind: StoreReadFailure.Kind, at offset: Int, _ reason: String
  ) -> StoreReadFailure {
    StoreReadFailure(kind: kind, offset: offset, reason: reason)
  }
}
