import DocsKit
import DocsTestSupport
import Foundation
import Testing

/// Through the real binary, a bare remote and plain `git clone`s: layout 2, where every
/// document is `CATEGORY/NAME.md` and the tree holds `.docsh/layout` and two guard folders;
/// a repository of layout 1 converted once by renames git follows, on two machines; a marker
/// of a newer layout refused.
@Suite struct MarkdownLayoutTests {
  let machines: TwoMachines
  var sandbox: GitSandbox { machines.sandbox }
  var remote: String { machines.remote }
  var laptop: SyncMachine { machines.laptop }
  var desktop: SyncMachine { machines.desktop }

  init() throws { machines = try TwoMachines("mdlayout") }

  static let bundle = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/files-layout.bundle").path

  /// The marker and the guard folders, as every tree of layout 2 holds them.
  static let layoutFiles = [
    "%75pdate docsh (layout 2)/.docsh-layout", ".docsh/layout",
    "u%70date docsh (layout 2)/.docsh-layout",
  ]

  /// The remote as a machine of layout 1 left it, and that machine (the laptop) as the
  /// previous docsh set it up — its `.git` without a work tree, one save not pushed — with
  /// its store file gone, so that its next sync writes it from its own HEAD.
  func restoreLayoutOne() throws {
    let folder = sandbox.folder.path
    try sandbox.text(
      ["fetch", "--quiet", Self.bundle, "refs/remotes/origin/main:refs/heads/main"], in: remote)
    try FileManager.default.createDirectory(
      atPath: laptop.folder, withIntermediateDirectories: true)
    try sandbox.text(["init", "--quiet", laptop.folder], in: folder)
    for arguments in [
      ["config", "core.bare", "true"], ["config", "docsh.layout", "files"],
      ["remote", "add", "origin", remote], ["config", "branch.main.remote", "origin"],
      ["config", "branch.main.merge", "refs/heads/main"],
      [
        "fetch", "--quiet", Self.bundle, "refs/heads/main:refs/heads/main",
        "refs/remotes/origin/main:refs/remotes/origin/main",
      ],
    ] {
      try laptop.gitText(arguments)
    }
  }

  /// The paths of `revision`'s tree in `repository`.
  func paths(_ revision: String, in repository: String) throws -> [String] {
    try sandbox.text(["ls-tree", "-r", "--name-only", revision], in: repository)
      .split(separator: "\n").map(String.init)
  }

  @Test func aRepositoryOfLayoutOneIsConvertedByRenamesAndTwoMachinesMergeWithoutDuplicates()
    throws
  {
    try restoreLayoutOne()
    #expect(
      try paths("main", in: remote) == [
        "Home/.docsh-category", "Home/Groceries", "Work/.docsh-category", "Work/Plan",
        "Work/notes.txt",
      ])
    // The desktop, of this version, is the first to sync: it converts the remote.
    let first = try desktop.run("sync '\(remote)'")
    #expect(first.status == 0, "\(first.errors)")
    #expect(first.output.contains("the repository's documents are now .md files"))
    let converted =
      ([
        "Home/.docsh-category", "Home/Groceries.md", "Work/.docsh-category", "Work/Plan.md",
        "Work/notes.txt.md",
      ] + Self.layoutFiles).sorted()
    #expect(try paths("main", in: remote) == converted)
    // The conversion renames, and changes no document: git sees each file moved as it was.
    let renames = try sandbox.text(
      ["show", "--format=", "-M", "--name-status", "main"], in: remote)
    for name in ["Home/Groceries", "Work/Plan", "Work/notes.txt"] {
      #expect(renames.contains("R100\t\(name)\t\(name).md"), "\(renames)")
    }
    try desktop.succeed("write Work/notes.txt a list, from the desktop")
    try desktop.sync()

