import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

@Suite struct FaultInjectionTests {
  /// A store at generation 2 (its second save in its log) with three categories of five documents,
  /// opened through a fault injector, with pending changes of every kind: a content set, a
  /// document renamed and one moved without their contents being read, one deleted from the
  /// middle of a run, a new document and category, a renamed category.
  struct Scenario {
    let harness: Harness
    let fileSystem = FaultInjectingFileSystem()
    let context: Context
    let oldBytes: [UInt8]

    init(_ label: String) throws {
      harness = try Harness(label)
      let setup = try harness.openContext()
      var categories: [Category] = []
      for c in 0..<3 {
        let category = try setup.createCategory(named: "cat \(c)")
        categories.append(category)
        for d in 0..<5 {
          try setup.createDocument(
            named: "doc \(d)", in: category.id, content: "content \(c).\(d) \"é\" \\ 👍🏽\n")
        }
      }
      try setup.save()
      try setup.createDocument(named: "second", in: categories[0].id, content: "second save")
      try setup.save()

      let context = try harness.openContext(fileSystem: fileSystem)
      self.context = context
      let documents = try categories.map { try context.documents(in: $0.id) }
      try context.setContent("changed", of: documents[0][1].id)
      try context.renameDocument(documents[1][0].id, to: "renamed")
      try context.moveDocument(documents[1][3].id, to: categories[2].id, renamingTo: "moved")
      try context.deleteDocument(documents[2][2].id)
      try context.createDocument(named: "new", in: categories[2].id, content: "new \u{0} content")
      try context.createCategory(named: "new category")
      try context.renameCategory(categories[0].id, to: "first")
      oldBytes = try bytes(at: harness.storePath)
    }
  }

  /// What a fault sweep does through the injector: a save (an append to the save log), or a
  /// fold of the log into the file (the scenario's pending changes saved first).
  enum Operation: String, CaseIterable, Sendable {
    case append, fold

    /// The generation of the store before it, and after it.
    var generations: (before: Int, after: Int) { self == .append ? (2, 3) : (3, 3) }

    func prepare(_ scenario: Scenario) throws {
      if self == .fold { try scenario.context.save() }
    }

    func run(on context: Context) throws(ContextError) {
      switch self {
      case .append: try context.save()
      case .fold: try context.foldSaveLog()
      }
    }
  }

