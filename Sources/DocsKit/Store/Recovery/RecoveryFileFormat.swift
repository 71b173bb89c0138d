// The recovery file's layout: a header line saying what it is, its format version, and the
// length and checksum of the body that follows, then the body as JSON. Without Foundation,
// like the store.
//
//   {"format":"docsh-unsaved-changes","version":1,"length":812,"checksum":"9f0c…"}
//   {"store":"/home/me/.local/share/docsh/store.json","generation":4,"pid":4242,
//    "started":"2026-12-01T18:02:11.000Z","written":"2026-12-01T18:49:03.120Z",
//    "categories":[{"id":"…","name":"Work"}],
//    "changes":[{"id":"…","base":null,"mine":{"kind":"document","name":"Precious",
//      "category":"…","modified":"2026-12-01T18:49:01.000Z","content":"three hours…"}}]}

/// What a recovery file holds: whose unsaved changes, from when, and the changes.
public struct RecoveryRecord: Sendable, Equatable {
  /// The real path of the store the changes were made on.
  public var storeIdentity: String
  /// The process id of the session that wrote it.
  public var processID: Int32
  /// When that session started.
  public var started: Timestamp
  /// When it last wrote the file: at most the journal's delay before it ended.
  public var written: Timestamp
  /// The unsaved changes.
  public var pending: PendingChanges

  /// A record of `pending`, made by process `processID` on the store `storeIdentity`.
  public init(
    storeIdentity: String, processID: Int32, started: Timestamp, written: Timestamp,
    pending: PendingChanges
  ) {
    self.storeIdentity = storeIdentity
    self.processID = processID
    self.started = started
    self.written = written
    self.pending = pending
  }
}

/// Why a recovery file cannot be used. Such a file is never applied, not even in part.
public enum RecoveryFileProblem: Error, Equatable, Sendable, CustomStringConvertible {
  /// It is shorter than its header says: cut short by a crash or a full disk.
  case truncated(expected: Int, found: Int)
  /// Its bytes are not what was written (the checksum differs) or do not parse.
  case damaged(reason: String)
  /// A newer docsh wrote it; this one leaves it alone.
  case newerVersion(Int, supported: Int)
  /// It holds the changes of another store.
  case otherStore(String)
  /// It could not be read.
  case unreadable(operation: String, errno: Int32)

  public var description: String {
    switch self {
    case .truncated(let expected, let found):
      return "it is cut short (\(found) of \(expected) bytes)"
    case .damaged(let reason): return "it is damaged (\(reason))"
    case .newerVersion(let version, let supported):
      return "a newer docsh wrote it (format \(version); this one reads up to \(supported))"
    case .otherStore(let store): return "it holds the changes of another store (\(store))"
    case .unreadable(let operation, let code):
      return "it cannot be read (\(operation): \(StoreError.message(for: code)))"
    }
  }
}

/// Encodes and decodes recovery files (format 1).
enum RecoveryFileFormat {
  /// The format version this docsh writes and the newest it reads.
  static let version = 1
  /// The header's `format` value.
  static let formatName = "docsh-unsaved-changes"

  // MARK: - Encoding

  /// The file's bytes for `record`.
  /// The tags of a document's `"tags"` (none when it has no such key); `nil` when one is no
  /// valid tag.
  static func tags(_ value: MiniJSON.Value?) -> [Tag]? {
    var tags: [Tag] = []
    for item in value?.array ?? [] {
      guard let text = item.string, let tag = try? Tag(text) else { return nil }
      tags.append(tag)
    }
    return tags.normalizedTags()
  }

