import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// What a sync asks of the store it was handed (``StoreWriting``), so that it never opens,
/// renames or parses the store's files itself: the generation on disk, read from the header
/// and the records' frame lines, and the whole file replaced with its log set aside.
@Suite struct StoreWritingForSyncTests {
  /// Saves a store at the harness's path whose file holds one category (generation 1, the
  /// first save writes it whole) and whose log holds `saves` saves after it, each a new
  /// document of `size` bytes.
  private func makeStoreWithLog(_ harness: Harness, saves: Int, size: Int = 100) throws {
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    try context.save()
    for number in 0..<saves {
      try context.createDocument(
        named: "d\(number)", in: work.id, content: String(repeating: "x", count: size))
      try context.save()
    }
  }

  private var logSuffix: String { ".wal" }

  @Test func theGenerationOnDiskIsReadFromTheFrameLinesNotFromTheRecords() throws {
    let harness = try Harness()
    try makeStoreWithLog(harness, saves: 40, size: 20_000)
    let logSize = try bytes(at: harness.storePath + logSuffix).count
    let fileSystem = FaultInjectingFileSystem()
    let store = JSONStore(path: harness.storePath, fileSystem: fileSystem)
    fileSystem.arm(nil)
    #expect(try store.currentGeneration() == 41)
    // A line a record and the last record's body: a small part of the log, where reading
    // its records would read all of it (800 KB) at least once.
    #expect(fileSystem.bytesRead < logSize / 4, "read \(fileSystem.bytesRead) of \(logSize)")
    #expect(try harness.openContext().generation == 41)
  }

  @Test func aTornLastRecordIsNotCountedAsALoadDoesNotApplyIt() throws {
    let harness = try Harness()
    try makeStoreWithLog(harness, saves: 3)
    let logPath = harness.storePath + logSuffix
    let whole = try bytes(at: logPath)
    #expect(try JSONStore(path: harness.storePath).currentGeneration() == 4)

    // Cut short by a crash: its body no longer fits in the file.
    try Data(whole.dropLast(5)).write(to: URL(fileURLWithPath: logPath))
    #expect(try JSONStore(path: harness.storePath).currentGeneration() == 3)
    #expect(try harness.openContext().generation == 3)

    // Whole in length, but a byte of its body changed: it fails its checksum.
    var damaged = whole
    damaged[damaged.count - 10] ^= 0x01
    try Data(damaged).write(to: URL(fileURLWithPath: logPath))
    #expect(try JSONStore(path: harness.storePath).currentGeneration() == 3)
    #expect(try harness.openContext().generation == 3)
  }

  @Test func aStoreWithNoFileHasNoGeneration() throws {
    let harness = try Harness()
    #expect(try JSONStore(path: harness.storePath).currentGeneration() == nil)
  }

  /// The bytes of a store file written whole holding one category, `Other`.
  private func otherStoreBytes() throws -> [UInt8] {
    let other = try Harness("other")
    let context = try other.openContext()
    try context.createCategory(named: "Other")
    try context.save()
    return try bytes(at: other.storePath)
  }

  /// The names in the harness's folder that start with `prefix`.
  private func names(in harness: Harness, startingWith prefix: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: splitPath(harness.storePath).folder)
      .filter { $0.hasPrefix(prefix) }
  }

  @Test func replacingTheWholeFileKeepsTheOldOneAndSetsItsLogAside() throws {
    let harness = try Harness()
    try makeStoreWithLog(harness, saves: 2)
    let oldFile = try bytes(at: harness.storePath)
    let oldLog = try bytes(at: harness.storePath + logSuffix)
    let replacement = try otherStoreBytes()
    let store = JSONStore(path: harness.storePath)
    try store.withSaveLock { lock throws(StoreError) in
      try store.replaceWhole(with: replacement, lock)
    }

    #expect(try bytes(at: harness.storePath) == replacement)
    #expect(try bytes(at: harness.storePath + ".bak") == oldFile)
    #expect(!FileManager.default.fileExists(atPath: harness.storePath + logSuffix))
    let kept = try names(in: harness, startingWith: "store.json.wal.ignored-")
    try #require(kept.count == 1)
    #expect(try bytes(at: harness.folder.path(kept[0])) == oldLog)
    let context = try harness.openContext()
    #expect(context.categories().map(\.name.text) == ["Other"])
    #expect(context.storeWarning == nil)
  }

  @Test func aLogThatCannotBeSetAsideIsAnErrorNamingItAndItStays() throws {
    // Which rename moves the log, as a replacement that succeeds makes them.
    let rehearsal = try Harness("rehearsal")
    try makeStoreWithLog(rehearsal, saves: 2)
    let watcher = FaultInjectingFileSystem()
    let watched = JSONStore(path: rehearsal.storePath, fileSystem: watcher)
    let rehearsed = try otherStoreBytes()
    watcher.arm(nil)
    try watched.withSaveLock { lock throws(StoreError) in
      try watched.replaceWhole(with: rehearsed, lock)
    }
    let renames = watcher.calls.filter { $0.hasPrefix("rename ") }
    let occurrence = try #require(renames.firstIndex { $0.hasPrefix("rename store.json.wal ") }) + 1

    let harness = try Harness()
    try makeStoreWithLog(harness, saves: 2)
    let logPath = harness.storePath + logSuffix
    let oldLog = try bytes(at: logPath)
    let replacement = try otherStoreBytes()
    let fileSystem = FaultInjectingFileSystem()
    let store = JSONStore(path: harness.storePath, fileSystem: fileSystem)
    fileSystem.arm(.operation("rename", occurrence: occurrence), code: EIO)
    let error = #expect(throws: StoreError.self) {
      try store.withSaveLock { lock throws(StoreError) in
        try store.replaceWhole(with: replacement, lock)
      }
    }
    #expect(fileSystem.injected?.hasPrefix("rename store.json.wal ") == true)
    guard case .system(let path, operation: let operation, errno: let code)? = error else {
      Issue.record("expected a failure of the rename, got \(String(describing: error))")
      return
    }
    #expect(path.hasSuffix("store.json.wal"))
    #expect(operation == "rename")
    #expect(code == EIO)
    // The new file stands; the log is where it was, whole, and extends no file there.
    #expect(try bytes(at: harness.storePath) == replacement)
    #expect(try bytes(at: logPath) == oldLog)
    #expect(try names(in: harness, startingWith: "store.json.wal.ignored-").isEmpty)
    #expect(try harness.openContext().categories().map(\.name.text) == ["Other"])
  }
}
