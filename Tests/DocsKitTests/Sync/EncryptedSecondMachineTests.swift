import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// A second machine's first sync from an encrypted remote translates the remote's first
/// commit into a plain one, its whole fast-import stream written before fast-import runs
/// (so that docsh lets go of its tables first): the commit is the one the first machine
/// made, and a translation that fails writes no store.
@Suite struct EncryptedSecondMachineTests {
  let sandbox: GitSandbox
  let remote: String
  let laptop: Machine
  let desktop: Machine
  let faults: FaultInjectingGitRunner

  init() throws {
    sandbox = try GitSandbox("encrypted-second")
    remote = try sandbox.makeBareRemote()
    laptop = try Machine("laptop", in: sandbox, number: 1)
    faults = FaultInjectingGitRunner(wrapping: sandbox.runner)
    desktop = try Machine("desktop", in: sandbox, number: 2, runner: faults)
  }

  /// The laptop's store (tags, names that need encoding, an empty category, a category
  /// fanned out into buckets) synced to the encrypted remote, and the desktop joined to it.
  func startBoth() throws {
    laptop.fanOutLimit = 3
    desktop.fanOutLimit = 3
    try laptop.edit { context in
      let plan = try put("ship it\n", at: "Work: 2026", "Plan: \"draft\" *1* %2F", in: context)
      try put("é and ü: e\u{301}\n", at: "Résumé", "Ünïcode ✓", in: context)
      for index in 0..<6 { try put("line \(index)\n", at: "Many", "Item \(index)", in: context) }
      _ = try context.createCategory(named: "Empty")
      _ = try context.tag([plan.id], with: [try Tag("work")])
    }
    _ = try StoreRepository.setUpEncrypted(
      storePath: laptop.storePath, remote: remote, runner: laptop.runner,
      passphrases: EncryptedFirstCommitTests.FixedPassphrase())
    try sync(laptop)
    _ = try StoreRepository.setUpEncrypted(
      storePath: desktop.storePath, remote: remote, runner: desktop.runner,
      passphrases: EncryptedFirstCommitTests.FixedPassphrase())
  }

  /// Syncs `machine` with the passphrase at hand.
  @discardableResult
  func sync(_ machine: Machine) throws -> SyncReport {
    let repository = try #require(try machine.repository())
    repository.passphrases = EncryptedFirstCommitTests.FixedPassphrase()
    return try repository.syncer.sync(
      SyncOptions(mergeDate: Machine.mergeDate),
      store: IndexedStore(path: machine.storePath, cacheFolder: nil))
  }

  @Test func theTranslatedFirstCommitIsTheOneTheFirstMachineMade() throws {
    try startBoth()
    let report = try sync(desktop)
    #expect(report.notes.contains(.fetchedStore))
    #expect(try desktop.contents() == laptop.contents())
    #expect(try desktop.headHoldsTheStore())
    // The same tree, file for file, and the same trailers naming every document.
    #expect(
      try desktop.gitText(["rev-parse", "HEAD^{tree}"])
        == laptop.gitText(["rev-parse", "HEAD^{tree}"]))
    let body = ["show", "-s", "--format=%B", "HEAD"]
    #expect(try desktop.gitText(body) == laptop.gitText(body))
    #expect(try desktop.gitText(body).contains("Docsh-Changed"))
  }

  @Test(arguments: [
    FaultInjectingGitRunner.Fault.failBefore, FaultInjectingGitRunner.Fault.failAfter,
  ])
  func aTranslationWhoseFastImportFailsWritesNoStoreAndTheNextSyncFinishes(
    _ fault: FaultInjectingGitRunner.Fault
  ) throws {
    try startBoth()
    faults.arm(.command("fast-import", occurrence: 1), fault)
    #expect(throws: SyncError.self) { try sync(desktop) }
    faults.disarm()
    #expect(faults.injected != nil)
    // No store, no commit and no remote-tracking branch: nothing half written.
    #expect(!FileManager.default.fileExists(atPath: desktop.storePath))
    #expect(try !desktop.git(["rev-parse", "--verify", "--quiet", "HEAD"]).succeeded)
    #expect(try desktop.gitText(["for-each-ref", "refs/remotes/origin/"]).isEmpty)

    try sync(desktop)
    #expect(try desktop.contents() == laptop.contents())
    #expect(
      try desktop.gitText(["rev-parse", "HEAD^{tree}"])
        == laptop.gitText(["rev-parse", "HEAD^{tree}"]))
  }
}