  static func encode(_ record: RecoveryRecord) -> [UInt8] {
    var body: [UInt8] = []
    body.reserveCapacity(1024)
    func append(_ text: String) { body.append(contentsOf: text.utf8) }
    func literal(_ text: String) { JSONText.appendLiteral(text, to: &body) }
    append("{\"store\":")
    literal(record.storeIdentity)
    append(",\"generation\":\(record.pending.generation),\"pid\":\(record.processID)")
    append(",\"started\":")
    literal(record.started.iso8601)
    append(",\"written\":")
    literal(record.written.iso8601)
    append(",\n\"categories\":[")
    for (index, category) in record.pending.categories.values.sorted(by: {
      $0.category.id < $1.category.id
    }).enumerated() {
      append(index == 0 ? "\n" : ",\n")
      append("{\"id\":\"\(category.category.id)\",\"name\":")
      literal(category.category.name.text)
      append("}")
    }
    append("],\n\"changes\":[")
    func state(_ state: ObjectState?) {
      switch state {
      case nil: append("null")
      case .category(let record)?:
        append("{\"kind\":\"category\",\"name\":")
        literal(record.category.name.text)
        append("}")
      case .document(let record)?:
        append("{\"kind\":\"document\",\"name\":")
        literal(record.document.name.text)
        append(",\"category\":\"\(record.document.categoryID)\",\"modified\":")
        literal(record.document.modified.iso8601)
        append(",\"content\":")
        if case .text(let text) = record.content { literal(text) } else { literal("") }
        // Tags only when it holds any: a journal without them reads as it always did.
        if !record.document.tags.isEmpty {
          append(",\"tags\":[")
          for (index, tag) in record.document.tags.enumerated() {
            if index > 0 { append(",") }
            literal(tag.text)
          }
          append("]")
        }
        append("}")
      }
    }
    for (index, change) in record.pending.changes.enumerated() {
      append(index == 0 ? "\n" : ",\n")
      append("{\"id\":\"\(change.id)\",\"base\":")
      state(change.base)
      append(",\"mine\":")
      state(change.mine)
      append("}")
    }
    append("]}\n")
    var file = Array(
      ("{\"format\":\"\(formatName)\",\"version\":\(version),\"length\":\(body.count),"
        + "\"checksum\":\"\(checksum(body))\"}\n").utf8)
    file.append(contentsOf: body)
    return file
  }

  /// FNV-1a (64 bits) of `bytes`, as 16 hex digits: enough to tell a torn or altered file.
  static func checksum(_ bytes: some Collection<UInt8>) -> String {
    StableHash(bytes).hexDigits
  }

  // MARK: - Decoding

  /// The record in `bytes`, checked whole before anything is returned.
  /// - Throws: ``RecoveryFileProblem``: truncated, damaged, or from a newer version.
  static func decode(_ bytes: [UInt8]) throws(RecoveryFileProblem) -> RecoveryRecord {
    guard let newline = bytes.firstIndex(of: 0x0A) else {
      throw bytes.isEmpty
        ? .truncated(expected: 1, found: 0) : .damaged(reason: "no header line")
    }
    let header: MiniJSON.Value
    do {
      header = try MiniJSON.parse(bytes[..<newline])
    } catch {
      throw .damaged(reason: "the header line: \(error.reason)")
    }
    guard header["format"]?.string == formatName else {
      throw .damaged(reason: "not a docsh recovery file")
    }
    guard let version = header["version"]?.integer, version >= 1 else {
      throw .damaged(reason: "no format version")
    }
    if version > self.version { throw .newerVersion(Int(version), supported: self.version) }
    guard let length = header["length"]?.integer, length >= 0,
      let sum = header["checksum"]?.string
    else { throw .damaged(reason: "no length or checksum") }
    let body = bytes[(newline + 1)...]
    if body.count < length { throw .truncated(expected: Int(length), found: body.count) }
    if body.count > length { throw .damaged(reason: "bytes after the end") }
    guard checksum(body) == sum else { throw .damaged(reason: "the checksum does not match") }
    do {
      return try record(from: MiniJSON.parse(body))
    } catch {
      throw .damaged(reason: error.reason)
    }
  }

