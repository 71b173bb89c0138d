import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// A store's folder as a git repository: set up for docsh, every save committed with
/// git's plumbing, the index clean, a lost store told apart from an empty one.
@Suite struct RepositoryTests {
  let sandbox: GitSandbox
  let machine: Machine
  let remote: String

  init() throws {
    sandbox = try GitSandbox("repository")
    machine = try Machine("laptop", in: sandbox, number: 1)
    remote = try sandbox.makeBareRemote()
  }

  @Test func aStoreInNoRepositoryHasNoneAndSavesAsAlways() throws {
    #expect(try machine.repository() == nil)
    let context = try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
    #expect(context.saveWarning == nil)
    #expect(try machine.contents()["Work/Plan"] == "plan")
    #expect(!FileManager.default.fileExists(atPath: machine.folder + "/.git"))
  }

  @Test func settingUpMakesTheFolderARepositoryWithTheDriverAndTheRemote() throws {
    try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
    let repository = try machine.setUp(remote: remote)
    #expect(try repository.isSetUp())
    #expect(
      try machine.gitText(["config", "--local", "merge.docsh.driver"])
        == "'/bin/false' --merge-file %O %A %B %P")
    #expect(try machine.gitText(["remote", "get-url", "origin"]) == remote)

    try machine.sync()
    #expect(
      try String(contentsOfFile: machine.folder + "/.gitattributes", encoding: .utf8)
        == "store.json merge=docsh\n")
    #expect(
      try String(contentsOfFile: machine.folder + "/.gitignore", encoding: .utf8)
        == "store.json.lock\nstore.json.bak\n.store.json.*\nstore.json.unsaved-*\n"
        + "store.json.recovered-*\n")
    #expect(try machine.gitText(["config", "branch.main.remote"]) == "origin")
    #expect(try machine.gitText(["config", "branch.main.merge"]) == "refs/heads/main")
    #expect(
      try machine.gitText(["check-attr", "merge", "--", "store.json"]) == "store.json: merge: docsh"
    )
    // The lock and backup files exist and are ignored: the work tree is clean.
    #expect(FileManager.default.fileExists(atPath: machine.storePath + ".lock"))
    #expect(try machine.status() == "")
    let pushed = try sandbox.text(["log", "--format=%s", "main"], in: remote)
    #expect(pushed == "2 new: Work/, Work/Plan")
    #expect(try repository.unpushedCommitCount() == 0)
  }

  /// git refuses a plain `git pull` of diverged branches until told how to settle them;
  /// setting up makes it merge (and so run the driver), unless the user chose already.
  @Test(arguments: [nil, "[pull]\n\tff = only\n", "[pull]\n\trebase = true\n"])
  func settingUpMakesAPlainPullMergeUnlessTheUserChose(choice: String?) throws {
    if let choice {
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: sandbox.globalConfig))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data(choice.utf8))
      try handle.close()
    }
    try machine.setUp(remote: remote)
    let local = try machine.git(["config", "--local", "--get", "pull.rebase"])
    #expect(local.succeeded == (choice == nil))
    if choice == nil { #expect(local.text == "false\n") }
  }

  @Test func theDriverRegisteredIsRefreshedOnEverySync() throws {
    let repository = try machine.setUp(remote: remote)
    try machine.git([
      "config", "--local", "merge.docsh.driver", "'/old/docsh' --merge-file %O %A %B %P",
    ])
    try repository.registerMergeDriver(executable: "/opt/it's here/docsh")
    #expect(
      try machine.gitText(["config", "--local", "merge.docsh.driver"])
        == "'/opt/it'\\''s here/docsh' --merge-file %O %A %B %P")
  }

  @Test func settingUpAgainKeepsTheFilesLinesAndChangesTheRemote() throws {
    try Data("*.tmp\nstore.json.lock\n".utf8).write(
      to: URL(fileURLWithPath: machine.folder + "/.gitignore"))
    try machine.setUp(remote: remote)
    try machine.sync()
    let other = try sandbox.makeBareRemote("other.git")
    try machine.setUp(remote: other)
    #expect(try machine.gitText(["remote", "get-url", "origin"]) == other)
    #expect(
      try String(contentsOfFile: machine.folder + "/.gitignore", encoding: .utf8)
        == "*.tmp\nstore.json.lock\nstore.json.bak\n.store.json.*\nstore.json.unsaved-*\n"
        + "store.json.recovered-*\n")
  }

  @Test func everySaveCommitsTheStoreWithALineSayingWhatChanged() throws {
    try machine.setUp(remote: remote)
    try machine.sync()
    let first = try machine.edit { context in
      try put("plan", at: "Work", "Plan", in: context)
      try put("list", at: "Home", "List", in: context)
    }
    #expect(first.saveWarning == nil)
    #expect(try machine.subjects().first == "4 new: Work/, Home/, Work/Plan, Home/List")
    try machine.edit { context in
      try context.setContent("plan 2", of: try document("Work", "Plan", in: context).id)
      try context.deleteDocument(try document("Home", "List", in: context).id)
      try context.renameCategory(try #require(context.category(named: "Home")).id, to: "House")
    }
    #expect(try machine.subjects().first == "2 changed, 1 deleted: House/, Work/Plan, Home/List")
    #expect(try machine.status() == "")
    // The index holds what HEAD holds: nothing staged, nothing to commit.
    #expect(try machine.gitText(["diff", "--cached", "--name-only"]) == "")
    let count = try machine.subjects().count
    let context = try machine.open()
    try context.save()  // nothing changed: nothing written, nothing committed
    #expect(try machine.subjects().count == count)
    #expect(try #require(try machine.repository()).unpushedCommitCount() == 2)
  }

  @Test func aCommitsTrailersNameEachDocumentItChanged() throws {
    try machine.setUp(remote: remote)
    try machine.sync()
    let context = try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
    let plan = try document("Work", "Plan", in: context)
    let body = try machine.gitText(["log", "-1", "--format=%b"])
    let lines = body.split(separator: "\n").map(String.init)
    #expect(lines.first == "Docsh-Store: store.json")
    let changed = try #require(lines.last)
    #expect(changed.hasPrefix("Docsh-Changed: \(plan.id) 4 "))
    #expect(changed.hasSuffix(" Work/Plan"))
  }

  @Test func aLongListOfChangesIsCutToOneShortLine() throws {
    try machine.setUp(remote: remote)
    try machine.sync()
    try machine.edit { context in
      for number in 0..<40 { try put("x", at: "Work", "Document number \(number)", in: context) }
    }
    let subject = try #require(try machine.subjects().first)
    #expect(subject.hasPrefix("41 new: Work/, Work/Document number 0, "))
    #expect(subject.hasSuffix(", …"))
    #expect(subject.count <= StoreChanges.subjectLimit)
  }

  @Test func aFreshMachineWithoutAnIdentityCommitsAsDocshWithoutWritingConfig() throws {
    let fresh = try GitSandbox("fresh", identity: false)
    let machine = try Machine("fresh", in: fresh, number: 1)
    let remote = try fresh.makeBareRemote()
    let globalBefore = try bytes(at: fresh.globalConfig)
    try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
    try machine.setUp(remote: remote)
    try machine.sync()
    #expect(
      try machine.gitText(["log", "-1", "--format=%an <%ae>"])
        == "docsh <docsh@\(StoreRepository.hostName())>")
    #expect(try bytes(at: fresh.globalConfig) == globalBefore)
    #expect(try machine.git(["config", "--local", "user.name"]).status == 1)
  }

  @Test func aFailingCommitNeverFailsTheSaveAndTheNextSaveCommits() throws {
    let faults = FaultInjectingGitRunner(wrapping: sandbox.runner)
    let machine = try Machine("faulty", in: sandbox, number: 2, runner: faults)
    try machine.edit { try put("list", at: "Home", "List", in: $0) }
    try machine.setUp(remote: remote)
    try machine.sync()
    faults.arm(.command("commit-tree", occurrence: 1))
    let context = try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
    #expect(faults.injected != nil)
    let warning = try #require(context.saveWarning)
    #expect(warning.hasPrefix("saved, but not committed (commit the store: injected failure)"))
    #expect(try machine.contents()["Work/Plan"] == "plan")
    let dirty = try machine.status()
    #expect(dirty == " M store.json")

    faults.disarm()
    try context.setContent("plan 2", of: try document("Work", "Plan", in: context).id)
    try context.save()
    #expect(context.saveWarning == nil)
    #expect(try machine.subjects().first == "2 new: Work/, Work/Plan")
    #expect(try machine.status() == "")
  }

  @Test func aMissingStoreInARepositoryIsNotAnEmptyOne() throws {
    try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
    let repository = try machine.setUp(remote: remote)
    try machine.sync()
    #expect(try repository.missingStoreError() == nil)
    try FileManager.default.removeItem(atPath: machine.storePath)
    let head = try machine.gitText(["rev-parse", "--short=7", "HEAD"])
    let error = try #require(try repository.missingStoreError())
    #expect(error == .storeMissing(path: machine.storePath, commit: head))
    #expect(
      error.description
        == "\(machine.storePath) is missing, but the last commit (\(head)) holds it: 'sync' restores it (or 'git checkout HEAD -- store.json' in its folder)"
    )
    // Nothing commits its disappearance.
    #expect(throws: SyncError.storeMissing(path: machine.storePath, commit: head)) {
      try repository.commitStore()
    }
  }

  @Test func aDamagedStoreInARepositoryIsToldApartFromOtherFailures() throws {
    try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
    let repository = try machine.setUp(remote: remote)
    try machine.sync()
    let good = try bytes(at: machine.storePath)
    try Data(good.prefix(30)).write(to: URL(fileURLWithPath: machine.storePath))
    var loadError: StoreError?
    do {
      _ = try Context(store: JSONStore(path: machine.storePath))
    } catch {
      loadError = error
    }
    let failure = try #require(loadError)
    let error = try #require(try repository.damagedStoreError(for: failure))
    guard case .storeDamaged(let path, _, _) = error else {
      Issue.record("expected storeDamaged, got \(error)")
      return
    }
    #expect(path == machine.storePath)
    #expect(
      try repository.damagedStoreError(
        for: .system(machine.storePath, operation: "open", errno: EACCES)) == nil)
  }

  @Test func aStoreNeverCommittedIsSimplyEmptyWhenMissing() throws {
    let repository = try machine.setUp(remote: remote)
    #expect(try repository.missingStoreError() == nil)
  }
}
