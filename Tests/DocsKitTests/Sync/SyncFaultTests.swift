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
      #expect(try desktop.status() == "", "\(place): desktop not clean")
      #expect(try laptop.status() == "", "\(place): laptop not clean")
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