  private static func record(from body: MiniJSON.Value) throws(MiniJSON.Failure) -> RecoveryRecord {
    func fail(_ reason: String) -> MiniJSON.Failure { MiniJSON.Failure(reason: reason) }
    func id(_ value: MiniJSON.Value?, _ what: String) throws(MiniJSON.Failure) -> ObjectID {
      guard let text = value?.string, let id = ObjectID(text) else { throw fail("bad \(what)") }
      return id
    }
    func name(_ value: MiniJSON.Value?) throws(MiniJSON.Failure) -> Name {
      guard let text = value?.string else { throw fail("a name is missing") }
      do {
        return try Name(text)
      } catch {
        throw fail("bad name \(text.debugDescription): \(error)")
      }
    }
    func time(_ value: MiniJSON.Value?, _ what: String) throws(MiniJSON.Failure) -> Timestamp {
      guard let text = value?.string, let time = Timestamp(iso8601: text) else {
        throw fail("bad \(what)")
      }
      return time
    }
    guard let store = body["store"]?.string, let generation = body["generation"]?.integer,
      let pid = body["pid"]?.integer, let processID = Int32(exactly: pid),
      let categoryValues = body["categories"]?.array, let changeValues = body["changes"]?.array
    else { throw fail("a field is missing") }
    var categories: [ObjectID: CategoryRecord] = [:]
    for value in categoryValues {
      let categoryID = try id(value["id"], "category id")
      guard categories[categoryID] == nil else { throw fail("a category twice") }
      categories[categoryID] = CategoryRecord(
        category: Category(id: categoryID, name: try name(value["name"])), sequence: 0)
    }
    func state(_ value: MiniJSON.Value?, of objectID: ObjectID) throws(MiniJSON.Failure)
      -> ObjectState?
    {
      guard let value, !value.isNull else { return nil }
      switch value["kind"]?.string {
      case "category":
        return .category(
          CategoryRecord(
            category: Category(id: objectID, name: try name(value["name"])), sequence: 0))
      case "document":
        let categoryID = try id(value["category"], "category of a document")
        guard categories[categoryID] != nil else { throw fail("a document in an unknown category") }
        guard let content = value["content"]?.string else { throw fail("a content is missing") }
        guard let tags = RecoveryFileFormat.tags(value["tags"]) else { throw fail("bad tag") }
        let document = Document(
          id: objectID, name: try name(value["name"]), categoryID: categoryID,
          size: content.utf8.count, modified: try time(value["modified"], "modification time"),
          tags: tags)
        return .document(
          DocumentRecord(document: document, content: .text(content), location: nil, sequence: 0))
      default:
        throw fail("an object of unknown kind")
      }
    }
    var changes: [PendingChanges.Change] = []
    var seen = Set<ObjectID>()
    for value in changeValues {
      let changeID = try id(value["id"], "object id")
      guard seen.insert(changeID).inserted else { throw fail("an object changed twice") }
      let base = try state(value["base"], of: changeID)
      let mine = try state(value["mine"], of: changeID)
      switch (base, mine) {
      case (nil, nil): throw fail("a change of nothing")
      case (.category?, .document?), (.document?, .category?):
        throw fail("an object that changed kind")
      default: break
      }
      changes.append(PendingChanges.Change(id: changeID, base: base, mine: mine))
    }
    return RecoveryRecord(
      storeIdentity: store, processID: processID,
      started: try time(body["started"], "start time"),
      written: try time(body["written"], "write time"),
      pending: PendingChanges(generation: Int(generation), changes: changes, categories: categories)
    )
  }
}

// MARK: - A small JSON reader

/// Just enough JSON for the recovery file: objects, arrays, strings, integers, `null`,
/// `true` and `false`, nested at most ``maximumDepth`` deep. Strings are decoded by the
/// store's own literal decoder.
enum MiniJSON {
  static let maximumDepth = 16

  indirect enum Value: Equatable {
    case object([String: Value])
    case array([Value])
    case string(String)
    case integer(Int64)
    case boolean(Bool)
    case null

    subscript(key: String) -> Value? {
      if case .object(let members) = self { return members[key] }
      return nil
    }
    var string: String? { if case .string(let text) = self { return text } else { return nil } }
    var integer: Int64? { if case .integer(let value) = self { return value } else { return nil } }
    var array: [Value]? { if case .array(let items) = self { return items } else { return nil } }
    var isNull: Bool { self == .null }
  }

  struct Failure: Error {
    var reason: String
  }

  /// The one value `bytes` hold, with nothing but blanks around it.
  static func parse(_ bytes: ArraySlice<UInt8>) throws(Failure) -> Value {
    var parser = Parser(bytes: bytes, position: bytes.startIndex)
    let value = try parser.value(depth: 0)
    parser.skipBlanks()
    guard parser.position == bytes.endIndex else { throw Failure(reason: "bytes after the value") }
    return value
  }

