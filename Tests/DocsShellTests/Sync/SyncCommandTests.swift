import DocsKit
import DocsTestSupport
import Foundation
import Testing

/// `sync` through the real binary: two machines (two homes, two stores) and a bare remote on
/// local disk.
@Suite struct SyncCommandTests {
  let machines: TwoMachines
  var sandbox: GitSandbox { machines.sandbox }
  var remote: String { machines.remote }
  var laptop: SyncMachine { machines.laptop }
  var desktop: SyncMachine { machines.desktop }

  init() throws { machines = try TwoMachines("shellsync") }

  /// The laptop with Work/Plan and Home/List, synced; the desktop, without notes, synced.
  func startBoth() throws {
    try laptop.succeed("mkdir Work Home; new Work/Plan plan 0; new Home/List list 0")
    #expect(try laptop.sync(remote) == "Synced: 0 changes in, 4 out.\n")
    #expect(
      try desktop.sync(remote)
        == "Synced: 4 changes in, 0 out.\nnote: fetched the notes of the remote\n")
  }

  // MARK: - The first time

  @Test func theFirstSyncMakesTheFolderARepositoryWhoseCloneIsAFolderOfNotes() throws {
    let output = try laptop.succeed(
      "mkdir Work Empty; new Work/Plan Ship it; new 'Work/Q: why?' because; sync '\(remote)'")
    #expect(output == "Synced: 0 changes in, 4 out.\n")
    #expect(FileManager.default.fileExists(atPath: laptop.folder + "/.git"))
    // Nothing in the repository's config names a program: docsh moved elsewhere, or another
    // docsh, finds the repository working.
    let config = try laptop.gitText(["config", "--local", "--list"])
    #expect(!config.contains("--merge-file") && !config.contains("merge.docsh"))
    #expect(!config.contains(DocshProcess.executable.resolvingSymlinksInPath().path))
    #expect(try laptop.gitText(["config", "--local", "docsh.layout"]) == "files")
    #expect(try laptop.gitText(["remote", "get-url", "origin"]) == remote)
    #expect(try laptop.gitText(["config", "branch.main.merge"]) == "refs/heads/main")
    // Stock git in the store's folder: the log names the documents' files; there is no work
    // tree, so nothing shows as deleted.
    let stat = try laptop.gitText(["log", "--stat", "--format=%s"])
    #expect(stat.contains("Work/Plan.md") && stat.contains("Work/Q%3A why%3F.md"))
    #expect(!(try laptop.git(["status"]).text.contains("deleted")))
    #expect(try laptop.headHoldsTheStore())
    // A clone of the remote is a folder per category, a file NAME.md per document, the
    // layout's marker and the two guard folders an older docsh refuses.
    let clone = sandbox.folder.path("clone")
    try sandbox.text(["clone", "--quiet", remote, clone], in: sandbox.folder.path)
    #expect(
      try sandbox.text(["ls-files"], in: clone)
        == """
        %75pdate docsh (layout 2)/.docsh-layout
        .docsh/layout
        Empty/.docsh-category
        Work/.docsh-category
        Work/Plan.md
        Work/Q%3A why%3F.md
        u%70date docsh (layout 2)/.docsh-layout
        """)
    let marker = try String(contentsOfFile: clone + "/.docsh/layout", encoding: .utf8)
    #expect(marker.hasPrefix("docsh-layout 2\n"))
    let plan = try String(contentsOfFile: clone + "/Work/Plan.md", encoding: .utf8)
    #expect(plan.hasPrefix("---\nid: ") && plan.hasSuffix("\n---\nShip it"))
  }

  @Test func editsAdditionsDeletionsAndRenamesMadeInACloneComeIn() throws {
    try startBoth()
    let clone = sandbox.folder.path("clone")
    try sandbox.text(["clone", "--quiet", remote, clone], in: sandbox.folder.path)
    func write(_ path: String, _ text: String) throws {
      let url = URL(fileURLWithPath: clone + "/" + path)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }
    let planID = try laptop.succeed("info Work/Plan").split(separator: "\n")
      .first { $0.hasPrefix("id") }
    let plan = try String(contentsOfFile: clone + "/Work/Plan.md", encoding: .utf8)
    try write("Work/Plan.md", plan + "\nedited in an editor")
    try write("Work/Fresh.md", "written with another tool\n")
    try write("Garden/Seeds.md", "tomatoes\n")
    for arguments in [
      ["mv", "Home/List.md", "Home/Groceries.md"], ["add", "-A"],
      ["commit", "--quiet", "-m", "by hand"], ["push", "--quiet", "origin", "HEAD"],
    ] {
      try sandbox.text(arguments, in: clone)
    }
    try sandbox.text(["rm", "--quiet", "Work/Fresh.md"], in: clone)
    try sandbox.text(["commit", "--quiet", "-m", "not that one"], in: clone)
    try write("Work/Kept.md", "kept\n")
    try sandbox.text(["add", "-A"], in: clone)
    try sandbox.text(["commit", "--quiet", "-m", "this one"], in: clone)
    try sandbox.text(["push", "--quiet", "origin", "HEAD"], in: clone)

    let result = try laptop.run("sync")
    #expect(result.status == 0)
    #expect(result.errors == "")
    #expect(
      try laptop.contents() == [
        "Work/": "", "Home/": "", "Garden/": "", "Work/Plan": "plan 0\nedited in an editor",
        "Work/Kept": "kept\n", "Home/Groceries": "list 0", "Garden/Seeds": "tomatoes\n",
      ])
    // The edited file kept its document: the same id, and its history.
    #expect(
      try laptop.succeed("info Work/Plan").split(separator: "\n").first { $0.hasPrefix("id") }
        == planID)
    #expect(try laptop.succeed("log Work/Plan").split(separator: "\n").count == 2)
    #expect(try laptop.headHoldsTheStore())
    try desktop.sync()
    #expect(try desktop.contents() == laptop.contents())
  }

  @Test func filesInACloneThatCannotBeDocumentsAreWarnedAboutOnceAndKept() throws {
    try startBoth()
    let clone = sandbox.folder.path("clone")
    try sandbox.text(["clone", "--quiet", remote, clone], in: sandbox.folder.path)
    try FileManager.default.createDirectory(
      atPath: clone + "/Work/Sub", withIntermediateDirectories: true)
    try Data("top\n".utf8).write(to: URL(fileURLWithPath: clone + "/README.md"))
    try Data("deep\n".utf8).write(to: URL(fileURLWithPath: clone + "/Work/Sub/Note"))
    try Data([0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: clone + "/Work/Binary.md"))
    try Data("---\nid: not-an-id\n---\nx".utf8).write(
      to: URL(fileURLWithPath: clone + "/Work/Header.md"))
    try Data("ok\n".utf8).write(to: URL(fileURLWithPath: clone + "/Work/Good.md"))
    // Only NAME.md is a document: a file of another extension is left alone.
    try Data("a list\n".utf8).write(to: URL(fileURLWithPath: clone + "/Work/todo.txt"))
    try sandbox.text(["add", "-A"], in: clone)
    try sandbox.text(["commit", "--quiet", "-m", "odd files"], in: clone)
    try sandbox.text(["push", "--quiet", "origin", "HEAD"], in: clone)

    let result = try laptop.run("sync")
    #expect(result.status == 0)
    let warnings = result.errors.split(separator: "\n").map(String.init)
    #expect(warnings.count == 5, "\(warnings)")
    #expect(warnings.contains { $0.contains("Work/todo.txt: not a .md file, so no document") })
    for path in ["README.md", "Work/Sub/", "Work/Binary.md", "Work/Header.md", "Work/todo.txt"] {
      #expect(
        warnings.contains {
          $0.hasPrefix("docsh: warning: \(path)") && $0.hasSuffix("left in the repository as it is")
        }, "\(path): \(warnings)")
    }
    #expect(try laptop.contents()["Work/Good"] == "ok\n")
    // Nothing is lost on either side: the files stay in the repository, the next sync is
    // quiet about them.
    try laptop.succeed("write Work/Plan plan 1")
    let again = try laptop.run("sync")
    #expect(again.errors == "")
    try sandbox.text(["pull", "--quiet", "--ff-only"], in: clone)
    for path in ["README.md", "Work/Sub/Note", "Work/Binary.md", "Work/Header.md", "Work/todo.txt"]
    {
      #expect(FileManager.default.fileExists(atPath: clone + "/" + path), "\(path)")
    }
    #expect(
      try String(contentsOfFile: clone + "/Work/Plan.md", encoding: .utf8).hasSuffix("plan 1"))
    #expect(try laptop.contents()["Work/todo.txt"] == nil)
  }

  @Test(arguments: [false, true])
  func aSecondMachineWithoutNotesFetchesThem(hasAnEmptyStore: Bool) throws {
    try laptop.succeed("mkdir Work; new Work/Plan plan; sync '\(remote)'")
    if hasAnEmptyStore {
      try desktop.succeed("mkdir Empty; save; rmdir Empty")
      #expect(FileManager.default.fileExists(atPath: desktop.storePath))
    }
    #expect(
      try desktop.sync(remote)
        == "Synced: 2 changes in, 0 out.\nnote: fetched the notes of the remote\n")
    #expect(try desktop.contents() == ["Work/": "", "Work/Plan": "plan"])
    #expect(try desktop.gitText(["rev-parse", "HEAD"]) == laptop.gitText(["rev-parse", "HEAD"]))
    #expect(try desktop.headHoldsTheStore())
    #expect(try desktop.succeed("cat Work/Plan") == "plan")
  }

  @Test func aSecondMachineWithNotesMergesThemWithTheRemotes() throws {
    try laptop.succeed("mkdir Work; new Work/Plan laptop plan; new Work/Laptop laptop only")
    try laptop.sync(remote)
    try desktop.succeed("mkdir Work Home; new Work/Plan desktop plan; new Home/Desk desk only")
    #expect(
      try desktop.sync(remote)
        == """
        Synced: 2 changes in, 5 out.
        conflict: Work/Plan: created on both sides; the other side's is Work/Plan (conflict DATE)

        """)
    // Counted by object: the two Work categories became the desktop's one, so from the
    // laptop's side its Work/ went, the desktop's came, and its documents moved into it.
    // Out, by file of the remote's tree: two records, Home/Desk, Plan and its copy.
    #expect(try laptop.sync() == "Synced: 7 changes in, 0 out.\n")
    let expected = [
      "Work/": "", "Home/": "", "Work/Plan": "desktop plan",
      "Work/Plan (conflict DATE)": "laptop plan", "Work/Laptop": "laptop only",
      "Home/Desk": "desk only",
    ]
    #expect(try desktop.contents() == expected)
    #expect(try laptop.contents() == expected)
  }

  // MARK: - Converging

  @Test func editsOnBothSidesConverge() throws {
    try startBoth()
    try laptop.succeed("write Work/Plan plan laptop")
    try desktop.succeed("write Home/List list desktop; new Home/Shop milk")
    #expect(try laptop.sync() == "Synced: 0 changes in, 1 out.\n")
    #expect(try desktop.sync() == "Synced: 1 change in, 2 out.\n")
    #expect(try laptop.sync() == "Synced: 2 changes in, 0 out.\n")
    let expected = [
      "Work/": "", "Home/": "", "Work/Plan": "plan laptop", "Home/List": "list desktop",
      "Home/Shop": "milk",
    ]
    #expect(try laptop.contents() == expected)
    #expect(try desktop.contents() == expected)
    #expect(try laptop.headHoldsTheStore())
    #expect(try desktop.headHoldsTheStore())
  }

  @Test func conflictingEditsKeepBothVersionsAndSettleAfterOneMoreSync() throws {
    try startBoth()
    try laptop.succeed("write Work/Plan plan laptop")
    try desktop.succeed("write Work/Plan plan desktop")
    try laptop.sync()
    #expect(
      try desktop.sync()
        == """
        Synced: 1 change in, 2 out.
        conflict: Work/Plan: content changed on both sides; the other side's version is Work/Plan (conflict DATE)

        """)
    #expect(try laptop.sync() == "Synced: 2 changes in, 0 out.\n")
    let expected = [
      "Work/": "", "Home/": "", "Work/Plan": "plan desktop",
      "Work/Plan (conflict DATE)": "plan laptop", "Home/List": "list 0",
    ]
    #expect(try laptop.contents() == expected)
    #expect(try desktop.contents() == expected)
    // Settled: nothing more moves either way.
    #expect(try desktop.sync() == "Synced: 0 changes in, 0 out.\n")
    #expect(try laptop.sync() == "Synced: 0 changes in, 0 out.\n")
  }

  // MARK: - Saving commits

  @Test func onceSetUpEverySaveCommitsSayingWhatChanged() throws {
    try startBoth()
    try laptop.succeed("new Work/Notes hello; write Work/Plan plan 1")
    try laptop.succeed("mv Work/Notes Home/; save; rm Home/List")
    let subjects = Array(try laptop.subjects().prefix(3))
    #expect(
      subjects == [
        "1 deleted: Home/List", "1 changed: Home/Notes", "1 new, 1 changed: Work/Plan, Work/Notes",
      ])
    #expect(try laptop.headHoldsTheStore())
    #expect(
      try laptop.succeed("status")
        == "No unsaved changes.\n3 commits not pushed yet ('sync' sends them).\n")
  }

  @Test func aSaveWhoseCommitFailsStandsAndSaysSo() throws {
    try startBoth()
    // Another git holds the branch's lock: the commit after the save cannot move it.
    let lock = laptop.folder + "/.git/refs/heads/main.lock"
    #expect(FileManager.default.createFile(atPath: lock, contents: Data()))
    let result = try laptop.run("write Work/Plan plan 1")
    #expect(result.status == 0)
    #expect(
      result.errors.hasPrefix(
        "docsh: warning: saved, but not committed (commit the store: cannot lock ref "))
    #expect(result.errors.hasSuffix("); the next save or sync commits it\n"))
    #expect(result.errors.split(separator: "\n").count == 1)
    #expect(try laptop.contents()["Work/Plan"] == "plan 1")
    try FileManager.default.removeItem(atPath: lock)
    #expect(try laptop.sync() == "Synced: 0 changes in, 1 out.\n")
    #expect(try laptop.subjects().first == "1 changed: Work/Plan")
  }

  // MARK: - Without a repository

  @Test func aStoreInNoRepositoryWorksAsBeforeAndStartsNoGit() throws {
    let git = try WrappedGit(in: sandbox.folder.path("bin"))
    try laptop.succeed(
      "mkdir Work; new Work/Plan one; save; write Work/Plan two; status; ls Work; undo; redo",
      extra: git.environment)
    #expect(
      try laptop.succeed("status; cat Work/Plan", extra: git.environment)
        == "No unsaved changes.\ntwo")
    for command in ["log", "log Work/Plan", "diff Work/Plan", "restore Work/Plan HEAD"] {
      let result = try laptop.run(command, extra: git.environment)
      #expect(result.status == 1, "\(command)")
      #expect(
        result.errors
          == "-c:1: error: \(laptop.folder) is not in a git repository: 'sync REMOTE' sets one up\n",
        "\(command)")
    }
    // sync without a remote has nothing to sync with: it fails and, like any failing
    // script, saves nothing.
    let sync = try laptop.run("new Work/Later three; sync", extra: git.environment)
    #expect(sync.status == 1)
    #expect(
      sync.errors
        == "-c:1: error: \(laptop.folder) is not set up for syncing: run 'sync REMOTE' once\n")
    #expect(try laptop.contents()["Work/Later"] == nil)
    #expect(git.calls() == [])
    #expect(!FileManager.default.fileExists(atPath: laptop.folder + "/.git"))
  }

  // MARK: - Failures

  @Test func aScriptsSyncSavesFirstAndTheSaveStandsWhenFetchingFails() throws {
    let missing = sandbox.folder.path("missing.git")
    let result = try laptop.run("mkdir Work; new Work/Plan plan; sync '\(missing)'")
    #expect(result.status == 1)
    #expect(result.output == "")
    #expect(
      result.errors
        == "-c:1: error: fetch from origin: '\(missing)' does not appear to be a git repository\n"
    )
    #expect(try laptop.contents() == ["Work/": "", "Work/Plan": "plan"])
    #expect(try laptop.subjects() == ["2 new: Work/, Work/Plan"])
    #expect(try laptop.headHoldsTheStore())
    // Once the remote exists, plain sync sends what was saved.
    try FileManager.default.moveItem(atPath: remote, toPath: missing)
    #expect(try laptop.sync() == "Synced: 0 changes in, 2 out.\n")
  }

  @Test func aRemoteThatRefusesIsOneLineAndStatusCountsWhatIsNotPushedWithoutTheNetwork() throws {
    try startBoth()
    let hook = remote + "/hooks/pre-receive"
    try Data("#!/bin/sh\necho 'no pushes today' >&2\nexit 1\n".utf8).write(
      to: URL(fileURLWithPath: hook))
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
    try laptop.succeed("write Work/Plan plan 1")
    let refused = try laptop.run("sync")
    #expect(refused.status == 1)
    #expect(refused.output == "")
    #expect(
      refused.errors
        == "-c:1: error: push to origin: [remote rejected] (pre-receive hook declined)\n")
    // With the remote out of reach, status still counts from what was last fetched.
    let away = remote + ".away"
    try FileManager.default.moveItem(atPath: remote, toPath: away)
    #expect(
      try laptop.succeed("status")
        == "No unsaved changes.\n1 commit not pushed yet ('sync' sends them).\n")
    #expect(try laptop.succeed("status --json").contains("\"unpushed\":1"))
    try FileManager.default.moveItem(atPath: away, toPath: remote)
    try FileManager.default.removeItem(atPath: hook)
    #expect(try laptop.sync() == "Synced: 0 changes in, 1 out.\n")
    #expect(try laptop.succeed("status") == "No unsaved changes.\n")
    #expect(try laptop.succeed("status --json").contains("\"unpushed\":0"))
  }

  @Test func aPushOvertakenByTheOtherMachineIsMergedAndPushedAgain() throws {
    try startBoth()
    try desktop.succeed("write Home/List list desktop")
    try laptop.succeed("write Work/Plan plan laptop")
    // The desktop pushes its saved commit just before the laptop's first push.
    let once = sandbox.folder.path("overtaken")
    let git = try WrappedGit(
      in: sandbox.folder.path("bin"),
      before: """
        case " $* " in *" push "*)
          mkdir '\(once)' 2>/dev/null && HOME='\(desktop.home)' \\
            GIT_CONFIG_GLOBAL='\(desktop.globalConfig)' \\
            /usr/bin/git -C '\(desktop.folder)' push --quiet origin HEAD:refs/heads/main ;;
        esac
        """)
    #expect(try laptop.succeed("sync", extra: git.environment) == "Synced: 1 change in, 1 out.\n")
    #expect(git.calls().filter { $0.contains(" push ") }.count == 2)
    #expect(try desktop.sync() == "Synced: 1 change in, 0 out.\n")
    let expected = [
      "Work/": "", "Home/": "", "Work/Plan": "plan laptop", "Home/List": "list desktop",
    ]
    #expect(try laptop.contents() == expected)
    #expect(try desktop.contents() == expected)
  }

  @Test func aFreshMachineWithoutAGitIdentityCommitsWithoutWritingAnyConfig() throws {
    let fresh = try SyncMachine("fresh", in: sandbox, identity: false)
    let before = try Data(contentsOf: URL(fileURLWithPath: fresh.globalConfig))
    try fresh.succeed("mkdir Work; new Work/Plan plan; sync '\(remote)'")
    try fresh.succeed("write Work/Plan plan 2")
    #expect(try fresh.subjects() == ["1 changed: Work/Plan", "2 new: Work/, Work/Plan"])
    let authors = try fresh.gitText(["log", "--format=%an <%ae>|%cn <%ce>"])
    for line in authors.split(separator: "\n") {
      #expect(line.hasPrefix("docsh <docsh@") && line.contains("|docsh <docsh@"), "\(line)")
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: fresh.globalConfig)) == before)
    #expect(try fresh.git(["config", "--local", "--get-regexp", "^user\\."]).status == 1)
  }

  // MARK: - A lost store

  @Test(arguments: ["git missing from PATH", "a broken repository"])
  func aStoreGitCannotSpeakForIsNeverOpenedAsEmpty(failure: String) throws {
    try startBoth()
    try desktop.succeed("write Work/Plan plan 1")
    try FileManager.default.removeItem(atPath: desktop.storePath)
    var extra: [String: String] = [:]
    if failure == "git missing from PATH" {
      let empty = desktop.storePath + "-no-git-bin"
      try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
      extra["PATH"] = empty
    } else {
      let head = (desktop.storePath as NSString).deletingLastPathComponent + "/.git/HEAD"
      try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: head))
    }
    for command in ["ls", "new Work/Other x"] {
      let result = try desktop.run(command, extra: extra)
      #expect(result.status == 3, "\(failure): \(command): \(result.errors)")
      #expect(
        result.errors.contains("git could not say whether the repository holds it"),
        "\(failure): \(command): \(result.errors)")
    }
    // Nothing above made an empty store in its place.
    #expect(!FileManager.default.fileExists(atPath: desktop.storePath))
  }

  @Test(arguments: [false, true])
  func aLostStoreIsRefusedByEveryCommandButSyncWhichRestoresIt(damaged: Bool) throws {
    try startBoth()
    try desktop.succeed("write Work/Plan plan 1")
    let expected = try desktop.contents()
    let head = try desktop.gitText(["rev-parse", "--short=7", "HEAD"])
    let garbage = Data("{\"format\":\"docsh-st".utf8)
    if damaged {
      try garbage.write(to: URL(fileURLWithPath: desktop.storePath))
    } else {
      try FileManager.default.removeItem(atPath: desktop.storePath)
    }
    let how =
      damaged
      ? "but the last commit (\(head)) holds the store: 'sync' restores it"
      : "is missing, but the last commit (\(head)) holds the store: 'sync' writes it anew from there"
    for command in [
      "ls", "status", "cat Work/Plan", "new Work/Other x", "save", "log", "diff Work/Plan", "undo",
    ] {
      let result = try desktop.run(command)
      #expect(result.status == 3, "\(command)")
      #expect(result.output == "", "\(command)")
      #expect(result.errors.hasPrefix("-c:1: error: \(desktop.storePath) "), "\(command)")
      #expect(result.errors.hasSuffix(how + "\n"), "\(command): \(result.errors)")
    }
    #expect(try desktop.run("help sync").status == 0)
    // Nothing above wrote the store.
    #expect(
      damaged
        ? try desktop.storeBytes() == garbage
        : !FileManager.default.fileExists(atPath: desktop.storePath))
    #expect(
      try desktop.sync()
        == "Synced: 0 changes in, 1 out.\nnote: the store was restored from commit \(head) first\n")
    #expect(try desktop.contents() == expected)
    // The saved change the lost file held is back, and sent.
    #expect(try desktop.succeed("cat Work/Plan") == "plan 1")
    try laptop.sync()
    #expect(try laptop.contents() == expected)
    if damaged {
      #expect(
        try Data(contentsOf: URL(fileURLWithPath: desktop.storePath + ".bak")) == garbage)
    }
    #expect(try desktop.headHoldsTheStore())
  }
}
