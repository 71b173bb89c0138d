import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// The recovery journal: its file format, its atomic writes, and taking its changes back.
@Suite struct RecoveryJournalTests {
  /// A saved store with two categories and three documents, then unsaved changes of every
  /// kind, with contents that need escaping.
  static func contextWithChangesOfEveryKind(_ harness: Harness) throws -> Context {
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    let home = try context.createCategory(named: "Home")
    let old = try context.createCategory(named: "Old")
    let plan = try context.createDocument(named: "Plan", in: work.id, content: "ship it")
    let notes = try context.createDocument(named: "Notes", in: work.id, content: "a\nb")
    let list = try context.createDocument(named: "List", in: home.id, content: "milk")
    try context.createDocument(named: "Gone", in: old.id, content: "old")
    try context.save()
    _ = try context.renameCategory(home.id, to: "House")
    _ = try context.deleteCategory(old.id)
    let later = try context.createCategory(named: "Later \"quoted\"")
    try context.createDocument(
      named: "Précis", in: later.id, content: "tab\there \"q\" \\ é 🎉 \u{1}\n")
    _ = try context.setContent("ship it now\n", of: plan.id)
    _ = try context.renameDocument(notes.id, to: "Minutes")
    _ = try context.moveDocument(list.id, to: work.id)
    return context
  }

  static func record(_ pending: PendingChanges, store: String = "/s/store.json") -> RecoveryRecord {
    RecoveryRecord(
      storeIdentity: store, processID: 4242, started: TestClock.reading(1),
      written: TestClock.reading(2), pending: pending)
  }

  @Test func aRecordRoundTripsThroughTheFormat() throws {
    let harness = try Harness()
    let context = try RecoveryJournalTests.contextWithChangesOfEveryKind(harness)
    let pending = try context.pendingChanges()
    #expect(try pending.count == context.changes().count)
    let record = RecoveryJournalTests.record(pending)
    let decoded = try RecoveryFileFormat.decode(RecoveryFileFormat.encode(record))
    #expect(decoded == record)
  }

  @Test func whatARecoveryOffersIsListedInTheWordsStatusUses() throws {
    let harness = try Harness()
    let context = try RecoveryJournalTests.contextWithChangesOfEveryKind(harness)
    // A tag and a touch, the changes `show` left out.
    let work = try #require(context.category(named: "Work"))
    let plan = try #require(try context.document(named: "Plan", in: work.id))
    _ = try context.tag([plan.id], with: [try Tag("urgent")])
    let minutes = try #require(try context.document(named: "Minutes", in: work.id))
    _ = try context.touchDocument(minutes.id)
    let house = try #require(context.category(named: "House"))
    let touchedAlone = try context.createDocument(named: "Touched", in: house.id, content: "t")
    try context.save()
    _ = try context.touchDocument(touchedAlone.id)
    _ = try context.tag([plan.id], with: [try Tag("later")])
    let offered = try context.pendingChanges().summary
    let status = try context.changes()
    #expect(offered.count == status.count)
    func properties(_ summary: ChangeSummary) -> [String: Set<DocumentProperty>] {
      Dictionary(
        uniqueKeysWithValues: summary.updatedDocuments.map {
          ($0.object.name.text, $0.properties)
        })
    }
    #expect(properties(offered) == properties(status))
    #expect(properties(offered)["Plan"] == [.tags])
    #expect(properties(offered)["Touched"] == [.modified])
  }

  @Test func recoveredChangesRebuildThePendingStateOverTheStore() throws {
    let harness = try Harness()
    let context = try RecoveryJournalTests.contextWithChangesOfEveryKind(harness)
    let bytes = RecoveryFileFormat.encode(
      RecoveryJournalTests.record(try context.pendingChanges()))
    let fresh = try harness.openContext()
    try fresh.recover(try RecoveryFileFormat.decode(bytes).pending)
    #expect(try snapshot(of: fresh) == snapshot(of: context))
    #expect(try fresh.changes().count == context.changes().count)
    #expect(fresh.conflicts.isEmpty)
    // One undo group: undo takes the whole recovery back.
    _ = try fresh.undo()
    #expect(try !fresh.hasChanges)
  }

