import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// A whole-store commit writes git's whole input, and lets go of all it read of the store,
/// before git reads it (issue 39): a git that fails then still leaves HEAD, the store file and
/// the encrypted remote's commit map as they were, and the next commit writes every document.
@Suite struct WholeStoreCommitTests {
  let sandbox: GitSandbox
  let remote: String
  let faults: FaultInjectingGitRunner
  let laptop: Machine

  init() throws {
    sandbox = try GitSandbox("whole-store")
    remote = try sandbox.makeBareRemote()
    faults = FaultInjectingGitRunner(wrapping: sandbox.runner)
    laptop = try Machine("laptop", in: sandbox, number: 1, runner: faults)
  }

  /// Two categories of `count` documents each, before any commit.
  func fillStore(count: Int = 20) throws {
    try laptop.edit { context in
      for index in 0..<count {
        try put("work \(index)\n", at: "Work", "Plan \(index)", in: context)
        try put("home \(index)\n", at: "Home", "List \(index)", in: context)
      }
    }
  }

  /// Every ref of the laptop's repository.
  func refs() throws -> [String] {
    try laptop.gitText(["for-each-ref", "--format=%(refname)"]).split(separator: "\n").map {
      String($0)
    }
  }

  @Test(arguments: [FaultInjectingGitRunner.Fault.failBefore, .failAfter])
  func aFirstCommitThatGitFailsLeavesHeadAndTheStoreAsTheyWere(
    fault: FaultInjectingGitRunner.Fault
  ) throws {
    try fillStore()
    try laptop.setUp(remote: remote)
    let before = try Data(contentsOf: URL(fileURLWithPath: laptop.storePath))
    faults.arm(.command("fast-import", occurrence: 1), fault)
    #expect(throws: SyncError.self) { try laptop.sync() }
    #expect(faults.injected != nil)
    #expect(try laptop.git(["rev-parse", "--verify", "--quiet", "HEAD"]).status != 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: laptop.storePath)) == before)
    // Nothing but docsh's own build ref, and only when git did write the commit.
    #expect(try refs().allSatisfy { $0 == CommitWriter.buildRef })

    faults.disarm()
    try laptop.sync()
    #expect(try laptop.headHoldsTheStore())
    #expect(try laptop.trackedPaths().filter { $0.hasSuffix(".md") }.count == 40)
    let head = try laptop.gitText(["rev-parse", "HEAD"])
    #expect(try sandbox.text(["rev-parse", "main"], in: remote) == head)
  }

  @Test(arguments: [1, 2])
  func anEncryptedFirstCommitThatGitFailsRecordsNoPairAndTheNextCommitDoes(occurrence: Int)
    throws
  {
    try fillStore()
    let repository = try StoreRepository.setUpEncrypted(
      storePath: laptop.storePath, remote: remote, runner: faults,
      passphrases: EncryptedFirstCommitTests.FixedPassphrase())
    faults.arm(.command("fast-import", occurrence: occurrence))
    #expect(throws: SyncError.self) {
      try repository.committer.commitStore(JSONStore(path: laptop.storePath))
    }
    #expect(faults.injected != nil)
    #expect(try laptop.git(["rev-parse", "--verify", "--quiet", "HEAD"]).status != 0)
    #expect(try EncryptedRemoteFiles(repository).encryptedCommitMap().encryptedByLocal.isEmpty)
    #expect(try refs().allSatisfy { $0.hasPrefix("refs/docsh/") })

    faults.disarm()
    let head = try #require(try repository.committer.commitStore(JSONStore(path: laptop.storePath)))
    #expect(try laptop.headHoldsTheStore())
    let encrypted = try #require(
      try EncryptedRemoteFiles(repository).encryptedCommitMap().encrypted(for: head))
    // Every category and document has its age file, besides the root files.
    let files = try laptop.gitText(["ls-tree", "-r", "--name-only", encrypted.hex])
      .split(separator: "\n")
    let places = files.map { EncryptedLayout.classify(String($0)) }
    #expect(places.filter { if case .document = $0 { true } else { false } }.count == 40)
    #expect(places.filter { if case .category = $0 { true } else { false } }.count == 2)
  }
}
