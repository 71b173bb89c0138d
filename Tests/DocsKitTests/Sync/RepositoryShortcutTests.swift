import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// A synced save commits through one git process: what git said of the repository, its HEAD
/// and the committer is kept beside it and trusted only while what it came from is unchanged.
@Suite struct RepositoryShortcutTests {
  let sandbox: GitSandbox
  let faults: FaultInjectingGitRunner
  let machine: Machine

  init() throws {
    sandbox = try GitSandbox("shortcuts")
    faults = FaultInjectingGitRunner(wrapping: sandbox.runner)
    machine = try Machine("laptop", in: sandbox, number: 1, runner: faults)
    try machine.setUp(remote: try sandbox.makeBareRemote())
    try machine.sync()
    try machine.edit { try put("plan", at: "Work", "Plan", in: $0) }
  }

  /// The git commands one save ran.
  private func commandsOfASave(_ content: String) throws -> [String] {
    faults.arm(.call(Int.max))
    try machine.edit { try put(content, at: "Work", "Plan", in: $0) }
    return faults.calls.map(FaultInjectingGitRunner.command(of:))
  }

  @Test func aSaveInAKnownRepositoryStartsOnlyFastImport() throws {
    #expect(try commandsOfASave("plan 2") == ["fast-import"])
    #expect(try machine.gitText(["show", "HEAD:Work/Plan.md"]).hasSuffix("\n---\nplan 2"))
    #expect(try machine.subjects().first == "1 changed: Work/Plan")
    // The commit names the committer git would, dated now in git's format.
    let who = try machine.gitText(["log", "-1", "--format=%an <%ae>|%cn <%ce>"])
    #expect(who == "Test User <test@example.com>|Test User <test@example.com>")
    let seconds = try #require(Int(try machine.gitText(["log", "-1", "--format=%ct"])))
    #expect(abs(seconds - Int(Date().timeIntervalSince1970)) < 600)
  }

  @Test func aChangedConfigMakesDocshAskGitAgain() throws {
    #expect(try commandsOfASave("plan 2") == ["fast-import"])
    try machine.git(["config", "--local", "user.name", "Someone Else"])
    let commands = try commandsOfASave("plan 3")
    #expect(commands.contains("rev-parse") && commands.contains("config"))
    #expect(try machine.gitText(["log", "-1", "--format=%an"]) == "Someone Else")
    #expect(try commandsOfASave("plan 4") == ["fast-import"])
  }

  @Test func aChangedGlobalConfigChangesTheCommitter() throws {
    #expect(try commandsOfASave("plan 2") == ["fast-import"])
    let config = try String(contentsOfFile: sandbox.globalConfig, encoding: .utf8)
    try Data(config.replacingOccurrences(of: "Test User", with: "New Name").utf8)
      .write(to: URL(fileURLWithPath: sandbox.globalConfig))
    _ = try commandsOfASave("plan 3")
    #expect(try machine.gitText(["log", "-1", "--format=%an"]) == "New Name")
  }

  @Test func aConfigThatIncludesAnotherIsNeverCached() throws {
    let included = sandbox.folder.path("home/identity")
    try Data("[user]\n\tname = Included\n".utf8).write(to: URL(fileURLWithPath: included))
    let config = try String(contentsOfFile: sandbox.globalConfig, encoding: .utf8)
    try Data((config + "[include]\n\tpath = \(included)\n").utf8)
      .write(to: URL(fileURLWithPath: sandbox.globalConfig))
    _ = try commandsOfASave("plan 2")
    #expect(try machine.gitText(["log", "-1", "--format=%an"]) == "Included")
    // What the included file says can change without the config changing: git is asked.
    try Data("[user]\n\tname = Changed\n".utf8).write(to: URL(fileURLWithPath: included))
    #expect(try commandsOfASave("plan 3").contains("var"))
    #expect(try machine.gitText(["log", "-1", "--format=%an"]) == "Changed")
  }

  @Test func aBranchMovedElsewhereIsCommittedOntoNotOver() throws {
    #expect(try commandsOfASave("plan 2") == ["fast-import"])
    // Someone moves the branch to a commit of their own, not after docsh's last one.
    let head = try machine.gitText(["rev-parse", "HEAD"])
    let tree = try machine.gitText(["rev-parse", "HEAD^{tree}"])
    let other = try machine.gitText(["commit-tree", tree, "-p", head + "~1", "-m", "elsewhere"])
    try machine.git(["update-ref", "HEAD", other])
    _ = try commandsOfASave("plan 3")
    #expect(try machine.gitText(["rev-parse", "HEAD~1"]) == other)
    #expect(try machine.gitText(["show", "HEAD:Work/Plan.md"]).hasSuffix("\n---\nplan 3"))
  }

  @Test func aBranchMovedWhileTheCommitIsWrittenIsCommittedOntoNotOver() throws {
    #expect(try commandsOfASave("plan 2") == ["fast-import"])
    let head = try machine.gitText(["rev-parse", "HEAD"])
    let tree = try machine.gitText(["rev-parse", "HEAD^{tree}"])
    let other = try machine.gitText(["commit-tree", tree, "-p", head + "~1", "-m", "elsewhere"])
    // Between docsh reading the branch and fast-import moving it, someone else moves it.
    faults.arm(
      .command("fast-import", occurrence: 1),
      .runFirst(arguments: ["update-ref", "HEAD", other], folder: machine.folder))
    try machine.edit { try put("plan 3", at: "Work", "Plan", in: $0) }
    #expect(try machine.gitText(["rev-parse", "HEAD~1"]) == other)
    #expect(try machine.gitText(["show", "HEAD:Work/Plan.md"]).hasSuffix("\n---\nplan 3"))
  }

  @Test func aPackedBranchIsReadThroughGit() throws {
    try machine.git(["pack-refs", "--all"])
    let commands = try commandsOfASave("plan 2")
    #expect(commands.contains("rev-parse"))
    #expect(try machine.gitText(["show", "HEAD:Work/Plan.md"]).hasSuffix("\n---\nplan 2"))
  }

  @Test func aFixedCommitDateIsAskedOfGit() throws {
    let dated = try Machine(
      "laptop", in: sandbox, number: 1,
      runner: SystemGitRunner(
        environment: sandbox.environment.merging(
          ["GIT_COMMITTER_DATE": "1700000000 +0200"], uniquingKeysWith: { $1 })))
    try dated.edit { try put("plan 2", at: "Work", "Plan", in: $0) }
    #expect(try machine.gitText(["log", "-1", "--format=%ct %ci"]).hasPrefix("1700000000 "))
    #expect(try machine.gitText(["log", "-1", "--format=%ci"]).hasSuffix("+0200"))
  }
}
