import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

// Clocks, identities, seeded randomness and temporary folders come from DocsTestSupport.

// MARK: - Files

/// The bytes of a file.
func bytes(at path: String) throws -> [UInt8] {
  try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Writes `text` to `path` as UTF-8.
func write(_ text: String, to path: String) throws {
  try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

/// `stat(2)` of a path: mode bits, inode, modification time in nanoseconds.
struct PathStatus: Equatable {
  var permissions: UInt32
  var inode: UInt64
  var modificationNanoseconds: Int64
  var size: Int
}

func status(of path: String) throws -> PathStatus {
  var raw = stat()
  guard stat(path, &raw) == 0 else {
    throw SystemCallError("stat \(path)", code: errno)
  }
  return PathStatus(
    permissions: UInt32(raw.st_mode) & 0o7777, inode: UInt64(raw.st_ino),
    modificationNanoseconds: Int64(raw.st_mtim.tv_sec) * 1_000_000_000 + Int64(raw.st_mtim.tv_nsec),
    size: Int(raw.st_size))
}

/// Parses a store file with Foundation, as any other tool would.
func jsonObject(at path: String) throws -> [String: Any] {
  let object = try JSONSerialization.jsonObject(
    with: Data(contentsOf: URL(fileURLWithPath: path)), options: [])
  return try #require(object as? [String: Any])
}

// MARK: - Contexts

/// A clock, an id generator and a folder, shared by the contexts of one test.
struct Harness {
  let folder: TemporaryFolder
  let clock = TestClock()
  let ids = SequentialIDs()

  init(_ label: String = #function) throws {
    folder = try TemporaryFolder(label)
  }

  var storePath: String { folder.path("store.json") }

  /// A context on a JSON store at `path` (the harness's store by default).
  func openContext(
    at path: String? = nil, fileSystem: any FileSystem = SystemFileSystem()
  ) throws -> Context {
    try Context(
      store: JSONStore(path: path ?? storePath, fileSystem: fileSystem), clock: clock.now,
      makeID: ids.make)
  }

  /// A context on an existing store object.
  func openContext(on store: any DocumentStore) throws -> Context {
    try Context(store: store, clock: clock.now, makeID: ids.make)
  }
}

/// A store that keeps nothing: loads `loaded` (empty unless a test sets it), reads the
/// contents of `contents` by offset and counts those reads, counts saves. For tests of the
/// graph alone.
final class MemoryStore: DocumentStore {
  private(set) var saves: [[CategoryToSave]] = []
  /// The graph every load hands over.
  var loaded = LoadedGraph.empty
  /// The contents faults resolve to, by the offset of their location.
  var contents: [Int: String] = [:]
  /// How many contents were read.
  private(set) var contentReads = 0
  /// Set to make every read of a content fail, as a store file gone bad would.
  var readsFail = false
  var displayName: String { "memory" }

  func load() throws(StoreError) -> LoadedGraph { loaded }

  func readContent(at location: StoredLocation) throws(StoreError) -> String {
    contentReads += 1
    guard !readsFail, let content = contents[location.offset] else {
      throw .system("memory", operation: "read", errno: EIO)
    }
    return content
  }

  func check() -> StoreCheckReport { StoreCheckReport(path: "memory") }

  func withSaveLock<Result>(
    _ body: (LockedStore) throws(StoreError) -> Result
  ) throws(StoreError) -> Result { try body(LockedStore(self)) }

  /// The generation of the last save (0 before the first).
  func currentGeneration() throws(StoreError) -> Int? { saves.count }

  /// A reader of what was saved: the graph every load hands over, as this store's.
  func makeReader() -> any StoreReading {
    let reader = MemoryStore()
    reader.loaded = loaded
    reader.contents = contents
    return reader
  }

  /// The bytes put in place of the store, by ``replaceWhole(with:_:)``.
  private(set) var replacements: [[UInt8]] = []

  func replaceWhole(with bytes: [UInt8], _ lock: LockedStore) throws(StoreError) {
    replacements.append(bytes)
  }

  func withEncodedContents<Stop: Error>(
    at locations: [StoredLocation], _ visit: (Int, UnsafeRawBufferPointer) throws(Stop) -> Void
  ) throws(EncodedContentsError<Stop>) {
    do {
      if let first = locations.first { _ = try readContent(at: first) }
    } catch {
      throw .store(error)
    }
  }

  func save(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt {
    saves.append(categories)
    return SaveReceipt(generation: saves.count, locations: [:])
  }

  // Everything else as a store without a log or an index answers it.
  var filePath: String { displayName }
  var loadWarning: String? { nil }
  func movementSinceLoad() -> StoreMovement { .none }
  var takesAppends: Bool { false }
  func append(_ delta: StoreDelta) throws(StoreError) -> SaveReceipt? { nil }
  func fold(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt {
    try save(categories)
  }
  /// No file to replace: a replacement cannot begin (only a store with a file takes one).
  func beginReplacement() throws(StoreError) -> StoreReplacement {
    throw .system("memory", operation: "replace", errno: ENOTSUP)
  }
  var logSize: (log: Int, store: Int) { (0, 0) }
  var isOnlySession: Bool { true }
  func leave() -> Bool { false }
  func markDamaged() {}
  func documents(of category: ObjectID, _ unloaded: UnloadedCategory) throws(StoreError)
    -> [StoredDocument]
  { [] }
  func unloadedCategory(holding id: ObjectID) -> ObjectID? { nil }
  func documents(
    nameContaining needle: String, in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument] { [] }
  func documents(
    taggedWith keys: [TagKey], in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument] { [] }
  func documents(
    _ lookup: DocumentLookup, in categories: [ObjectID: UnloadedCategory]
  ) throws(StoreError) -> [StoredDocument] { [] }
  func documentCount(named key: NameKey, in categories: [ObjectID: UnloadedCategory])
    throws(StoreError) -> Int
  { 0 }
  func links(to target: LinkedDocument) throws(WorkInterrupted) -> [IndexedLink]? { nil }
  func documents(linkingInto category: Name) throws(WorkInterrupted) -> [StoredDocument]? {
    nil
  }
  func search(_ request: IndexSearchRequest) throws(WorkInterrupted) -> IndexSearchResult? {
    nil
  }
  func makeSearchTokenizer() throws(SearchUnavailable) -> IndexTokenizer {
    try IndexTokenizer(library: SystemSQLite())
  }
  var indexWarning: IndexWarning? { nil }
}

/// A context on a ``MemoryStore`` with the test clock and sequential ids.
func makeMemoryContext() throws -> (Context, TestClock, MemoryStore) {
  let clock = TestClock()
  let ids = SequentialIDs()
  let store = MemoryStore()
  let context = try Context(store: store, clock: clock.now, makeID: ids.make)
  return (context, clock, store)
}

// MARK: - Whole-graph snapshots

/// Everything a context holds, in plain values, for comparing graphs.
struct GraphSnapshot: Equatable, CustomStringConvertible {
  struct Doc: Equatable {
    var id: ObjectID
    var name: String
    var categoryID: ObjectID
    var size: Int
    var modified: Timestamp
    var content: [UInt8]
  }
  struct Cat: Equatable {
    var id: ObjectID
    var name: String
    var documents: [Doc]
  }
  var categories: [Cat]

  var description: String {
    categories.map { category in
      "\(category.name) [\(category.id)]: "
        + category.documents.map {
          "\($0.name)(\($0.size), \($0.modified), \($0.content.count) bytes)"
        }
        .joined(separator: ", ")
    }.joined(separator: "\n")
  }
}

/// Reads every category and document of `context`, contents included, sorted by id.
func snapshot(of context: Context) throws -> GraphSnapshot {
  try GraphSnapshot(
    categories: context.categories().sorted { $0.id < $1.id }.map { category in
      GraphSnapshot.Cat(
        id: category.id, name: category.name.text,
        documents: try context.documents(in: category.id).sorted { $0.id < $1.id }.map { document in
          GraphSnapshot.Doc(
            id: document.id, name: document.name.text, categoryID: document.categoryID,
            size: document.size, modified: document.modified,
            content: Array(try context.content(of: document.id).utf8))
        })
    })
}

// MARK: - Writing store files by hand

/// A document as a hand-written store file holds it.
struct RawDocument {
  var id: String
  var name: String
  var content: String
  var size: Int
  var modified: String
}

/// Writes a minimal valid store file from plain values, escaping with JSONSerialization.
func storeText(
  generation: Int = 1, categories: [(id: String, name: String, documents: [RawDocument])]
) throws -> String {
  func literal(_ text: String) throws -> String {
    let data = try JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
    let array = try #require(String(data: data, encoding: .utf8))
    return String(array.dropFirst().dropLast())
  }
  var text =
    "{\"format\":\"docsh-store\",\"version\":1,\"generation\":\(generation),\"categories\":["
  text += try categories.map { category in
    let documents = try category.documents.map { document in
      "{\"id\":\"\(document.id)\",\"name\":\(try literal(document.name)),\"content\":\(try literal(document.content)),\"size\":\(document.size),\"modified\":\"\(document.modified)\"}"
    }
    return
      "{\"id\":\"\(category.id)\",\"name\":\(try literal(category.name)),\"documents\":[\(documents.joined(separator: ","))]}"
  }.joined(separator: ",")
  text += "]}\n"
  return text
}

/// The canonical text of sequential id `n`.
func idText(_ number: UInt64) -> String { SequentialIDs.id(number).description }

/// Text that is awkward for a JSON writer and reader: every escape, control characters,
/// accents in both normal forms, CJK, emoji with modifiers and joiners, separators.
enum AwkwardText {
  static let pieces: [String] = [
    "a", "Z", " ", "  ", "\n", "\r\n", "\t", "\"", "\\", "/", "\\\"", "\\\\", "\u{0}", "\u{1}",
    "\u{8}", "\u{C}", "\r", "\u{1F}", "\u{7F}", "\u{85}", "\u{A0}", "é", "e\u{301}", "Café",
    "日本語", "中文", "한국어", "😀", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "\u{2028}", "\u{2029}", "\u{FEFF}",
    "\u{202E}", "𝄞", "{", "}", "[", "]", ",", ":", "\"content\":", "null", "0", "-1", "ü",
  ]

  static func random(using generator: inout SeededGenerator, maxPieces: Int = 12) -> String {
    let count = Int.random(in: 0...maxPieces, using: &generator)
    return (0..<count).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
  }
}
