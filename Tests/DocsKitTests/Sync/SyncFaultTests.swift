import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// Faults at every step: each git call of a sync failed in turn (before git ran, or after
/// it did its work, as a kill would), each system call of the store's replacement failed in
/// turn. Afterwards the store loads and holds every saved change, the repository is in
/// order, and the next sync finishes the job.
@Suite struct SyncFaultTests {
  /// A laptop and a desktop that both changed the store since their last sync, so that the
  /// desktop's sync merges three ways, pushes, and the laptop fast-forwards after.
  struct Scenario {
    let sandbox: GitSandbox
    let laptop: Machine
    let desktop: Machine
    let faults: FaultInjectingGitRunner

    init(_ label: String) throws {
      sandbox = try GitSandbox(label)
      let remote = try sandbox.makeBareRemote()
      faults = FaultInjectingGitRunner(wrapping: sandbox.runner)
      laptop = try Machine("laptop", in: sandbox, number: 1)
      desktop = try Machine("desktop", in: sandbox, number: 2, runner: faults)
      try startTogether(laptop, desktop, remote: remote)
      try laptop.edit { try put("plan laptop\n", at: "Work", "Plan", in: $0) }
      try laptop.sync()
      try desktop.edit { context in
        try put("list desktop\n", at: "Home", "List", in: context)
        try put("shop\n", at: "Home", "Shop", in: context)
      }
      // One change saved but left uncommitted, as after a save whose commit failed.
      let context = try Context(
        store: JSONStore(path: desktop.storePath), clock: desktop.clock.now,
        makeID: desktop.ids.make)
      try put("uncommitted\n", at: "Home", "Later", in: context)
      try context.save()
    }

    static let desktopChanges = [
      "Home/List": "list desktop\n", "Home/Shop": "shop\n", "Home/Later": "uncommitted\n",
    ]

    /// The store loads and holds every change the desktop saved.
    func checkDesktopKeptItsChanges(_ place: String) throws {
      let contents = try desktop.contents()
      for (path, content) in Scenario.desktopChanges {
        #expect(contents[path] == content, "\(place): \(path) lost")
      }
      #expect(
        !FileManager.default.fileExists(atPath: desktop.folder + "/.git/MERGE_HEAD"), "\(place)")
      #expect(try desktop.git(["fsck", "--no-progress"]).succeeded, "\(place): fsck")
    }

