import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Two machines — two folders, two stores — and a bare remote on local disk, synced with
/// the real git.
@Suite struct SyncTests {
  let sandbox: GitSandbox
  let remote: String
  let laptop: Machine
  let desktop: Machine

  init() throws {
    sandbox = try GitSandbox("sync")
    remote = try sandbox.makeBareRemote()
    laptop = try Machine("laptop", in: sandbox, number: 1)
    desktop = try Machine("desktop", in: sandbox, number: 2)
  }

  func startBoth() throws {
    try startTogether(laptop, desktop, remote: remote)
  }

  @Test func aSecondMachineWithoutNotesFetchesThem() throws {
    try startBoth()
    #expect(try desktop.contents() == laptop.contents())
    #expect(try desktop.headHoldsTheStore())
    #expect(try desktop.gitText(["rev-parse", "HEAD"]) == laptop.gitText(["rev-parse", "HEAD"]))
    #expect(try desktop.gitText(["config", "branch.main.merge"]) == "refs/heads/main")
    // A plain git fetch knows where the branch comes from.
    #expect(try desktop.git(["fetch", "--quiet"]).succeeded)
    #expect(
      try desktop.gitText(["rev-parse", "@{upstream}"]) == laptop.gitText(["rev-parse", "HEAD"]))
  }

  @Test func theFirstSyncOfAnEmptyMachineSaysItFetchedTheNotes() throws {
    try laptop.edit { try put("plan", at: "Work", "Plan", in: $0) }
    try laptop.setUp(remote: remote)
    try laptop.sync()
    try desktop.edit { _ = try $0.createCategory(named: "Empty") }
    try desktop.edit { try $0.deleteCategory(try #require($0.category(named: "Empty")).id) }
    try desktop.setUp(remote: remote)
    let report = try desktop.sync()
    #expect(report.notes == [.fetchedStore])
    #expect(report.incoming == 2)
    #expect(report.outgoing == 0)
    #expect(try desktop.contents() == ["Work/": "", "Work/Plan": "plan"])
  }

  @Test func aSecondMachinesFirstSyncShowsProgressAsItReadsTheTree() throws {
    try laptop.edit { context in
      for category in ["Work", "Home", "Trips"] { try put("x", at: category, "Note", in: context) }
    }
    try laptop.setUp(remote: remote)
    try laptop.sync()
    try desktop.setUp(remote: remote)
    let progress = ProgressRecorder()
    let repository = try #require(try desktop.repository())
    _ = try repository.syncer.sync(
      SyncOptions(mergeDate: Machine.mergeDate, maximumAttempts: 1),
      store: IndexedStore(path: desktop.storePath, cacheFolder: nil), progress: progress)
    let building = try #require(
      progress.events.firstIndex(of: "begin writing the store from the repository 3"))
    // Folders are read a batch of files at a time (here all three at once), and told as such.
    let events = Array(progress.events[building...].prefix(3))
    #expect(events == ["begin writing the store from the repository 3", "advance 3", "end"])
  }

  @Test func editsOnBothSidesConverge() throws {
    try startBoth()
    try laptop.edit { context in
      try context.setContent("plan laptop\n", of: try document("Work", "Plan", in: context).id)
    }
    try desktop.edit { context in
      try context.setContent("list desktop\n", of: try document("Home", "List", in: context).id)
      try put("new\n", at: "Home", "Shop", in: context)
    }
    let first = try laptop.sync()
    #expect(first.incoming == 0)
    #expect(first.outgoing == 1)
    let second = try desktop.sync()
    #expect(second.incoming == 1)
    #expect(second.outgoing == 2)
    #expect(second.conflicts.isEmpty)
    let third = try laptop.sync()
    #expect(third.incoming == 2)
    #expect(third.outgoing == 0)
    let expected = [
      "Work/": "", "Home/": "", "Work/Plan": "plan laptop\n", "Home/List": "list desktop\n",
      "Home/Shop": "new\n",
    ]
    #expect(try laptop.contents() == expected)
    #expect(try desktop.contents() == expected)
    #expect(try laptop.headHoldsTheStore())
    #expect(try desktop.headHoldsTheStore())
    // The desktop's merge has both sides as parents.
    #expect(try desktop.gitText(["log", "-1", "--format=%p"]).split(separator: " ").count == 2)
  }

  @Test func conflictingEditsKeepBothVersionsAndSettleAfterOneMoreSync() throws {
    try startBoth()
    try laptop.edit { context in
      try context.setContent("plan laptop\n", of: try document("Work", "Plan", in: context).id)
    }
    try desktop.edit { context in
      try context.setContent("plan desktop\n", of: try document("Work", "Plan", in: context).id)
    }
    try laptop.sync()
    let report = try desktop.sync()
    #expect(
      report.conflicts.map(\.description) == [
        "Work/Plan: content changed on both sides; the other side's version is Work/Plan (conflict 2026-05-01)"
      ])
    try laptop.sync()
    let expected = [
      "Work/": "", "Home/": "", "Work/Plan": "plan desktop\n",
      "Work/Plan (conflict 2026-05-01)": "plan laptop\n", "Home/List": "list 0\n",
    ]
    #expect(try desktop.contents() == expected)
    #expect(try laptop.contents() == expected)
    for machine in [laptop, desktop] {
      let again = try machine.sync()
      #expect(again.conflicts.isEmpty)
      #expect(again.incoming == 0)
      #expect(again.outgoing == 0)
    }
  }

  @Test func aFirstSyncOntoAStoreWithNotesMergesTheTwo() throws {
    try laptop.edit { context in
      try put("laptop plan", at: "Work", "Plan", in: context)
      try put("laptop only", at: "Work", "Laptop", in: context)
    }
    try desktop.edit { context in
      try put("desktop plan", at: "Work", "Plan", in: context)
      try put("desktop only", at: "Home", "Desktop", in: context)
    }
    try laptop.setUp(remote: remote)
    try laptop.sync()
    try desktop.setUp(remote: remote)
    let report = try desktop.sync()
    #expect(
      report.conflicts.map(\.description) == [
        "Work/Plan: created on both sides; the other side's is Work/Plan (conflict 2026-05-01)"
      ])
    try laptop.sync()
    let expected = [
      "Work/": "", "Home/": "", "Work/Plan": "desktop plan",
      "Work/Plan (conflict 2026-05-01)": "laptop plan", "Work/Laptop": "laptop only",
      "Home/Desktop": "desktop only",
    ]
    #expect(try desktop.contents() == expected)
    #expect(try laptop.contents() == expected)
  }

  @Test func aMissingRemoteIsAOneLineErrorAndTheSaveStandsCommitted() throws {
    try laptop.edit { try put("plan", at: "Work", "Plan", in: $0) }
    try laptop.setUp(remote: sandbox.folder.path("no-such-remote.git"))
    do {
      try laptop.sync()
      Issue.record("synced with a missing remote")
    } catch let error as SyncError {
      guard case .gitFailed(let step, let message) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(step == "fetch from origin")
      #expect(message.contains("does not appear to be a git repository"))
      #expect(!error.description.contains("\n"))
    } catch {
      Issue.record("unexpected \(error)")
    }
    #expect(try laptop.contents()["Work/Plan"] == "plan")
    #expect(try laptop.subjects() == ["2 new: Work/, Work/Plan"])
    #expect(try laptop.headHoldsTheStore())
  }

  @Test func aRemoteThatRefusesIsAnErrorAndTheNextSyncPushes() throws {
    try startBoth()
    let hook = remote + "/hooks/pre-receive"
    try Data("#!/bin/sh\necho 'no pushes today' >&2\nexit 1\n".utf8).write(
      to: URL(fileURLWithPath: hook))
    chmod(hook, 0o755)
    try laptop.edit { try put("plan 1\n", at: "Work", "Plan", in: $0) }
    #expect(
      throws: SyncError.gitFailed(
        step: "push to origin", message: "[remote rejected] (pre-receive hook declined)")
    ) { try laptop.sync() }
    let repository = try #require(try laptop.repository())
    #expect(try repository.unpushedCommitCount() == 1)
    try FileManager.default.removeItem(atPath: hook)
    let report = try laptop.sync()
    #expect(report.outgoing == 1)
    #expect(try repository.unpushedCommitCount() == 0)
  }

  /// The other machine's push of its commits, by plain git.
  static let push = ["push", "--quiet", "origin", "HEAD:refs/heads/main"]

  @Test func aPushOvertakenByTheOtherMachineFetchesAndMergesAgain() throws {
    try startBoth()
    let faults = FaultInjectingGitRunner(wrapping: sandbox.runner)
    let racing = try Machine("laptop", in: sandbox, number: 1, runner: faults)
    try racing.edit { try put("plan laptop\n", at: "Work", "Plan", in: $0) }
    try desktop.edit { try put("list desktop\n", at: "Home", "List", in: $0) }
    // The desktop pushes its saved commit between the laptop's fetch and its push.
    faults.arm(
      .command("push", occurrence: 1), .runFirst(arguments: Self.push, folder: desktop.folder))
    let report = try racing.sync()
    #expect(faults.calls.filter { FaultInjectingGitRunner.command(of: $0) == "push" }.count == 2)
    #expect(report.incoming == 1)
    #expect(report.outgoing == 1)
    try desktop.sync()
    #expect(try desktop.contents()["Work/Plan"] == "plan laptop\n")
    #expect(try racing.contents()["Home/List"] == "list desktop\n")
  }

  @Test func aPushOvertakenEveryTimeGivesUpWithAClearError() throws {
    try startBoth()
    let faults = FaultInjectingGitRunner(wrapping: sandbox.runner)
    let racing = try Machine("laptop", in: sandbox, number: 1, runner: faults)
    try racing.edit { try put("plan laptop\n", at: "Work", "Plan", in: $0) }
    try desktop.edit { try put("list desktop\n", at: "Home", "List", in: $0) }
    faults.arm(
      .command("push", occurrence: 1), .runFirst(arguments: Self.push, folder: desktop.folder))
    #expect(throws: SyncError.pushKeptFailing(attempts: 1)) { try racing.sync(attempts: 1) }
    #expect(
      SyncError.pushKeptFailing(attempts: 1).description.hasPrefix(
        "push to origin: refused 1 times"))
    // Committed locally, nothing lost: the next sync merges and pushes.
    #expect(try racing.contents()["Work/Plan"] == "plan laptop\n")
    #expect(try racing.headHoldsTheStore())
    try racing.sync()
    try desktop.sync()
    #expect(try desktop.contents() == racing.contents())
  }

  @Test func aStaleIndexLockIsRemovedButAHeldOneIsNot() throws {
    try startBoth()
    let lock = desktop.folder + "/.git/index.lock"
    #expect(FileManager.default.createFile(atPath: lock, contents: Data()))
    // Held open close-on-exec: a git another test starts meanwhile must not inherit it and
    // keep it open past the close below.
    let holder = open(lock, O_RDONLY | O_CLOEXEC)
    #expect(holder >= 0)
    #expect(throws: SyncError.busy(lock: lock)) { try desktop.sync() }
    #expect(close(holder) == 0)
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: lock)
    try desktop.edit { try put("list desktop\n", at: "Home", "List", in: $0) }
    let report = try desktop.sync()
    #expect(report.notes == [.removedStaleLock(lock)])
    #expect(report.outgoing == 1)
  }

  @Test func aMissingStoreIsRestoredBySyncFromTheLastCommit() throws {
    try startBoth()
    let expected = try desktop.contents()
    try FileManager.default.removeItem(atPath: desktop.storePath)
    let head = try desktop.gitText(["rev-parse", "--short=7", "HEAD"])
    let report = try desktop.sync()
    #expect(report.notes == [.restoredStore(fromCommit: head)])
    #expect(try desktop.contents() == expected)
    #expect(try desktop.headHoldsTheStore())
  }

  @Test func aDamagedStoreIsRestoredAndKeptAsTheBackup() throws {
    try startBoth()
    let expected = try desktop.contents()
    let garbage = Data("{\"format\":\"docsh-st".utf8)
    try garbage.write(to: URL(fileURLWithPath: desktop.storePath))
    let report = try desktop.sync()
    #expect(report.notes.count == 1)
    #expect(try desktop.contents() == expected)
    #expect(FileManager.default.contents(atPath: desktop.storePath + ".bak") == garbage)
  }

  @Test func aSaveByAnotherSessionDuringTheSyncIsNeverOverwritten() throws {
    try startBoth()
    try laptop.edit { try put("plan laptop\n", at: "Work", "Plan", in: $0) }
    try laptop.sync()
    let faults = FaultInjectingGitRunner(wrapping: sandbox.runner)
    let racing = try Machine("desktop", in: sandbox, number: 2, runner: faults)
    // Folded, as a session leaving leaves the file: it is copied whole below.
    try racing.edit { try put("list desktop\n", at: "Home", "List", in: $0) }.foldSaveLog()
    // What another session will have saved meanwhile: one more document.
    let concurrent = sandbox.folder.path("concurrent.json")
    try FileManager.default.copyItem(atPath: racing.storePath, toPath: concurrent)
    let other = try Context(
      store: JSONStore(path: concurrent), makeID: SequentialIDs(after: 9_000_000).make)
    try put("saved meanwhile\n", at: "Home", "Meanwhile", in: other)
    try other.save()
    try other.foldSaveLog()
    // It lands just before the sync writes the merge's commit, after it read the commits.
    faults.arm(
      .command("fast-import", occurrence: 1),
      .runFirst(
        arguments: ["-c", "alias.swap=!cp '\(concurrent)' store.json", "swap"],
        folder: racing.folder))
    let report = try racing.sync()
    #expect(faults.injected != nil)
    #expect(report.conflicts.isEmpty)
    let contents = try racing.contents()
    #expect(contents["Home/Meanwhile"] == "saved meanwhile\n")
    #expect(contents["Home/List"] == "list desktop\n")
    #expect(contents["Work/Plan"] == "plan laptop\n")
    #expect(try racing.headHoldsTheStore())
  }

  @Test func aSyncWithoutSetUpOrRemoteSaysWhatToDo() throws {
    try laptop.edit { try put("plan", at: "Work", "Plan", in: $0) }
    try laptop.git(["init", "--quiet"])
    let repository = try #require(try laptop.repository())
    let store = IndexedStore(path: laptop.storePath, cacheFolder: nil)
    #expect(throws: SyncError.notSetUp(folder: laptop.folder)) {
      try repository.syncer.sync(SyncOptions(), store: store)
    }
    try repository.configureLayout()
    #expect(throws: SyncError.noRemote(folder: laptop.folder)) {
      try repository.syncer.sync(SyncOptions(), store: store)
    }
  }
}