  @Test func recoveryOverAStoreThatMovedOnKeepsBoth() throws {
    let harness = try Harness()
    let first = try harness.openContext()
    let work = try first.createCategory(named: "Work")
    try first.createDocument(named: "Plan", in: work.id, content: "v1")
    try first.save()
    // The session that will end: a new document and an edit.
    let ended = try harness.openContext()
    try ended.createDocument(named: "Mine", in: work.id, content: "mine")
    let plan = try #require(try ended.document(named: "Plan", in: work.id))
    _ = try ended.setContent("v2 mine", of: plan.id)
    let bytes = RecoveryFileFormat.encode(
      RecoveryJournalTests.record(try ended.pendingChanges()))
    // Meanwhile another session saves another document.
    try first.createDocument(named: "Theirs", in: work.id, content: "theirs")
    try first.save()

    let fresh = try harness.openContext()
    try fresh.recover(try RecoveryFileFormat.decode(bytes).pending)
    #expect(fresh.conflicts.isEmpty)
    try fresh.save()
    let reopened = try harness.openContext()
    let names = try reopened.documents(in: work.id).map(\.name.text).sorted()
    #expect(names == ["Mine", "Plan", "Theirs"])
    let savedPlan = try #require(try reopened.document(named: "Plan", in: work.id))
    #expect(try reopened.content(of: savedPlan.id) == "v2 mine")
  }

  /// A well-formed file whose changes call a document of the store a category (no session
  /// writes that) is refused whole: the graph and the store stay as they were.
  @Test func changesThatDoNotFitTheStoreAreRefusedWhole() throws {
    let harness = try Harness()
    let context = try harness.openContext()
    let work = try context.createCategory(named: "Work")
    let plan = try context.createDocument(named: "Plan", in: work.id, content: "v1")
    try context.save()
    let storeBytes = try bytes(at: harness.storePath)
    let newCategory = CategoryRecord(
      category: Category(id: plan.id, name: try Name("Clash")), sequence: 0)
    let hostile = PendingChanges(
      generation: 1,
      changes: [
        PendingChanges.Change(
          id: ObjectID(high: 1, low: 1), base: nil,
          mine: .category(
            CategoryRecord(
              category: Category(id: ObjectID(high: 1, low: 1), name: try Name("New")), sequence: 0)
          )),
        PendingChanges.Change(id: plan.id, base: nil, mine: .category(newCategory)),
      ],
      categories: [:])
    let fresh = try harness.openContext()
    let before = try snapshot(of: fresh)
    #expect(throws: ContextError.self) { try fresh.recover(hostile) }
    #expect(try snapshot(of: fresh) == before)
    #expect(try !fresh.hasChanges)
    #expect(try bytes(at: harness.storePath) == storeBytes)
  }