  @Test(arguments: [ENOSPC, EIO, EROFS, EACCES], Operation.allCases)
  func aSaveOrFoldFailingAtAnyCallLeavesTheStoreAsItWas(code: Int32, operation: Operation) throws {
    var number = 1
    var failures = 0
    while true {
      let scenario = try Scenario("fault\(code)\(operation)at\(number)")
      try operation.prepare(scenario)
      let context = scenario.context
      let fileSystem = scenario.fileSystem
      let expected = try snapshot(of: context)
      let saved = try snapshot(of: scenario.harness.openContext())
      let files = try StoreFiles(scenario.harness)
      let openBefore = fileSystem.openDescriptors
      fileSystem.arm(.call(number), code: code)
      let result = Result { () throws(ContextError) in try operation.run(on: context) }
      fileSystem.disarm()
      guard let injected = fileSystem.injected else {
        // The work made fewer calls than `number`: it completed untouched. Done.
        #expect(throws: Never.self) { try result.get() }
        #expect(try snapshot(of: scenario.harness.openContext()) == expected)
        break
      }
      let where_ = "\(operation): errno \(code) at call \(number) (\(injected))"
      #expect(
        fileSystem.badCloses.isEmpty,
        "\(where_): closed descriptors that were not open \(fileSystem.badCloses)")
      #expect(
        try scenario.harness.folder.temporaryEntries().isEmpty, "\(where_): temporary files left")
      switch result {
      case .failure(let error):
        failures += 1
        guard case .store(.system(let path, _, let errno)) = error else {
          Issue.record("\(where_): expected a system error, got \(error)")
          break
        }
        #expect(
          [scenario.harness.storePath, scenario.harness.storePath + ".wal"].contains(path),
          "\(where_)")
        #expect(errno == code, "\(where_)")
        try files.expectUnchanged(
          in: scenario.harness, where_, allowingFoldMark: operation == .fold)
        #expect(try snapshot(of: scenario.harness.openContext()) == saved, "\(where_): reread")
        #expect(
          try context.hasChanges == (operation == .append), "\(where_): the changes were dropped")
        #expect(context.generation == operation.generations.before, "\(where_)")
        #expect(fileSystem.openDescriptors == openBefore, "\(where_): descriptors leaked")
        // The same context succeeds once the file system works again.
        try operation.run(on: context)
        #expect(context.generation == operation.generations.after, "\(where_)")
        #expect(try snapshot(of: scenario.harness.openContext()) == expected, "\(where_): retry")
        #expect(try snapshot(of: context) == expected, "\(where_): same context after retry")
        let left = try scenario.harness.folder.temporaryEntries()
        #expect(left.isEmpty, "\(where_): temporary files left after retry: \(left)")
      case .success:
        // Only the unlock and the closes (closing lets go of the lock all the same), reads
        // of contents the work does not depend on, the clean-up of the backup's temporary name (gone already after its
        // rename) and emptying the folded log (marked as folded already, so read as empty)
        // may fail without failing the work.
        #expect(
          injected.hasPrefix("close") || injected.hasPrefix("unlock")
            || injected.hasPrefix("pread") || injected.hasPrefix("unlink .store.json.bak.")
            || (operation == .fold && injected.hasPrefix("ftruncate")),
          "\(where_): a failed \(injected) must fail the work")
        #expect(try snapshot(of: scenario.harness.openContext()) == expected, "\(where_)")
      }
      number += 1
    }
    // The work makes a good number of calls, and most of them can fail it.
    #expect(number > 8)
    #expect(failures > 5)
  }

  /// The store file and its save log as they were before a failure.
  struct StoreFiles {
    var store: [UInt8]
    var log: [UInt8]?

    init(_ harness: Harness) throws {
      store = try bytes(at: harness.storePath)
      log = try? bytes(at: harness.storePath + ".wal")
    }

    /// Expects both as they were: the log may end with a record marking a fold that did not
    /// finish (no reader applies it), when `allowingFoldMark`.
    func expectUnchanged(
      in harness: Harness, _ comment: String, allowingFoldMark: Bool
    ) throws {
      #expect(try bytes(at: harness.storePath) == store, "\(comment): the store file changed")
      let now = try? bytes(at: harness.storePath + ".wal")
      if allowingFoldMark, let log, let now, now.count > log.count {
        #expect(Array(now.prefix(log.count)) == log, "\(comment): the log changed")
        #expect(
          String(decoding: now.dropFirst(log.count), as: UTF8.self).contains("\"folded-into\""),
          "\(comment): the log grew by more than a fold's mark")
      } else {
        #expect(now == log, "\(comment): the log changed")
      }
    }
  }

  @Test(arguments: [(Operation.append, 1), (.fold, 1), (.fold, 2)] as [(Operation, Int)])
  func anFsyncFailureIsAFailedSave(operation: Operation, occurrence: Int) throws {
    // An append syncs the log once; a fold syncs its new file, then the log's fold mark.
    let scenario = try Scenario("fsync\(operation)\(occurrence)")
    try operation.prepare(scenario)
    let files = try StoreFiles(scenario.harness)
    scenario.fileSystem.arm(.operation("fsync", occurrence: occurrence), code: EIO)
    let error = #expect(throws: ContextError.self) { try operation.run(on: scenario.context) }
    scenario.fileSystem.disarm()
    guard case .store(let storeError)? = error else {
      Issue.record("expected a store error, got \(String(describing: error))")
      return
    }
    let path =
      operation == .append || occurrence == 2
      ? scenario.harness.storePath + ".wal" : scenario.harness.storePath
    #expect(storeError == .system(path, operation: "fsync", errno: EIO))
    #expect(storeError.description == "\(path): fsync failed: Input/output error")
    try files.expectUnchanged(in: scenario.harness, "fsync", allowingFoldMark: operation == .fold)
    #expect(try scenario.harness.folder.temporaryEntries().isEmpty)
    #expect(try scenario.context.hasChanges == (operation == .append))
    #expect(try scenario.harness.openContext().generation == operation.generations.before)
    #expect(scenario.fileSystem.badCloses.isEmpty)
  }

  @Test func aFolderFsyncFailureOnTheFirstSaveLeavesNoStore() throws {
    let harness = try Harness()
    let fileSystem = FaultInjectingFileSystem()
    let context = try harness.openContext(fileSystem: fileSystem)
    try context.createCategory(named: "Work")
    fileSystem.arm(.operation("fsync", occurrence: 2), code: EIO)
    #expect(throws: ContextError.self) { try context.save() }
    fileSystem.disarm()
    #expect(!FileManager.default.fileExists(atPath: harness.storePath))
    #expect(try harness.folder.temporaryEntries().isEmpty)
    try context.save()
    #expect(try harness.openContext().category(named: "work") != nil)
  }

  @Test(
    arguments: [(EROFS, "Read-only file system"), (EACCES, "Permission denied")]
      as [(Int32, String)])
  func aReadOnlyFolderIsReportedAndChangesNothing(code: Int32, message: String) throws {
    let scenario = try Scenario("readonly\(code)")
    try scenario.context.save()
    let files = try StoreFiles(scenario.harness)
    // The lock file exists already; creating the temporary file is where a read-only
    // folder refuses a fold.
    scenario.fileSystem.arm(.operation("openat", occurrence: 2), code: code)
    let error = #expect(throws: ContextError.self) { try scenario.context.foldSaveLog() }
    scenario.fileSystem.disarm()
    #expect(scenario.fileSystem.injected?.hasPrefix("openat .store.json.") == true)
    #expect(error?.description == "\(scenario.harness.storePath): open failed: \(message)")
    try files.expectUnchanged(in: scenario.harness, "read-only", allowingFoldMark: false)
    #expect(try scenario.harness.folder.temporaryEntries().isEmpty)
  }

  /// A folder nobody may write into: mode 0500, and for root (whom permission bits do not
  /// stop) the immutable attribute as well.
  @Test func aReallyReadOnlyFolderIsReportedAndChangesNothing() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    try context.createCategory(named: "Work")
    try context.save()
    try context.createCategory(named: "Home")
    let old = try bytes(at: harness.storePath)
    #expect(chmod(harness.folder.path, 0o500) == 0)
    defer { chmod(harness.folder.path, 0o700) }
    if geteuid() == 0 {
      try #require(
        try changeAttributes("+i", of: harness.folder.path),
        "chattr +i is needed to make a folder read-only for root")
    }
    defer { if geteuid() == 0 { _ = try? changeAttributes("-i", of: harness.folder.path) } }
    // The save has no log to append to yet, and the folder cannot hold a new one.
    let error = #expect(throws: ContextError.self) { try context.save() }
    #expect(error?.description.hasPrefix("\(harness.storePath).wal: open failed:") == true)
    #expect(try bytes(at: harness.storePath) == old)
    #expect(!FileManager.default.fileExists(atPath: harness.storePath + ".wal"))
    #expect(try context.hasChanges)
  }

  /// A save log made while the folder could be written, then a folder nobody may write
  /// into: saves still append (the log is a file that can be written), the fold that would
  /// write the store file anew cannot, and says so; nothing is lost either way.
  @Test func aLogInAFolderThatBecameReadOnlyTakesSavesButCannotBeFolded() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    try context.createCategory(named: "Work")
    try context.save()
    try context.createCategory(named: "Home")
    try context.save()
    #expect(chmod(harness.folder.path, 0o500) == 0)
    defer { chmod(harness.folder.path, 0o700) }
    if geteuid() == 0 {
      try #require(
        try changeAttributes("+i", of: harness.folder.path),
        "chattr +i is needed to make a folder read-only for root")
    }
    defer { if geteuid() == 0 { _ = try? changeAttributes("-i", of: harness.folder.path) } }
    try context.createCategory(named: "Later")
    try context.save()
    let error = #expect(throws: ContextError.self) { try context.foldSaveLog() }
    #expect(error?.description.hasPrefix("\(harness.storePath): open failed:") == true)
    #expect(
      Set(try harness.openContext().categories().map(\.name.text)) == ["Work", "Home", "Later"])
  }

  /// Runs `chattr FLAG PATH`; whether it worked.
  private func changeAttributes(_ flag: String, of path: String) throws -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
    process.arguments = [flag, path]
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus == 0
  }

  @Test func aShortCopyFromTheOldFileFailsTheSave() throws {
    // sendfile returning 0 (the old file shrank under us) must not write a short store.
    var scenario: Scenario? = try Scenario("shortcopy")
    let harness = try #require(scenario).harness
    let fileSystem = try #require(scenario).fileSystem
    scenario = nil  // its session leaves: a fold waits for the others to leave
    let context = try Context(
      store: JSONStore(path: harness.storePath, fileSystem: Shrinking(fileSystem)),
      clock: harness.clock.now, makeID: SequentialIDs(after: 1000).make)
    // Only a fold copies from the old file: the save of what is pending appends.
    try context.createCategory(named: "Another")
    try context.save()
    let files = try StoreFiles(harness)
    let error = #expect(throws: ContextError.self) { try context.foldSaveLog() }
    #expect(error?.description.contains("Input/output error") == true)
    try files.expectUnchanged(in: harness, "short copy", allowingFoldMark: false)
    #expect(try harness.folder.temporaryEntries().isEmpty)
  }
}

