import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

@Suite struct FaultInjectionTests {
  /// A store at generation 2 (so it has a backup) with three categories of five documents,
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

  @Test(arguments: [ENOSPC, EIO, EROFS, EACCES])
  func aSaveFailingAtAnyCallLeavesTheStoreAsItWas(code: Int32) throws {
    var number = 1
    var failedSaves = 0
    while true {
      let scenario = try Scenario("fault\(code)at\(number)")
      let context = scenario.context
      let fileSystem = scenario.fileSystem
      let expected = try snapshot(of: context)
      let openBefore = fileSystem.openDescriptors
      fileSystem.arm(.call(number), code: code)
      let result = Result { () throws(ContextError) in try context.save() }
      fileSystem.disarm()
      guard let injected = fileSystem.injected else {
        // The save made fewer calls than `number`: it completed untouched. Done.
        #expect(throws: Never.self) { try result.get() }
        #expect(try snapshot(of: scenario.harness.openContext()) == expected)
        break
      }
      let where_ = "errno \(code) at call \(number) (\(injected))"
      #expect(
        fileSystem.badCloses.isEmpty,
        "\(where_): closed descriptors that were not open \(fileSystem.badCloses)")
      #expect(
        try scenario.harness.folder.temporaryEntries().isEmpty, "\(where_): temporary files left")
      switch result {
      case .failure(let error):
        failedSaves += 1
        guard case .store(.system(let path, _, let errno)) = error else {
          Issue.record("\(where_): expected a system error, got \(error)")
          break
        }
        #expect(path == scenario.harness.storePath, "\(where_)")
        #expect(errno == code, "\(where_)")
        #expect(
          try bytes(at: scenario.harness.storePath) == scenario.oldBytes,
          "\(where_): the store changed")
        #expect(context.hasChanges, "\(where_): the changes were dropped")
        #expect(context.generation == 2, "\(where_)")
        #expect(fileSystem.openDescriptors == openBefore, "\(where_): descriptors leaked")
        // The same context saves once the file system works again.
        try context.save()
        #expect(context.generation == 3, "\(where_)")
        #expect(try snapshot(of: scenario.harness.openContext()) == expected, "\(where_): retry")
        #expect(try snapshot(of: context) == expected, "\(where_): same context after retry")
        let left = try scenario.harness.folder.temporaryEntries()
        #expect(left.isEmpty, "\(where_): temporary files left after retry: \(left)")
      case .success:
        // Only the unlock and the closes after the new file is in place (closing lets go of
        // the lock all the same), the reads of old contents that
        // change tracking makes (an unreadable old content counts as changed) and the
        // clean-up of the backup's temporary name (gone already after its rename) may fail
        // without failing the save.
        #expect(
          injected.hasPrefix("close") || injected.hasPrefix("unlock")
            || injected.hasPrefix("pread") || injected.hasPrefix("unlink .store.json.bak."),
          "\(where_): a failed \(injected) must fail the save")
        #expect(try snapshot(of: scenario.harness.openContext()) == expected, "\(where_)")
      }
      number += 1
    }
    // The save makes a good number of calls, and most of them can fail it.
    #expect(number > 15)
    #expect(failedSaves > 10)
  }

  @Test(arguments: [1, 2])
  func anFsyncFailureIsAFailedSave(occurrence: Int) throws {
    // The first fsync is the new file's, the second the folder's after the rename.
    let scenario = try Scenario("fsync\(occurrence)")
    scenario.fileSystem.arm(.operation("fsync", occurrence: occurrence), code: EIO)
    let error = #expect(throws: ContextError.self) { try scenario.context.save() }
    scenario.fileSystem.disarm()
    guard case .store(let storeError)? = error else {
      Issue.record("expected a store error, got \(String(describing: error))")
      return
    }
    #expect(storeError == .system(scenario.harness.storePath, operation: "fsync", errno: EIO))
    #expect(
      storeError.description == "\(scenario.harness.storePath): fsync failed: Input/output error")
    #expect(try bytes(at: scenario.harness.storePath) == scenario.oldBytes)
    #expect(try scenario.harness.folder.temporaryEntries().isEmpty)
    #expect(scenario.context.hasChanges)
    #expect(try scenario.harness.openContext().generation == 2)
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
    // The lock file exists already; creating the temporary file is where a read-only
    // folder refuses.
    scenario.fileSystem.arm(.operation("openat", occurrence: 2), code: code)
    let error = #expect(throws: ContextError.self) { try scenario.context.save() }
    scenario.fileSystem.disarm()
    #expect(scenario.fileSystem.injected?.hasPrefix("openat .store.json.") == true)
    #expect(error?.description == "\(scenario.harness.storePath): open failed: \(message)")
    #expect(try bytes(at: scenario.harness.storePath) == scenario.oldBytes)
    #expect(try scenario.harness.folder.temporaryEntries().isEmpty)
    #expect(scenario.context.hasChanges)
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
    let error = #expect(throws: ContextError.self) { try context.save() }
    #expect(error?.description.hasPrefix("\(harness.storePath): open failed:") == true)
    #expect(try bytes(at: harness.storePath) == old)
    #expect(context.hasChanges)
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
    let scenario = try Scenario("shortcopy")
    let harness = scenario.harness
    let context = try Context(
      store: JSONStore(path: harness.storePath, fileSystem: Shrinking(scenario.fileSystem)),
      clock: harness.clock.now, makeID: SequentialIDs(after: 1000).make)
    try context.createCategory(named: "Another")
    let error = #expect(throws: ContextError.self) { try context.save() }
    #expect(error?.description.contains("Input/output error") == true)
    #expect(try bytes(at: harness.storePath) == scenario.oldBytes)
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
