import DocsKit
import DocsTestSupport
import Foundation
import Testing

@testable import DocsShell

/// When the REPL writes, schedules and removes its recovery journal.
@Suite struct UnsavedWorkJournalTests {
  /// Records what the journal asks of the idle timer.
  final class RecordingTimer: IdleTimer {
    var armed: (idle: Int, longest: Int)?
    func arm(idle: Int, longest: Int) { armed = (idle, longest) }
    func disarm() { armed = nil }
  }

  struct Setup {
    let folder: TemporaryFolder
    let context: Context
    let timer = RecordingTimer()
    let journal: UnsavedWorkJournal
    let told: Told

    final class Told {
      var lines: [String] = []
    }

    init(delay: Int, storePath: String? = nil, label: String = #function) throws {
      folder = try TemporaryFolder(label)
      let path = storePath ?? folder.path("store.json")
      context = try Context(store: JSONStore(path: path))
      let told = Told()
      self.told = told
      journal = UnsavedWorkJournal(
        journal: RecoveryJournal(storePath: path, processID: 321, started: Timestamp.now()),
        delayMilliseconds: delay, context: context, timer: timer,
        tell: { told.lines.append($0) })
    }

    var journalFiles: [String] {
      (try? folder.entries().filter { $0.hasPrefix("store.json.unsaved-") }) ?? []
    }
  }

  @Test func aChangeIsWrittenWhenIdleNotAtOnce() throws {
    let setup = try Setup(delay: 2000)
    try setup.context.createCategory(named: "Work")
    setup.journal.commandFinished(setup.context)
    #expect(setup.journalFiles.isEmpty)
    #expect(setup.timer.armed?.idle == 2000)
    #expect(setup.timer.armed?.longest == 6000)
    setup.journal.idle(setup.context)
    #expect(setup.journalFiles == ["store.json.unsaved-321"])
    #expect(setup.timer.armed == nil)
  }

  @Test func nothingChangedNothingWritten() throws {
    let setup = try Setup(delay: 0)
    setup.journal.commandFinished(setup.context)
    setup.journal.idle(setup.context)
    #expect(setup.journalFiles.isEmpty)
    #expect(setup.timer.armed == nil)
  }

  @Test func withNoDelayEveryChangingCommandWritesAndSavingRemoves() throws {
    let setup = try Setup(delay: 0)
    let work = try setup.context.createCategory(named: "Work")
    setup.journal.commandFinished(setup.context)
    #expect(setup.journalFiles.count == 1)
    let path = try #require(setup.journal.journal.path)
    let first = try Data(contentsOf: URL(fileURLWithPath: path))
    try setup.context.createDocument(named: "Plan", in: work.id, content: "text")
    setup.journal.commandFinished(setup.context)
    let second = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(first != second)
    #expect(String(decoding: second, as: UTF8.self).contains("\"Plan\""))
    try setup.context.save()
    setup.journal.commandFinished(setup.context)
    #expect(setup.journalFiles.isEmpty)
  }

  @Test func undoingBackToTheSavedStateRemovesIt() throws {
    let setup = try Setup(delay: 0)
    try setup.context.performChanges("mkdir") {
      _ = try setup.context.createCategory(named: "Work")
    }
    setup.journal.commandFinished(setup.context)
    #expect(setup.journalFiles.count == 1)
    _ = try setup.context.undo()
    setup.journal.commandFinished(setup.context)
    #expect(setup.journalFiles.isEmpty)
  }

  @Test func leavingRemovesItAndASignalWritesAtOnce() throws {
    let setup = try Setup(delay: 600_000)
    try setup.context.createCategory(named: "Work")
    setup.journal.commandFinished(setup.context)
    #expect(setup.journalFiles.isEmpty)
    #expect(setup.journal.writeNow(setup.context))
    #expect(setup.journalFiles.count == 1)
    setup.journal.sessionEnded()
    #expect(setup.journalFiles.isEmpty)
  }

  @Test func aFolderThatCannotHoldItWarnsOnce() throws {
    let setup = try Setup(delay: 0, storePath: "/proc/docsh-unit-test-store.json")
    try setup.context.createCategory(named: "Work")
    setup.journal.commandFinished(setup.context)
    try setup.context.createCategory(named: "Later")
    setup.journal.commandFinished(setup.context)
    #expect(!setup.journal.writeNow(setup.context))
    #expect(setup.told.lines.count == 1)
    #expect(
      setup.told.lines.first?.hasPrefix("docsh: warning: cannot keep the unsaved changes") == true)
  }

  @Test(arguments: [
    ([:], 2000), (["DOCSH_JOURNAL_DELAY_MS": "0"], 0), (["DOCSH_JOURNAL_DELAY_MS": "250"], 250),
    (["DOCSH_JOURNAL_DELAY_MS": "-3"], 2000), (["DOCSH_JOURNAL_DELAY_MS": "soon"], 2000),
  ])
  func theDelayComesFromTheEnvironment(environment: [String: String], delay: Int) {
    #expect(UnsavedWorkJournal.delay(environment: environment) == delay)
  }

  @Test func offTurnsItOff() {
    #expect(UnsavedWorkJournal.delay(environment: ["DOCSH_JOURNAL_DELAY_MS": "off"]) == nil)
  }
}
