import DocsKit
import DocsTestSupport
import Foundation
import Testing

@testable import DocsShell

/// `log`, `diff`, `restore` and `sync` in a session (the shell harness with the store's
/// repository): what they print and how they fail, across edits, renames, moves and
/// deletions. Commits are dated 2026-11-29 15:00 UTC, so every line is known but the hashes.
@Suite struct HistoryCommandTests {
  let sandbox: GitSandbox
  let remote: String
  let harness: ShellHarness

  /// The date every commit of these tests carries, as git takes it and as `log` shows it.
  static let commitDate = "@1795964400 +0000"
  static let shownDate = "2026-11-29 15:00"

  init() throws {
    sandbox = try GitSandbox("history")
    remote = try sandbox.makeBareRemote()
    let runner = SystemGitRunner(
      environment: sandbox.environment.merging([
        "GIT_AUTHOR_DATE": Self.commitDate, "GIT_COMMITTER_DATE": Self.commitDate,
      ]) { $1 })
    harness = try ShellHarness(isInteractive: true, assumeYes: true, git: runner)
  }

  var folder: String { (harness.storePath as NSString).deletingLastPathComponent }

  /// The short hash of `revision`.
  func commit(_ revision: String) throws -> String {
    try sandbox.text(["rev-parse", "--short=7", revision], in: folder)
  }

  /// Runs `line`, which must not fail; its standard output.
  @discardableResult
  func run(_ line: String, more: [String] = [], sourceLocation: SourceLocation = #_sourceLocation)
    -> String
  {
    let result = harness.run(line, more: more)
    #expect(
      !result.errors.contains("error:"), "\(line): \(result.errors)", sourceLocation: sourceLocation
    )
    return result.output
  }

