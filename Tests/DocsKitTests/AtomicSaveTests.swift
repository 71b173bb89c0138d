import Foundation
import Testing

@testable import DocsKit

@Suite struct AtomicSaveTests {
  @Test func aFoldReplacesTheFileByRenameAndTheOldInodeBecomesTheBackup() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    try context.save()
    let first = try status(of: harness.storePath)
    let firstBytes = try bytes(at: harness.storePath)
    try context.createDocument(named: "Plan", in: work.id, content: "x")
    try context.save()
    // The save went to the log: the file is as it was until the log is folded into it.
    #expect(try status(of: harness.storePath) == first)
    try context.foldSaveLog()
    let second = try status(of: harness.storePath)
    #expect(second.inode != first.inode)
    #expect(try status(of: harness.storePath + ".bak").inode == first.inode)
    #expect(try bytes(at: harness.storePath + ".bak") == firstBytes)
  }

  @Test func strayTemporaryFilesNeverBreakALoadOrASave() throws {
    let harness = try Harness()
    let strays = [
      ".store.json.abc123": "half-written garbage {\"format\":",
      ".store.json.bak.zzz": "another half-finished backup",
      ".store.json.": "",
    ]
    for (name, text) in strays { try write(text, to: harness.folder.path(name)) }
    let context = try harness.openContext()
    #expect(context.categories().isEmpty)
    let work = try context.createCategory(named: "Work")
    try context.save()
    try context.createDocument(named: "Plan", in: work.id, content: "plan")
    try context.save()
    let reloaded = try harness.openContext()
    #expect(
      try reloaded.content(of: try #require(try reloaded.document(named: "plan", in: work.id)).id)
        == "plan")
    // Names of docsh's own temporary files are what a whole write killed midway left: the
    // next whole write (under the lock) removes them. Anything else stays as it was.
    for (name, text) in strays where name == ".store.json." {
      #expect(try String(contentsOfFile: harness.folder.path(name), encoding: .utf8) == text)
    }
    #expect(!FileManager.default.fileExists(atPath: harness.folder.path(".store.json.abc123")))
    #expect(!FileManager.default.fileExists(atPath: harness.folder.path(".store.json.bak.zzz")))
    #expect(
      try harness.folder.entries().filter { !$0.hasPrefix(".") } == [
        "store.json", "store.json.lock", "store.json.sessions", "store.json.wal",
      ])
  }

  @Test func theLockFileIsASidecarThatStaysPrivate() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    try context.createCategory(named: "Work")
    try context.save()
    let lock = try status(of: harness.storePath + ".lock")
    #expect(lock.permissions == 0o600)
    #expect(lock.size == 0)
    #expect(lock.inode != (try status(of: harness.storePath)).inode)
  }

  @Test func aSaveWaitsForTheLockThenGivesUpWithoutWriting() throws {
    let harness = try Harness()
    let fileSystem = FaultInjectingFileSystem()
    let store = JSONStore(path: harness.storePath, fileSystem: fileSystem)
    store.lockWaitMilliseconds = 200
    let context = try harness.openContext(on: store)
    try context.createCategory(named: "Work")
    try context.save()
    let old = try bytes(at: harness.storePath)
    // Another process holds the lock (flock conflicts between open file descriptions, so
    // a descriptor of our own stands in for it).
    let holder = open(harness.storePath + ".lock", O_RDWR | O_CLOEXEC)
    #expect(holder >= 0)
    defer { close(holder) }
    #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)
    try context.createCategory(named: "Home")
    fileSystem.arm(nil)
    let error = #expect(throws: ContextError.self) { try context.save() }
    fileSystem.disarm()
    guard case .store(let storeError)? = error else {
      Issue.record("expected a store error, got \(String(describing: error))")
      return
    }
    #expect(storeError == .locked(harness.storePath))
    #expect(
      storeError.description
        == "\(harness.storePath): another process is saving the store right now; try again")
    // It tried again every 10 ms for the whole wait before giving up.
    #expect(fileSystem.calls.filter { $0 == "flock" }.count == 20, "\(fileSystem.calls)")
    #expect(JSONStore(path: harness.storePath).lockWaitMilliseconds == 10_000)
    #expect(try bytes(at: harness.storePath) == old)
    #expect(try context.hasChanges)
    #expect(try harness.folder.temporaryEntries().isEmpty)
    // Once the other process lets go, the save goes through.
    flock(holder, LOCK_UN)
    try context.save()
    #expect(try harness.openContext().category(named: "home") != nil)
  }

  @Test func aSaveLetsGoOfItsLockEvenWhileAChildStillHoldsACopyOfTheDescriptor() throws {
    let harness = try Harness()
    let fileSystem = FaultInjectingFileSystem()
    let store = JSONStore(path: harness.storePath, fileSystem: fileSystem)
    let context = try harness.openContext(on: store)
    // A git another thread spawns inherits every descriptor until its exec, close-on-exec
    // or not: the copy keeps the open file description, and its flock, alive.
    fileSystem.copyLockedDescriptors()
    try context.createCategory(named: "Work")
    try context.save()
    #expect(!fileSystem.state.withLock { $0.copies }.isEmpty)
    let other = open(harness.storePath + ".lock", O_RDWR | O_CLOEXEC)
    #expect(other >= 0)
    defer { close(other) }
    #expect(flock(other, LOCK_EX | LOCK_NB) == 0, "the lock outlived the save")
    fileSystem.closeCopies()
  }
}