    // The laptop, updated since, syncs with its save of the previous version not pushed.
    let second = try laptop.run("sync")
    #expect(second.status == 0, "\(second.errors)")
    #expect(second.output.contains("the repository's documents are now .md files"))
    try desktop.sync()
    let expected = [
      "Work/": "", "Home/": "", "Work/Plan": "step one\nstep two\n",
      "Work/notes.txt": "a list, from the desktop", "Home/Groceries": "milk and eggs",
    ]
    let laptopContents = try laptop.contents()
    #expect(laptopContents == expected, "\(laptopContents)")
    #expect(try desktop.contents() == laptopContents)
    #expect(try laptop.succeed("find --tag project") == "Work/Plan\n")
    // No duplicate, no deletion, nothing of layout 1 left, on the remote and in both stores.
    #expect(try paths("main", in: remote) == converted)
    #expect(try laptop.headHoldsTheStore() && desktop.headHoldsTheStore())
    // History goes on across the conversion: docsh's log, and git's --follow in a clone.
    #expect(try laptop.succeed("log Work/Plan").split(separator: "\n").count == 2)
    let clone = sandbox.folder.path("clone")
    try sandbox.text(["clone", "--quiet", remote, clone], in: sandbox.folder.path)
    let followed = try sandbox.text(
      ["log", "--follow", "--format=%s", "--", "Work/Plan.md"], in: clone)
    #expect(followed.contains("1 changed: Work/Plan\n"), "\(followed)")
    #expect(followed.hasSuffix("5 new: Work/, Home/, Work/Plan, Work/notes.txt, Home/Groceries"))
    // Once converted, a save commits only what it changed.
    try laptop.succeed("write Work/Plan step three")
    #expect(try laptop.subjects().first == "1 changed: Work/Plan")
  }

  @Test func namesWithAnExtensionOfTheirOwnRoundTripThroughAClone() throws {
    try laptop.succeed(
      "mkdir Work; new Work/Plan plan; new Work/Plan.md md; new Work/notes.txt txt; sync '\(remote)'"
    )
    let clone = sandbox.folder.path("clone")
    try sandbox.text(["clone", "--quiet", remote, clone], in: sandbox.folder.path)
    #expect(
      try paths("HEAD", in: clone)
        == (["Work/.docsh-category", "Work/Plan.md", "Work/Plan.md.md", "Work/notes.txt.md"]
        + Self.layoutFiles).sorted())
    // In the clone: a note made as Obsidian makes one, and a file that is no note.
    try Data("from the clone\n".utf8).write(to: URL(fileURLWithPath: clone + "/Work/Idea.md"))
    try Data("a list\n".utf8).write(to: URL(fileURLWithPath: clone + "/Work/todo.txt"))
    for arguments in [
      ["add", "-A"], ["commit", "--quiet", "-m", "by hand"], ["push", "--quiet", "origin", "HEAD"],
    ] {
      try sandbox.text(arguments, in: clone)
    }
    let result = try laptop.run("sync")
    #expect(result.status == 0)
    #expect(
      result.errors
        == "docsh: warning: Work/todo.txt: not a .md file, so no document; left in the repository as it is\n"
    )
    let fresh = try desktop.run("sync '\(remote)'")
    #expect(fresh.status == 0)
    #expect(fresh.errors.contains("Work/todo.txt: not a .md file, so no document"))
    let expected = [
      "Work/": "", "Work/Plan": "plan", "Work/Plan.md": "md", "Work/notes.txt": "txt",
      "Work/Idea": "from the clone\n",
    ]
    #expect(try laptop.contents() == expected)
    #expect(try desktop.contents() == expected)
    #expect(try paths("main", in: remote).contains("Work/todo.txt"))
  }

  @Test func aCloneThatRemovesTheMarkerAndGuardsGetsThemBackAndNamesStayRead() throws {
    try laptop.succeed("mkdir Work; new Work/Plan plan; sync '\(remote)'")
    try desktop.sync(remote)
    let clone = sandbox.folder.path("clone")
    try sandbox.text(["clone", "--quiet", remote, clone], in: sandbox.folder.path)
    try sandbox.text(
      ["rm", "-r", "--quiet", ".docsh"] + LayoutMarkerNames.guardFolders, in: clone)
    // Plan edited in the clone, docsh's header kept.
    let path = clone + "/Work/Plan.md"
    let text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text.hasSuffix("\n---\nplan"))
    try Data(text.replacingOccurrences(of: "\n---\nplan", with: "\n---\nedited").utf8).write(
      to: URL(fileURLWithPath: path))
    for arguments in [
      ["commit", "--quiet", "-am", "no marker"], ["push", "--quiet", "origin", "HEAD"],
    ] {
      try sandbox.text(arguments, in: clone)
    }
    try laptop.sync()
    // Still Plan, not "Plan.md": the tree descends from one of layout 2.
    #expect(try laptop.contents() == ["Work/": "", "Work/Plan": "edited"])
    #expect(Set(Self.layoutFiles).isSubset(of: try paths("main", in: remote)))
    try desktop.sync()
    #expect(try desktop.contents() == laptop.contents())
  }

  @Test func aMarkerOfANewerLayoutIsRefusedInOneLineAndNothingChanges() throws {
    try laptop.succeed("mkdir Work; new Work/Plan plan; sync '\(remote)'")
    let clone = sandbox.folder.path("clone")
    try sandbox.text(["clone", "--quiet", remote, clone], in: sandbox.folder.path)
    try Data("docsh-layout 3\n".utf8).write(to: URL(fileURLWithPath: clone + "/.docsh/layout"))
    for arguments in [
      ["commit", "--quiet", "-am", "layout 3"], ["push", "--quiet", "origin", "HEAD"],
    ] {
      try sandbox.text(arguments, in: clone)
    }
    let store = try laptop.storeBytes()
    let head = try laptop.gitText(["rev-parse", "HEAD"])
    for machine in [laptop, desktop] {
      let result = try machine.run("sync '\(remote)'")
      #expect(result.status == 1, "\(machine.name)")
      #expect(
        result.errors.hasSuffix(
          "error: .docsh/layout says 'docsh-layout 3', a layout this docsh does not read (it reads up to docsh-layout 2): update docsh; nothing was changed\n"
        ), "\(machine.name): \(result.errors)")
      #expect(result.errors.filter { $0 == "\n" }.count == 1)
    }
    #expect(try laptop.storeBytes() == store)
    #expect(try laptop.gitText(["rev-parse", "HEAD"]) == head)
    // The desktop, which had no notes, took none in.
    #expect((try? desktop.contents()) ?? [:] == [:])
  }
}

/// The guard folders' names, as a clone shows them (``LayoutMarker`` is DocsKit's own).
enum LayoutMarkerNames {
  static let guardFolders = ["%75pdate docsh (layout 2)", "u%70date docsh (layout 2)"]
}