    /// After one more sync on each side, both hold everything.
    func checkBothConverge(_ place: String) throws {
      try desktop.sync()
      try laptop.sync()
      let expected = Scenario.desktopChanges.merging([
        "Work/": "", "Home/": "", "Work/Plan": "plan laptop\n",
      ]) { $1 }
      #expect(try desktop.contents() == expected, "\(place)")
      #expect(try laptop.contents() == expected, "\(place)")
      #expect(try desktop.headHoldsTheStore(), "\(place): desktop not committed")
      #expect(try laptop.headHoldsTheStore(), "\(place): laptop not committed")
    }
  }

  @Test(arguments: [false, true])
  func aSyncFailingAtAnyGitCallLeavesAllInOrderAndTheNextSyncFinishes(afterGitRan: Bool) throws {
    var number = 1
    while true {
      let scenario = try Scenario("fault\(number)")
      scenario.faults.arm(.call(number), afterGitRan ? .failAfter : .failBefore)
      let result = Result { try scenario.desktop.sync() }
      scenario.faults.disarm()
      guard let injected = scenario.faults.injected else {
        // The sync made fewer calls than `number`: it went through untouched. Done.
        #expect(throws: Never.self) { try result.get() }
        break
      }
      let place = "call \(number) (git \(injected.joined(separator: " ")))"
      if case .failure(let error) = result {
        #expect(!"\(error)".contains("\n"), "\(place): \(error)")
      }
      try scenario.checkDesktopKeptItsChanges(place)
      try scenario.checkBothConverge(place)
      number += 1
    }
    // A three-way sync is some thirty git calls: each was failed once.
    #expect(number > 20)
  }

  /// A sync stopped after it wrote the merged store but before HEAD moved (a kill between
  /// the two): the merged store must not become a local edit of what came from the remote,
  /// or the remote's next change to it would conflict with a change this side never made.
  /// The git call that comes after a merging sync wrote the store: its second update-ref
  /// moves HEAD to the merge (the first moved it to the commit of the pending change).
  static let afterTheStoreIsWritten: [(command: String, occurrence: Int, arguments: [String])] = [
    ("update-ref", 2, ["update-ref", "-m", "docsh: sync with origin"])
  ]

  @Test(arguments: afterTheStoreIsWritten.indices)
  func aSyncStoppedAfterWritingTheStoreDoesNotMakeTheRemotesChangesLocalOnes(index: Int)
    throws
  {
    let (command, occurrence, arguments) = Self.afterTheStoreIsWritten[index]
    let scenario = try Scenario("stopped\(command)")
    scenario.faults.arm(.command(command, occurrence: occurrence), .failBefore)
    #expect(throws: SyncError.self) { try scenario.desktop.sync() }
    scenario.faults.disarm()
    #expect(scenario.faults.injected.map { Array($0.prefix(3)) } == arguments)
    #expect(try scenario.desktop.contents()["Work/Plan"] == "plan laptop\n")
    // A save on the desktop, then the laptop changes Plan again.
    try scenario.desktop.edit { try put("list desktop 2\n", at: "Home", "List", in: $0) }
    try scenario.laptop.sync()
    try scenario.laptop.edit { try put("plan laptop 2\n", at: "Work", "Plan", in: $0) }
    try scenario.laptop.sync()
    let report = try scenario.desktop.sync()
    #expect(report.conflicts == [])
    #expect(try scenario.desktop.contents()["Work/Plan"] == "plan laptop 2\n")
    try scenario.laptop.sync()
    #expect(try scenario.laptop.contents() == scenario.desktop.contents())
  }

  @Test func aFastForwardStoppedAfterWritingTheStoreIsFinishedByTheNextCommit() throws {
    let sandbox = try GitSandbox("stoppedff")
    let remote = try sandbox.makeBareRemote()
    let faults = FaultInjectingGitRunner(wrapping: sandbox.runner)
    let laptop = try Machine("laptop", in: sandbox, number: 1)
    let desktop = try Machine("desktop", in: sandbox, number: 2, runner: faults)
    try startTogether(laptop, desktop, remote: remote)
    try laptop.edit { try put("plan laptop\n", at: "Work", "Plan", in: $0) }
    try laptop.sync()
    // Nothing to commit on the desktop: the first update-ref is the fast-forward's.
    faults.arm(.command("update-ref", occurrence: 1), .failBefore)
    #expect(throws: SyncError.self) { try desktop.sync() }
    faults.disarm()
    #expect(try desktop.contents()["Work/Plan"] == "plan laptop\n")
    try laptop.edit { try put("plan laptop 2\n", at: "Work", "Plan", in: $0) }
    try laptop.sync()
    try desktop.edit { try put("list desktop\n", at: "Home", "List", in: $0) }
    #expect(
      try desktop.gitText(["rev-parse", "HEAD~1"]) == laptop.gitText(["rev-parse", "HEAD~1"]))
    let report = try desktop.sync()
    #expect(report.conflicts == [])
    #expect(try desktop.contents()["Work/Plan"] == "plan laptop 2\n")
    #expect(try desktop.headHoldsTheStore())
  }

  /// `legacy`: the note as a docsh before the ledger left it, in `.git/docsh-moving`.
  @Test(arguments: [false, true])
  func aNoteOfAMoveWhoseStoreWasNeverWrittenIsForgotten(legacy: Bool) throws {
    let scenario = try Scenario("unwritten\(legacy)")
    let desktop = scenario.desktop
    try desktop.git(["fetch", "--quiet", "origin"])
    try desktop.sync()
    try scenario.laptop.sync()
    try scenario.laptop.edit { try put("plan laptop 2\n", at: "Work", "Plan", in: $0) }
    try scenario.laptop.sync()
    try desktop.git(["fetch", "--quiet", "origin"])
    // What a sync killed between its note and the store's replacement leaves: the note,
    // and the store as at HEAD. The save that follows moves the generation on, but its
    // store holds no trace of the sync's write (the witness): HEAD stays.
    let head = try desktop.gitText(["rev-parse", "HEAD"])
    let remote = try desktop.gitText(["rev-parse", "origin/main"])
    let repository = try #require(try desktop.repository())
    let generation = try #require(
      try repository.storeGeneration(JSONStore(path: desktop.storePath)))
    let witness = "d:\(ObjectID(high: 0x4000, low: 0x8000_0000_0000_0001)):1234"
    if legacy {
      try Data("\(head) \(remote) \(generation) \(witness)\n".utf8).write(
        to: URL(fileURLWithPath: desktop.folder + "/.git/docsh-moving"))
    } else {
      try repository.updateLedger {
        $0.move = RepositoryLedger.Move(
          old: CommitID(head), new: CommitID(remote), generation: generation, witness: witness)
      }
    }
    try desktop.edit { try put("list desktop 2\n", at: "Home", "List", in: $0) }
    #expect(!FileManager.default.fileExists(atPath: desktop.folder + "/.git/docsh-moving"))
    #expect(repository.ledger().move == nil, "the note was forgotten")
    #expect(try desktop.gitText(["rev-parse", "HEAD~1"]) == head)
    #expect(try desktop.git(["merge-base", "--is-ancestor", remote, "HEAD"]).status == 1)
    #expect(try desktop.contents()["Work/Plan"] == "plan laptop\n")
    let report = try desktop.sync()
    #expect(report.conflicts == [])
    #expect(try desktop.contents()["Work/Plan"] == "plan laptop 2\n")
  }

  @Test func gitThatCannotStartIsAnErrorAndChangesNothing() throws {
    let scenario = try Scenario("nolaunch")
    let before = try bytes(at: scenario.desktop.storePath)
    scenario.faults.arm(.call(1), .cannotLaunch)
    #expect(throws: SyncError.gitUnavailable(.failed("git", errno: 12))) {
      try scenario.desktop.sync()
    }
    scenario.faults.disarm()
    #expect(try bytes(at: scenario.desktop.storePath) == before)
    try scenario.checkBothConverge("after a git that could not start")
  }

  @Test(arguments: [ENOSPC, EIO])
  func replacingAFileFailingAtAnySystemCallLeavesItAsItWas(code: Int32) throws {
    var number = 1
    while true {
      let folder = try TemporaryFolder("replace\(code)at\(number)")
      let path = folder.path("store.json")
      try Data("old".utf8).write(to: URL(fileURLWithPath: path))
      chmod(path, 0o640)
      let fileSystem = FaultInjectingFileSystem()
      fileSystem.arm(.call(number), code: code)
      let result = Result { () throws(SystemCallError) in
        try AtomicFile.replace(
          path: path, with: Array("new".utf8), keepingBackup: number % 2 == 0,
          fileSystem: fileSystem)
      }
      fileSystem.disarm()
      guard let injected = fileSystem.injected else {
        #expect(throws: Never.self) { try result.get() }
        #expect(try bytes(at: path) == Array("new".utf8))
        #expect(try status(of: path).permissions == 0o640)
        break
      }
      let place = "call \(number) (\(injected))"
      #expect(fileSystem.badCloses.isEmpty, "\(place)")
      let strays = try folder.entries().filter { $0 != "store.json" && $0 != "store.json.bak" }
      switch result {
      case .failure:
        #expect(try bytes(at: path) == Array("old".utf8), "\(place)")
        #expect(strays.isEmpty, "\(place): left \(strays)")
      case .success:
        // Only the clean-up after the rename failed: the new file stands; at worst the
        // second name of the old one stays, a stray every load and save ignores.
        #expect(try bytes(at: path) == Array("new".utf8), "\(place)")
        #expect(strays.allSatisfy { $0.hasPrefix(".store.json.") }, "\(place): left \(strays)")
      }
      number += 1
    }
    #expect(number > 8)
  }
}