  private struct Parser {
    let bytes: ArraySlice<UInt8>
    var position: Int

    mutating func skipBlanks() {
      while position < bytes.endIndex, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) {
        position += 1
      }
    }

    mutating func expect(_ byte: UInt8) throws(Failure) {
      skipBlanks()
      guard position < bytes.endIndex, bytes[position] == byte else {
        throw Failure(reason: "expected '\(Character(Unicode.Scalar(byte)))' at byte \(position)")
      }
      position += 1
    }

    mutating func peek() -> UInt8? {
      skipBlanks()
      return position < bytes.endIndex ? bytes[position] : nil
    }

    mutating func value(depth: Int) throws(Failure) -> Value {
      guard depth < MiniJSON.maximumDepth else { throw Failure(reason: "nested too deep") }
      switch peek() {
      case UInt8(ascii: "{"):
        position += 1
        var members: [String: Value] = [:]
        if peek() == UInt8(ascii: "}") {
          position += 1
          return .object(members)
        }
        while true {
          guard peek() == UInt8(ascii: "\"") else { throw Failure(reason: "expected a key") }
          let key = try string()
          try expect(UInt8(ascii: ":"))
          guard members[key] == nil else { throw Failure(reason: "the key \(key) twice") }
          members[key] = try value(depth: depth + 1)
          if peek() == UInt8(ascii: ",") {
            position += 1
            continue
          }
          try expect(UInt8(ascii: "}"))
          return .object(members)
        }
      case UInt8(ascii: "["):
        position += 1
        var items: [Value] = []
        if peek() == UInt8(ascii: "]") {
          position += 1
          return .array(items)
        }
        while true {
          items.append(try value(depth: depth + 1))
          if peek() == UInt8(ascii: ",") {
            position += 1
            continue
          }
          try expect(UInt8(ascii: "]"))
          return .array(items)
        }
      case UInt8(ascii: "\""):
        return .string(try string())
      case let byte? where byte == UInt8(ascii: "-") || (48...57).contains(byte):
        return .integer(try integer())
      case UInt8(ascii: "n"): return try word("null", .null)
      case UInt8(ascii: "t"): return try word("true", .boolean(true))
      case UInt8(ascii: "f"): return try word("false", .boolean(false))
      default:
        throw Failure(reason: "expected a value at byte \(position)")
      }
    }

    mutating func word(_ text: String, _ value: Value) throws(Failure) -> Value {
      let spelled = Array(text.utf8)
      guard bytes.endIndex - position >= spelled.count,
        Array(bytes[position..<(position + spelled.count)]) == spelled
      else { throw Failure(reason: "expected a value at byte \(position)") }
      position += spelled.count
      return value
    }

    mutating func integer() throws(Failure) -> Int64 {
      let start = position
      var negative = false
      if bytes[position] == UInt8(ascii: "-") {
        negative = true
        position += 1
      }
      var value: Int64 = 0
      var digits = 0
      while position < bytes.endIndex,
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
      {
        let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times.addingReportingOverflow(Int64(bytes[position] - 48))
        guard !overflow1, !overflow2 else { throw Failure(reason: "a number too large") }
        value = sum
        digits += 1
        position += 1
      }
      guard digits > 0 else { throw Failure(reason: "a bad number at byte \(start)") }
      if position < bytes.endIndex,
        [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")]
          .contains(bytes[position])
      {
        throw Failure(reason: "a number that is not an integer at byte \(start)")
      }
      return negative ? -value : value
    }

    /// The string literal at `position` (its opening quote), decoded.
    mutating func string() throws(Failure) -> String {
      let start = position
      position += 1
      while position < bytes.endIndex {
        switch bytes[position] {
        case UInt8(ascii: "\\"):
          position += 2
        case UInt8(ascii: "\""):
          position += 1
          let decoded = bytes[start..<position].withUnsafeBytes { raw in
            Result { () throws(JSONTextError) in try JSONText.decodeLiteral(raw) }
          }
          switch decoded {
          case .success(let text): return text
          case .failure(let error):
            throw Failure(reason: "a bad string at byte \(start + error.offset): \(error.reason)")
          }
        default:
          position += 1
        }
      }
      throw Failure(reason: "a string that does not end")
    }
  }
}