  @Test func everyCutShortFileIsRefused() throws {
    let harness = try Harness()
    let context = try RecoveryJournalTests.contextWithChangesOfEveryKind(harness)
    let bytes = RecoveryFileFormat.encode(
      RecoveryJournalTests.record(try context.pendingChanges()))
    for length in 0..<bytes.count {
      let problem = #expect(throws: RecoveryFileProblem.self) {
        try RecoveryFileFormat.decode(Array(bytes[..<length]))
      }
      switch problem {
      case .truncated?, .damaged?: break
      default: Issue.record("cut at \(length): \(String(describing: problem))")
      }
    }
  }

  @Test func everyChangedByteIsNoticed() throws {
    let harness = try Harness()
    let context = try RecoveryJournalTests.contextWithChangesOfEveryKind(harness)
    let bytes = RecoveryFileFormat.encode(
      RecoveryJournalTests.record(try context.pendingChanges()))
    var generator = SeededGenerator(seed: 18)
    for _ in 0..<300 {
      var damaged = bytes
      let index = Int.random(in: 0..<damaged.count, using: &generator)
      damaged[index] ^= UInt8.random(in: 1...255, using: &generator)
      #expect(throws: RecoveryFileProblem.self, "byte \(index)") {
        try RecoveryFileFormat.decode(damaged)
      }
    }
  }

  @Test(arguments: [
    ("not json\n{}", "damaged"),
    ("{\"format\":\"other\",\"version\":1}\n", "damaged"),
    ("{\"format\":\"docsh-unsaved-changes\",\"version\":2,\"length\":5}\nhello", "newer"),
    (
      "{\"format\":\"docsh-unsaved-changes\",\"version\":1,\"length\":2,\"checksum\":\"x\"}\n{}",
      "damaged"
    ),
    ("", "truncated"),
  ])
  func badFilesAreRefusedWithTheirReason(text: String, kind: String) {
    let problem = #expect(throws: RecoveryFileProblem.self) {
      try RecoveryFileFormat.decode(Array(text.utf8))
    }
    switch (problem, kind) {
    case (.damaged?, "damaged"), (.newerVersion?, "newer"), (.truncated?, "truncated"): break
    default: Issue.record("\(text.debugDescription): \(String(describing: problem))")
    }
  }

  /// A body with a valid checksum that breaks the rules (a hand-edited file) is refused whole.
  @Test(arguments: [
    #"{"store":"/s","generation":0,"pid":1,"started":"2026-01-01T00:00:00.000Z","written":"2026-01-01T00:00:00.000Z","categories":[],"changes":[{"id":"00000000-0000-4000-8000-000000000001","base":null,"mine":{"kind":"document","name":"x","category":"00000000-0000-4000-8000-000000000002","modified":"2026-01-01T00:00:00.000Z","content":""}}]}"#,
    #"{"store":"/s","generation":0,"pid":1,"started":"2026-01-01T00:00:00.000Z","written":"2026-01-01T00:00:00.000Z","categories":[],"changes":[{"id":"00000000-0000-4000-8000-000000000001","base":null,"mine":{"kind":"category","name":"a/b"}}]}"#,
    #"{"store":"/s","generation":0,"pid":1,"started":"2026-01-01T00:00:00.000Z","written":"2026-01-01T00:00:00.000Z","categories":[],"changes":[{"id":"00000000-0000-4000-8000-000000000001","base":null,"mine":null}]}"#,
    #"{"store":"/s","generation":0,"pid":1,"categories":[],"changes":[]}"#,
    #"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"#,
  ])
  func bodiesThatBreakTheRulesAreRefused(body: String) {
    let bodyBytes = Array(body.utf8)
    var file = Array(
      (#"{"format":"docsh-unsaved-changes","version":1,"length":\#(bodyBytes.count),"#
        + #""checksum":"\#(RecoveryFileFormat.checksum(bodyBytes))"}"# + "\n").utf8)
    file += bodyBytes
    let problem = #expect(throws: RecoveryFileProblem.self) {
      try RecoveryFileFormat.decode(file)
    }
    guard case .damaged? = problem else {
      Issue.record("\(String(describing: problem))")
      return
    }
  }

  // MARK: - Files beside the store

  @Test func aRunningSessionsJournalIsNotOfferedAnEndedOnesIs() throws {
    let harness = try Harness()
    let context = try RecoveryJournalTests.contextWithChangesOfEveryKind(harness)
    var journal: RecoveryJournal? = RecoveryJournal(
      storePath: harness.storePath, processID: 77, started: TestClock.reading(1))
    try journal?.write(context.pendingChanges(), at: TestClock.reading(2))
    let path = try #require(journal?.path)
    #expect(path == harness.storePath + ".unsaved-77")
    #expect(try status(of: path).permissions == 0o600)
    #expect(RecoveryJournal.filesLeftBehind(storePath: harness.storePath).isEmpty)
    journal = nil  // the session ends: its lock goes with its descriptor
    let found = RecoveryJournal.filesLeftBehind(storePath: harness.storePath)
    #expect(found.count == 1)
    let record = try #require(try found.first?.contents.get())
    #expect(record.pending == (try context.pendingChanges()))
    #expect(record.processID == 77)
    #expect(record.written == TestClock.reading(2))
    // Held while offered: another start does not see it meanwhile.
    #expect(RecoveryJournal.filesLeftBehind(storePath: harness.storePath).isEmpty)
    found.first?.release()
    #expect(RecoveryJournal.filesLeftBehind(storePath: harness.storePath).count == 1)
  }

  @Test func removingAndSettingAside() throws {
    let harness = try Harness()
    let context = try RecoveryJournalTests.contextWithChangesOfEveryKind(harness)
    let journal = RecoveryJournal(
      storePath: harness.storePath, processID: 5, started: TestClock.reading(1))
    try journal.write(context.pendingChanges(), at: TestClock.reading(2))
    try journal.remove()
    #expect(try harness.folder.entries().filter { $0.contains("unsaved") }.isEmpty)

    var ended: RecoveryJournal? = RecoveryJournal(
      storePath: harness.storePath, processID: 6, started: TestClock.reading(1))
    try ended?.write(context.pendingChanges(), at: TestClock.reading(2))
    ended = nil
    let first = try #require(RecoveryJournal.filesLeftBehind(storePath: harness.storePath).first)
    let aside = try first.setAside(stamp: "2026-12-01T1849")
    #expect(aside == harness.storePath + ".recovered-2026-12-01T1849")
    #expect(RecoveryJournal.filesLeftBehind(storePath: harness.storePath).isEmpty)
    #expect(try RecoveryFileFormat.decode(bytes(at: aside)).processID == 6)
  }

  @Test func anEndedSessionsFileIsNeverOverwrittenByOneWithItsProcessID() throws {
    let harness = try Harness()
    let context = try RecoveryJournalTests.contextWithChangesOfEveryKind(harness)
    var ended: RecoveryJournal? = RecoveryJournal(
      storePath: harness.storePath, processID: 9, started: TestClock.reading(1))
    try ended?.write(context.pendingChanges(), at: TestClock.reading(2))
    ended = nil
    let again = RecoveryJournal(
      storePath: harness.storePath, processID: 9, started: TestClock.reading(3))
    try again.write(context.pendingChanges(), at: TestClock.reading(4))
    #expect(again.path == harness.storePath + ".unsaved-9-2")
    let left = RecoveryJournal.filesLeftBehind(storePath: harness.storePath)
    #expect(left.count == 1)
    #expect(try left.first?.contents.get().written == TestClock.reading(2))
  }

  /// What a write killed between making its temporary file and renaming it leaves is
  /// removed once nobody holds it and it is over a minute old; a fresh or held one stays.
  @Test func temporaryFilesOfKilledWritesAreRemoved() throws {
    let harness = try Harness()
    let stale = harness.folder.path(".store.json.unsaved-12.abc")
    let fresh = harness.folder.path(".store.json.unsaved-13.def")
    let held = harness.folder.path(".store.json.unsaved-14.ghi")
    for path in [stale, fresh, held] { try write("half", to: path) }
    let anHourAgo = (Int64(Date().timeIntervalSince1970) - 3600) * 1_000_000_000
    #expect(setFileTimes(of: stale, toNanoseconds: anHourAgo))
    #expect(setFileTimes(of: held, toNanoseconds: anHourAgo))
    let holder = open(held, O_RDONLY)
    defer { close(holder) }
    #expect(flock(holder, LOCK_EX) == 0)
    #expect(RecoveryJournal.filesLeftBehind(storePath: harness.storePath).isEmpty)
    #expect(!FileManager.default.fileExists(atPath: stale))
    #expect(FileManager.default.fileExists(atPath: fresh))
    #expect(FileManager.default.fileExists(atPath: held))
  }

  @Test func aFileOfAnotherStoreIsRefused() throws {
    let harness = try Harness()
    let context = try RecoveryJournalTests.contextWithChangesOfEveryKind(harness)
    let other = harness.folder.path("other.json")
    let bytes = RecoveryFileFormat.encode(
      RecoveryJournalTests.record(try context.pendingChanges(), store: harness.storePath))
    try Data(bytes).write(to: URL(fileURLWithPath: other + ".unsaved-3"))
    let found = try #require(RecoveryJournal.filesLeftBehind(storePath: other).first)
    guard case .failure(.otherStore(let store)) = found.contents else {
      Issue.record("\(found.contents)")
      return
    }
    #expect(store == harness.storePath)
  }

  /// Whatever system call of a write fails, the journal on disk is the one written before,
  /// whole, and no temporary file is left.
  @Test func aFailedWriteLeavesTheLastJournalWhole() throws {
    let harness = try Harness()
    let context = try RecoveryJournalTests.contextWithChangesOfEveryKind(harness)
    let fileSystem = FaultInjectingFileSystem()
    let journal = RecoveryJournal(
      storePath: harness.storePath, processID: 11, started: TestClock.reading(1),
      fileSystem: fileSystem)
    let before = try context.pendingChanges()
    try journal.write(before, at: TestClock.reading(2))
    let path = try #require(journal.path)
    let work = try #require(context.category(named: "Work"))
    try context.createDocument(named: "More", in: work.id, content: "more")
    let after = try context.pendingChanges()
    fileSystem.arm(nil)
    try journal.write(after, at: TestClock.reading(3))
    let calls = fileSystem.calls.count
    fileSystem.disarm()
    #expect(calls > 5)
    for number in 1...calls {
      try journal.write(before, at: TestClock.reading(2))
      fileSystem.arm(.call(number))
      let failed = Result { try journal.write(after, at: TestClock.reading(3)) }
      fileSystem.disarm()
      let onDisk = try RecoveryFileFormat.decode(bytes(at: path))
      if case .failure = failed {
        #expect(onDisk.pending == after || onDisk.pending == before, "call \(number)")
      } else {
        #expect(onDisk.pending == after, "call \(number)")
      }
      #expect(try harness.folder.temporaryEntries().isEmpty, "call \(number)")
    }
    #expect(fileSystem.badCloses.isEmpty)
  }
}
