import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// A store's folder as a git repository: set up for docsh with no work tree, every save
/// committed as one file per document, a lost store told apart from an empty one.
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

  @Test func settingUpMakesTheFolderARepositoryOfItsOwnWithNoWorkTreeAndNoProgramNamed() throws {
    try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
    let repository = try machine.setUp(remote: remote)
    #expect(try repository.isSetUp())
    #expect(try machine.gitText(["config", "--local", "docsh.layout"]) == "files")
    #expect(try machine.gitText(["config", "--local", "core.bare"]) == "true")
    #expect(try machine.gitText(["remote", "get-url", "origin"]) == remote)
    try machine.sync()
    // Nothing in the config names a program: moving or reinstalling docsh breaks nothing.
    let config = try machine.gitText(["config", "--local", "--list"])
    #expect(!config.contains("docsh --merge-file") && !config.contains("merge.docsh"))
    #expect(try machine.gitText(["config", "branch.main.merge"]) == "refs/heads/main")
    // Stock git in the folder finds the repository and names the documents' files; git
    // status has no work tree to compare, so no document shows as deleted.
    #expect(
      try machine.trackedPaths() == ["Work/.docsh-category", "Work/Plan.md"])
    let stat = try machine.gitText(["log", "--stat", "--format=%s"])
    #expect(stat.contains("Work/Plan.md"))
    let status = try machine.git(["status", "--porcelain"])
    #expect(!status.text.contains("deleted") && !status.text.contains("Work/Plan"))
    #expect(!FileManager.default.fileExists(atPath: machine.folder + "/.git/index"))
    let pushed = try sandbox.text(["log", "--format=%s", "main"], in: remote)
    #expect(pushed == "2 new: Work/, Work/Plan")
    #expect(try repository.unpushedCommitCount() == 0)
  }

  @Test func aStoreInsideAnotherWorkTreeGetsARepositoryOfItsOwnFolder() throws {
    let dotfiles = sandbox.folder.path("laptop")
    try sandbox.git(["init", "--quiet"], in: dotfiles)
    try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
    let repository = try machine.setUp(remote: remote)
    #expect(repository.gitDirectory.hasSuffix("/laptop/notes/.git"))
    try machine.sync()
    #expect(try machine.trackedPaths() == ["Work/.docsh-category", "Work/Plan.md"])
  }

  @Test func settingUpAgainChangesTheRemote() throws {
    try machine.setUp(remote: remote)
    try machine.sync()
    let other = try sandbox.makeBareRemote("other.git")
    try machine.setUp(remote: other)
    #expect(try machine.gitText(["remote", "get-url", "origin"]) == other)
  }

  @Test func everySaveCommitsTheDocumentsItChangedWithALineSayingWhat() throws {
    try machine.setUp(remote: remote)
    try machine.sync()
    let first = try machine.edit { context in
      try put("plan", at: "Work", "Plan", in: context)
      try put("list", at: "Home", "List", in: context)
    }
    #expect(first.saveWarning == nil)
    let subject = try machine.subjects().first
    #expect(subject == "4 new: Work/, Home/, Work/Plan, Home/List")
    try machine.sync()
    try machine.edit { context in
      try context.setContent("plan 2", of: try document("Work", "Plan", in: context).id)
      try context.deleteDocument(try document("Home", "List", in: context).id)
      try context.renameCategory(try #require(context.category(named: "Home")).id, to: "House")
    }
    #expect(try machine.subjects().first?.hasPrefix("2 changed, 1 deleted: ") == true)
    #expect(
      try machine.trackedPaths() == [
        "House/.docsh-category", "Work/.docsh-category", "Work/Plan.md",
      ])
    let plan = try machine.gitText(["show", "HEAD:Work/Plan.md"])
    #expect(plan.hasPrefix("---\nid: ") && plan.hasSuffix("\n---\nplan 2"))
    let count = try machine.subjects().count
    let context = try machine.open()
    try context.save()  // nothing changed: nothing written, nothing committed
    #expect(try machine.subjects().count == count)
    let unpushed = try #require(try machine.repository()).unpushedCommitCount()
    #expect(unpushed == 1)
  }

  @Test func aSaveIsCommittedFromItsOwnChangesAndAMissedOneFromTheWholeStore() throws {
    try machine.setUp(remote: remote)
    try machine.sync()
    try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
    let ledger = try String(contentsOfFile: machine.folder + "/.git/docsh/ledger", encoding: .utf8)
    #expect(ledger.contains("\ncommitted " + (try machine.gitText(["rev-parse", "HEAD"])) + " "))
    // A save made without the hook (another tool, a commit that failed) is not described by
    // the next save's changes: the next commit compares the whole store, and takes both.
    let quiet = try Context(store: JSONStore(path: machine.storePath))
    try put("list", at: "Home", "List", in: quiet)
    try quiet.save()
    try machine.edit { try put("plan 2", at: "Work", "Plan", in: $0) }
    #expect(
      try machine.trackedPaths() == [
        "Home/.docsh-category", "Home/List.md", "Work/.docsh-category", "Work/Plan.md",
      ])
    #expect(try machine.gitText(["show", "HEAD:Work/Plan.md"]).hasSuffix("\n---\nplan 2"))
  }

  @Test func aMissedRenameIsCommittedFromTheWholeStoreWithoutLeavingTheOldFiles() throws {
    try machine.setUp(remote: remote)
    try machine.sync()
    try machine.edit { context in
      try put("plan", at: "Work", "Plan", in: context)
      try put("list", at: "Work", "List", in: context)
    }
    // Renames saved without the hook: the next commit compares the whole store.
    let quiet = try Context(store: JSONStore(path: machine.storePath))
    try quiet.renameCategory(try #require(quiet.category(named: "Work")).id, to: "Job")
    try quiet.renameDocument(try document("Job", "List", in: quiet).id, to: "Items")
    try quiet.save()
    try machine.edit { try put("plan 2", at: "Job", "Plan", in: $0) }
    #expect(
      try machine.trackedPaths() == ["Job/.docsh-category", "Job/Items.md", "Job/Plan.md"])
    let subject = try #require(try machine.subjects().first)
    #expect(!subject.contains("new"), "a move is a change: \(subject)")
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
    #expect(subject.hasPrefix("41 new: Work/, Work/Document number "))
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
    faults.arm(.command("fast-import", occurrence: 1))
    let context = try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
    #expect(faults.injected != nil)
    let warning = try #require(context.saveWarning)
    #expect(warning.hasPrefix("saved, but not committed (commit the store: injected failure)"))
    #expect(try machine.contents()["Work/Plan"] == "plan")
    #expect(!(try machine.trackedPaths()).contains("Work/Plan.md"))

    faults.disarm()
    try context.setContent("plan 2", of: try document("Work", "Plan", in: context).id)
    try context.save()
    #expect(context.saveWarning == nil)
    #expect(try machine.subjects().first == "2 new: Work/, Work/Plan")
    #expect(try machine.gitText(["show", "HEAD:Work/Plan.md"]).hasSuffix("\n---\nplan 2"))
  }

  @Test func aMissingStoreInARepositoryIsNotAnEmptyOne() throws {
    try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
    let repository = try machine.setUp(remote: remote)
    try machine.sync()
    #expect(try repository.recovery.missingStoreError() == nil)
    try FileManager.default.removeItem(atPath: machine.storePath)
    let head = try machine.gitText(["rev-parse", "--short=7", "HEAD"])
    let error = try #require(try repository.recovery.missingStoreError())
    #expect(error == .storeMissing(path: machine.storePath, commit: head))
    #expect(
      error.description
        == "\(machine.storePath) is missing, but the last commit (\(head)) holds the store: 'sync' writes it anew from there"
    )
    // Nothing commits its disappearance.
    #expect(throws: SyncError.storeMissing(path: machine.storePath, commit: head)) {
      try repository.committer.commitStore(JSONStore(path: machine.storePath))
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
    let error = try #require(try repository.recovery.damagedStoreError(for: failure))
    guard case .storeDamaged(let path, _, _) = error else {
      Issue.record("expected storeDamaged, got \(error)")
      return
    }
    #expect(path == machine.storePath)
    #expect(
      try repository.recovery.damagedStoreError(
        for: .system(machine.storePath, operation: "open", errno: EACCES)) == nil)
  }

  @Test func aStoreNeverCommittedIsSimplyEmptyWhenMissing() throws {
    let repository = try machine.setUp(remote: remote)
    #expect(try repository.recovery.missingStoreError() == nil)
  }
}
