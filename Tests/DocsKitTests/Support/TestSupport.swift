import Foundation
import Testing

@testable import DocsKit

// MARK: - Injected clock and identities

/// A clock that never reads the system time: reading n returns `start + n × 1.001 s`, so every
/// reading is distinct, has milliseconds, and tests can say exactly which reading a date is.
final class TestClock {
  static let start: Int64 = 1_800_000_000_123
  private(set) var readings = 0

  func now() -> Timestamp {
    readings += 1
    return TestClock.reading(readings)
  }

  /// The value of reading `number` (counting from 1).
  static func reading(_ number: Int) -> Timestamp {
    Timestamp(millisecondsSince1970: start + Int64(number) * 1_001)
  }
}

/// Identities 1, 2, 3 … in the order objects are made.
final class SequentialIDs {
  private var next: UInt64

  /// Starts after `number`: the first identity made is `number + 1`.
  init(after number: UInt64 = 0) {
    next = number
  }

  func make() -> ObjectID {
    next += 1
    return SequentialIDs.id(next)
  }

  static func id(_ number: UInt64) -> ObjectID {
    ObjectID(high: 0x0000_0000_0000_4000, low: 0x8000_0000_0000_0000 | number)
  }
}

// MARK: - Folders and files

/// A unique folder under the system's temporary folder, removed when the value goes away.
final class TemporaryFolder {
  let url: URL

  init(_ label: String = "test") throws {
    let safe = label.filter { $0.isLetter || $0.isNumber }.prefix(40)
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("docskit-\(safe)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    // Put back write permission on anything a test locked down, then remove it all.
    chmod(url.path, 0o700)
    try? FileManager.default.removeItem(at: url)
  }

  var path: String { url.path }

  func path(_ name: String) -> String { url.appendingPathComponent(name).path }

  /// The names in the folder, sorted.
  func entries() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
  }

  /// Names left by a save in progress: `.NAME.*` (temp files, backups being linked).
  func temporaryEntries(of storeName: String = "store.json") throws -> [String] {
    try entries().filter { $0.hasPrefix("." + storeName + ".") }
  }
}

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

/// A store that keeps nothing: loads empty, counts saves. For tests of the graph alone.
final class MemoryStore: DocumentStore {
  private(set) var saves: [[CategoryToSave]] = []
  var displayName: String { "memory" }

  func load() throws(StoreError) -> LoadedGraph { .empty }

  func readContent(at location: StoredLocation) throws(StoreError) -> String {
    throw .invalidStore("memory", reason: "no content at \(location.offset)")
  }

  func check() -> StoreCheckReport { StoreCheckReport(path: "memory") }

  func withSaveLock<Result>(_ body: () throws -> Result) throws -> Result { try body() }

  func withEncodedContents(
    at locations: [StoredLocation], _ visit: (Int, UnsafeRawBufferPointer) throws -> Void
  ) throws {
    if let first = locations.first { _ = try readContent(at: first) }
  }

  func save(_ categories: [CategoryToSave]) throws(StoreError) -> SaveReceipt {
    saves.append(categories)
    return SaveReceipt(generation: saves.count, locations: [:])
  }
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

// MARK: - Seeded randomness

/// SplitMix64: a small seeded generator, so a failing random case can be replayed.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

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