  /// Runs `line`, which must not fail; what it told the user on standard error (`Saved …`,
  /// `Restored …`).
  func told(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
    let result = harness.run(line)
    #expect(
      !result.errors.contains("error:"), "\(line): \(result.errors)", sourceLocation: sourceLocation
    )
    #expect(result.output == "", "\(line)", sourceLocation: sourceLocation)
    return result.errors
  }

  /// Plan made, edited, renamed, moved to a new category, then deleted, each step saved:
  /// the commit after each, oldest first.
  func makeHistory() throws -> [String] {
    run("mkdir Work; new Work/Plan one")
    #expect(run("sync '\(remote)'") == "Synced: 0 changes in, 2 out.\n")
    var commits = [try commit("HEAD")]
    run("write Work/Plan <<END", more: ["one", "two", "END"])
    run("save")
    commits.append(try commit("HEAD"))
    run("mv Work/Plan 'Work/Plan B'; save")
    commits.append(try commit("HEAD"))
    run("mkdir Later; mv 'Work/Plan B' Later/; save")
    commits.append(try commit("HEAD"))
    run("rm 'Later/Plan B'; save")
    commits.append(try commit("HEAD"))
    return commits
  }

  // MARK: - log

  @Test func logOfADeletedDocumentShowsEveryVersionByItsOldPath() throws {
    let c = try makeHistory()
    let date = Self.shownDate
    #expect(
      run("log 'Later/Plan B'") == """
        \(c[4])  \(date)    -  Later/Plan B (deleted)
        \(c[3])  \(date)  8 B  Later/Plan B
        \(c[2])  \(date)  8 B  Work/Plan B
        \(c[1])  \(date)  8 B  Work/Plan
        \(c[0])  \(date)  3 B  Work/Plan

        """)
    // Its old names find it too, and -n keeps the newest.
    #expect(run("log -n 2 Work/Plan").split(separator: "\n").count == 2)
    #expect(run("log -n 2 Work/Plan") == run("log -n 2 'Later/Plan B'"))
  }

  @Test func logWithoutANameListsTheStoresCommits() throws {
    let c = try makeHistory()
    let date = Self.shownDate
    #expect(
      run("log") == """
        \(c[4])  \(date)  1 deleted: Later/Plan B
        \(c[3])  \(date)  1 new, 1 changed: Later/, Later/Plan B
        \(c[2])  \(date)  1 changed: Work/Plan B
        \(c[1])  \(date)  1 changed: Work/Plan
        \(c[0])  \(date)  2 new: Work/, Work/Plan

        """)
    #expect(run("log -n 1") == "\(c[4])  \(date)  1 deleted: Later/Plan B\n")
  }

  @Test func logAsJSON() throws {
    _ = try makeHistory()
    let full = try sandbox.text(["rev-parse", "HEAD", "HEAD~1"], in: folder).split(
      separator: "\n")
    let text = run("log --json -n 2 'Later/Plan B'")
    let versions = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    #expect(versions.map { $0["commit"] as? String } == full.map(String.init))
    #expect(
      versions.map { $0["date"] as? String }
        == Array(repeating: "2026-11-29T15:00:00.000Z", count: 2))
    #expect(versions.map { $0["category"] as? String } == ["Later", "Later"])
    #expect(versions.map { $0["name"] as? String } == ["Plan B", "Plan B"])
    #expect(versions.first?["size"] is NSNull)
    #expect(versions.last?["size"] as? Int == 8)
    let commits = try #require(
      try JSONSerialization.jsonObject(with: Data(run("log --json -n 1").utf8)) as? [[String: Any]])
    #expect(commits.first?["message"] as? String == "1 deleted: Later/Plan B")
  }

  // MARK: - restore and diff

  @Test func aDeletedDocumentIsRestoredAsAnOrdinaryChangeThatSaveCommits() throws {
    let c = try makeHistory()
    #expect(told("restore 'Later/Plan B' \(c[3])") == "Restored Later/Plan B as at \(c[3]).\n")
    #expect(run("cat 'Later/Plan B'") == "one\ntwo\n")
    #expect(
      run("status") == """
        1 unsaved change (save to keep, revert to discard):
          new:  Later/Plan B
        4 commits not pushed yet ('sync' sends them).

        """)
    run("undo")
    #expect(harness.run("cat 'Later/Plan B'").errors.contains("no document named \"Plan B\""))
    run("redo; save")
    #expect(try sandbox.text(["log", "-1", "--format=%s"], in: folder) == "1 new: Later/Plan B")
    // The same document again: its history goes on.
    let versions = run("log 'Later/Plan B'").split(separator: "\n")
    #expect(versions.count == 6)
    #expect(versions.first?.hasPrefix(try commit("HEAD")) == true)
    #expect(versions.first?.hasSuffix("8 B  Later/Plan B") == true)
  }

  @Test func anExistingDocumentIsRestoredWithItsNameAndContentThen() throws {
    let c = try makeHistory()
    run("restore 'Later/Plan B' \(c[3]); save")
    #expect(told("restore 'Later/Plan B' \(c[0])") == "Restored Later/Plan as at \(c[0]).\n")
    #expect(run("cat Later/Plan") == "one")
    #expect(
      run("status") == """
        1 unsaved change (save to keep, revert to discard):
          changed:  Later/Plan (name, content)
        5 commits not pushed yet ('sync' sends them).

        """)
  }

  @Test func diffShowsTheChangeFromACommitToNowUnsavedChangesIncluded() throws {
    let c = try makeHistory()
    run("restore 'Later/Plan B' \(c[3]); save")
    #expect(run("diff 'Later/Plan B'") == "")
    #expect(
      run("diff 'Later/Plan B' \(c[0])") == """
        --- Later/Plan B \(c[0])
        +++ Later/Plan B now
        @@ -1 +1,2 @@
        -one
        \\ No newline at end of file
        +one
        +two

        """)
    run("append 'Later/Plan B' three")
    let head = try commit("HEAD")
    #expect(
      run("diff 'Later/Plan B'") == """
        --- Later/Plan B \(head)
        +++ Later/Plan B now
        @@ -1,2 +1,3 @@
         one
         two
        +three

        """)
  }

  // MARK: - Errors

  @Test func historyErrorsAreOneLine() throws {
    let c = try makeHistory()
    let cases = [
      ("log Work/Nothing", "no document Work/Nothing in the store at any commit"),
      ("diff 'Later/Plan B'", "no document named \"Plan B\" in \"Later\""),
      (
        "restore 'Later/Plan B' no-such-commit",
        "no commit \"no-such-commit\" in the store's history"
      ),
      ("restore Work/Plan \(c[4])", "no document Work/Plan in the store at \(c[4])"),
      (
        "restore 'Later/Plan B'",
        "restore: name a document and a commit (usage: restore NAME COMMIT)"
      ),
      (
        "log -n x",
        "log: -n takes how many versions to show (0 for all), not \"x\" (usage: log [-n N] [--json] [NAME])"
      ),
    ]
    for (line, message) in cases {
      let result = harness.run(line)
      #expect(result.output == "", "\(line)")
      #expect(result.errors == "error: \(message)\n", "\(line)")
    }
  }

  @Test func historyOfAStoreInNoRepositorySaysWhatItNeeds() throws {
    let plain = try ShellHarness(git: sandbox.runner)
    plain.run("mkdir Work; new Work/Plan one; save")
    let folder = (plain.storePath as NSString).deletingLastPathComponent
    for line in ["log", "log Work/Plan", "diff Work/Plan", "restore Work/Plan HEAD"] {
      #expect(
        plain.run(line).errors
          == "error: \(folder) is not in a git repository: 'sync REMOTE' sets one up\n", "\(line)")
    }
    #expect(!FileManager.default.fileExists(atPath: folder + "/.git"))
  }

  // MARK: - sync in the REPL

  @Test(arguments: ["n", "y"])
  func syncAsksBeforeSavingInTheREPL(answer: String) throws {
    let asking = try ShellHarness(isInteractive: true, answers: [answer], git: sandbox.runner)
    asking.run("mkdir Work; new Work/Plan one")
    let result = asking.run("sync '\(remote)'")
    if answer == "n" {
      #expect(
        result.errors == "Save 2 unsaved changes before syncing? [Y/n] n\nerror: nothing changed\n")
      #expect(result.output == "")
      #expect(try asking.session.context.hasChanges)
      #expect(try sandbox.text(["rev-list", "--all", "--count"], in: remote) == "0")
    } else {
      #expect(result.errors == "Save 2 unsaved changes before syncing? [Y/n] y\n")
      #expect(result.output == "Synced: 0 changes in, 2 out.\n")
      #expect(try !asking.session.context.hasChanges)
      #expect(
        try sandbox.text(["log", "--format=%s", "main"], in: remote) == "2 new: Work/, Work/Plan")
    }
  }

  // MARK: - Help and completion

  @Test func helpAndCompletionKnowTheHistoryCommands() throws {
    run("mkdir Work; new Work/Plan one")
    let completer = Completer(session: harness.session)
    #expect(completer.candidates(after: [], partial: "sy") == ["sync"])
    #expect(completer.candidates(after: [], partial: "lo") == ["log"])
    #expect(completer.candidates(after: [], partial: "di") == ["diff"])
    #expect(completer.candidates(after: ["help"], partial: "res") == ["restore"])
    for command in ["log", "diff", "restore"] {
      #expect(completer.candidates(after: [command], partial: "Work/P") == ["Work/Plan"])
    }
    #expect(completer.candidates(after: ["log"], partial: "-") == ["--json", "-n"])
    let remotes = sandbox.folder.path + "/rem"
    #expect(completer.candidates(after: ["sync"], partial: remotes) == [remote + "/"])
    let help = run("help")
    for command in ["sync", "log", "diff", "restore"] {
      #expect(help.contains("\n  \(command) "), "help lists \(command)")
    }
    #expect(run("help sync").hasPrefix("usage: sync [--encrypt] [--change-passphrase] [REMOTE]\n"))
    #expect(
      completer.candidates(after: ["sync"], partial: "--") == ["--change-passphrase", "--encrypt"])
  }
}
