import DocsKit
import DocsTestSupport
import Foundation
import Testing

/// Through the real binary: a repository of docsh 0.1 (the store file tracked) converts to
/// one file per document on its first sync and keeps its history; git speaks English to
/// docsh whatever the user's language; two machines editing different paragraphs of one
/// document merge without a conflict copy.
@Suite struct LayoutUpgradeTests {
  let machines: TwoMachines
  var sandbox: GitSandbox { machines.sandbox }
  var remote: String { machines.remote }
  var laptop: SyncMachine { machines.laptop }
  var desktop: SyncMachine { machines.desktop }

  init() throws { machines = try TwoMachines("upgrade") }

  static let bundle = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Fixtures/old-layout.bundle").path

  /// The remote as docsh 0.1 left it, and the laptop's clone of it with that version's
  /// setup: the store file checked out, the merge driver named by an absolute path that no
  /// longer exists (docsh moved since).
  func restoreOldLayout() throws {
    try FileManager.default.removeItem(atPath: remote)
    try sandbox.text(["clone", "--quiet", "--bare", Self.bundle, remote], in: sandbox.folder.path)
    try sandbox.text(["clone", "--quiet", remote, laptop.folder], in: sandbox.folder.path)
    try laptop.gitText([
      "config", "--local", "merge.docsh.driver", "'/old/place/docsh' --merge-file %O %A %B %P",
    ])
    try laptop.gitText(["config", "--local", "merge.docsh.name", "docsh store"])
  }

  @Test func aRepositoryOfTheOldLayoutConvertsOnItsFirstSyncAndKeepsItsHistory() throws {
    try restoreOldLayout()
    // Before: history reads the old layout.
    let before = try laptop.succeed("log Work/Plan")
    #expect(before.split(separator: "\n").count == 2)
    let sync = try laptop.run("sync")
    #expect(sync.status == 0, "\(sync.errors)")
    #expect(sync.output.contains("note: the repository now holds one file per document"))
    // A new commit on top of the old ones: nothing rewritten, nothing forced.
    let subjects = try laptop.subjects()
    #expect(subjects.count == 5)
    #expect(subjects.first == "docsh: one file per document")
    // Straight to the layout of today: NAME.md files, the marker and the guard folders.
    #expect(
      try laptop.gitText(["ls-tree", "-r", "--name-only", "HEAD"])
        == """
        %75pdate docsh (layout 2)/.docsh-layout
        .docsh/layout
        Home/.docsh-category
        Home/Groceries.md
        Work/.docsh-category
        Work/Plan.md
        u%70date docsh (layout 2)/.docsh-layout
        """)
    let config = try laptop.gitText(["config", "--local", "--list"])
    #expect(!config.contains("merge.docsh") && config.contains("docsh.layout=files"))
    // The old versions stay readable: log, diff and restore read both layouts.
    #expect(try laptop.succeed("log Work/Plan") == before)
    #expect(try laptop.succeed("log Home/Groceries").split(separator: "\n").count == 2)
    let first = String(try #require(before.split(separator: "\n").last?.prefix(7)))
    #expect(try laptop.succeed("diff Work/Plan \(first)").contains("+step two"))
    try laptop.succeed("restore Work/Plan \(first)")
    #expect(try laptop.succeed("cat Work/Plan") == "step one")
    #expect(try laptop.succeed("log Work/Plan").split(separator: "\n").count == 3)
    // The remote converted with the push: a clone is a folder of notes.
    #expect(
      try sandbox.text(["ls-tree", "-r", "--name-only", "main"], in: remote).contains(
        "Work/Plan.md"))
    // A second machine of the new version takes the converted remote.
    try laptop.sync()
    try desktop.sync(remote)
    #expect(try desktop.contents() == laptop.contents())
  }

  @Test func aSyncWithGitInGermanBehavesAsInEnglish() throws {
    try laptop.succeed("mkdir Work; new Work/Plan plan; sync '\(remote)'")
    let german = ["LANGUAGE": "de", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]
    try desktop.succeed("sync '\(remote)'", extra: german)
    try laptop.succeed("write Work/Plan plan laptop; sync", extra: german)
    #expect(try desktop.succeed("sync", extra: german) == "Synced: 1 change in, 0 out.\n")
    // A failure is English too: the refusal docsh reads (a remote that moved) and the
    // message it shows.
    let missing = try desktop.run("sync '\(sandbox.folder.path("nowhere.git"))'", extra: german)
    #expect(missing.status == 1)
    #expect(missing.errors.contains("does not appear to be a git repository"), "\(missing.errors)")
  }

  @Test func twoMachinesEditingDifferentParagraphsOfOneDocumentMergeWithoutAConflictCopy() throws {
    func here(_ command: String, _ lines: [String]) -> String {
      command + " <<END\n" + lines.joined(separator: "\n") + "\nEND"
    }
    try laptop.succeed(
      "mkdir Work\n" + here("new Work/Plan", ["first", "", "middle", "", "last"])
        + "\nsync '\(remote)'")
    try desktop.sync(remote)
    let start = try laptop.succeed("cat Work/Plan")
    #expect(start.hasPrefix("first\n\nmiddle\n\nlast"))
    try laptop.succeed(
      here("write Work/Plan", ["first, from the laptop", "", "middle", "", "last"]))
    try desktop.succeed(
      here("write Work/Plan", ["first", "", "middle", "", "last, from the desktop"]))
    try laptop.sync()
    let merged = try desktop.sync()
    #expect(!merged.contains("conflict"), "\(merged)")
    try laptop.sync()
    let both = try #require(try desktop.contents()["Work/Plan"])
    #expect(both.hasPrefix("first, from the laptop\n\nmiddle\n\nlast, from the desktop"))
    #expect(try desktop.contents().keys.sorted() == ["Work/", "Work/Plan"])
    #expect(try laptop.contents() == desktop.contents())
  }
}