/// Passes everything on, except that copies from the old file copy nothing, as when the
/// old file shrank under the save.
private final class Shrinking: FileSystem {
  let inner: FaultInjectingFileSystem
  init(_ inner: FaultInjectingFileSystem) { self.inner = inner }
  func open(_ p: String, flags: Int32, mode: UInt32) throws(SystemCallError) -> Int32 {
    try inner.open(p, flags: flags, mode: mode)
  }
  func open(at d: Int32, _ n: String, flags: Int32, mode: UInt32) throws(SystemCallError) -> Int32 {
    try inner.open(at: d, n, flags: flags, mode: mode)
  }
  func read(_ f: Int32, into b: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
    try inner.read(f, into: b)
  }
  func read(_ f: Int32, into b: UnsafeMutableRawBufferPointer, at o: Int) throws(SystemCallError)
    -> Int
  { try inner.read(f, into: b, at: o) }
  func write(_ f: Int32, from b: UnsafeRawBufferPointer) throws(SystemCallError) -> Int {
    try inner.write(f, from: b)
  }
  func write(_ f: Int32, from b: UnsafeRawBufferPointer, at o: Int) throws(SystemCallError) -> Int {
    try inner.write(f, from: b, at: o)
  }
  func truncate(_ f: Int32, to l: Int) throws(SystemCallError) { try inner.truncate(f, to: l) }
  func copy(from s: Int32, at o: Int, to d: Int32, count: Int) throws(SystemCallError) -> Int { 0 }
  func synchronize(_ f: Int32) throws(SystemCallError) { try inner.synchronize(f) }
  func setPermissions(_ f: Int32, _ m: UInt32) throws(SystemCallError) {
    try inner.setPermissions(f, m)
  }
  func status(of f: Int32) throws(SystemCallError) -> FileStatus { try inner.status(of: f) }
  func status(at d: Int32, _ n: String) throws(SystemCallError) -> FileStatus? {
    try inner.status(at: d, n)
  }
  func rename(at d: Int32, _ s: String, to t: String) throws(SystemCallError) {
    try inner.rename(at: d, s, to: t)
  }
  func link(at d: Int32, _ s: String, to t: String) throws(SystemCallError) {
    try inner.link(at: d, s, to: t)
  }
  func unlink(at d: Int32, _ n: String) throws(SystemCallError) { try inner.unlink(at: d, n) }
  func makeDirectory(_ p: String, mode: UInt32) throws(SystemCallError) {
    try inner.makeDirectory(p, mode: mode)
  }
  func lockExclusively(_ f: Int32) throws(SystemCallError) -> Bool { try inner.lockExclusively(f) }
  func lockShared(_ f: Int32) throws(SystemCallError) -> Bool { try inner.lockShared(f) }
  func unlock(_ f: Int32) throws(SystemCallError) { try inner.unlock(f) }
  func close(_ f: Int32) throws(SystemCallError) { try inner.close(f) }
  func linkTarget(of p: String) throws(SystemCallError) -> String? { try inner.linkTarget(of: p) }
  func names(in d: Int32) throws(SystemCallError) -> [String] { try inner.names(in: d) }
  func realPath(_ p: String) throws(SystemCallError) -> String { try inner.realPath(p) }
}
