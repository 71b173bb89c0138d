import DocsKit
import DocsTestSupport
import Foundation
import Testing

/// Tags through `sync`: the front matter's `tags:` line, and the merge of two machines'
/// tags element by element.
@Suite struct TagSyncTests {
  let machines: TwoMachines
  var sandbox: GitSandbox { machines.sandbox }
  var remote: String { machines.remote }
  var laptop: SyncMachine { machines.laptop }
  var desktop: SyncMachine { machines.desktop }

  init() throws { machines = try TwoMachines("tagsync") }

  func startBoth() throws {
    try laptop.succeed("mkdir Work; new Work/Plan plan; tag Work/Plan base gone")
    _ = try laptop.sync(remote)
    _ = try desktop.sync(remote)
    #expect(try desktop.succeed("tags") == "base  1\ngone  1\n")
  }

  @Test func aTagAddedOnEachMachineIsKeptAndARemovalHolds() throws {
    try startBoth()
    try laptop.succeed("tag Work/Plan from-laptop")
    try desktop.succeed("tag Work/Plan from-desktop; untag Work/Plan gone")
    _ = try laptop.sync()
    _ = try desktop.sync()
    _ = try laptop.sync()
    let expected = "base          1\nfrom-desktop  1\nfrom-laptop   1\n"
    #expect(try laptop.succeed("tags") == expected)
    #expect(try desktop.succeed("tags") == expected)
  }

  @Test func theGitLayoutHoldsATagsLineAndATagAddedInACloneComesIn() throws {
    try startBoth()
    let clone = sandbox.folder.path("clone")
    try sandbox.text(["clone", "--quiet", remote, clone], in: sandbox.folder.path)
    let path = clone + "/Work/Plan.md"
    let file = try String(contentsOfFile: path, encoding: .utf8)
    // A YAML list, which Obsidian's properties, pandoc and Hugo read as two tags.
    #expect(file.contains("\ntags:\n  - base\n  - gone\n---\nplan"))
    try Data(
      file.replacingOccurrences(of: "tags:\n  - base\n  - gone", with: "tags: [base, clone/edit]")
        .utf8
    ).write(to: URL(fileURLWithPath: path))
    for arguments in [
      ["commit", "--quiet", "-am", "tags by hand"], ["push", "--quiet", "origin", "HEAD"],
    ] {
      try sandbox.text(arguments, in: clone)
    }
    _ = try laptop.sync()
    #expect(try laptop.succeed("tags") == "base        1\nclone/edit  1\n")
    #expect(try laptop.succeed("find --tag clone/edit") == "Work/Plan\n")
    // The sync writes the file as docsh writes it, and its commit names it.
    _ = try laptop.sync()
    try sandbox.text(["pull", "--quiet"], in: clone)
    let again = try String(contentsOfFile: path, encoding: .utf8)
    #expect(again.contains("\ntags:\n  - base\n  - clone/edit\n---\nplan"))
  }

  @Test func aSyncThatOnlyRewritesAFileNamesItInItsCommitMessage() throws {
    try startBoth()
    let clone = sandbox.folder.path("clone")
    try sandbox.text(["clone", "--quiet", remote, clone], in: sandbox.folder.path)
    let path = clone + "/Work/Plan.md"
    let file = try String(contentsOfFile: path, encoding: .utf8)
    // The same tags, written as a flow list: the document does not change, its file does.
    try Data(
      file.replacingOccurrences(of: "tags:\n  - base\n  - gone", with: "tags: [base, gone]").utf8
    ).write(to: URL(fileURLWithPath: path))
    for arguments in [
      ["commit", "--quiet", "-am", "flow list"], ["push", "--quiet", "origin", "HEAD"],
    ] {
      try sandbox.text(arguments, in: clone)
    }
    _ = try laptop.sync()
    #expect(try laptop.succeed("tags") == "base  1\ngone  1\n")
    let message = try laptop.gitText(["log", "-1", "--format=%B"])
    #expect(message.hasPrefix("Sync: 1 file written as docsh writes them\n"))
    #expect(message.contains("their documents did not change):\n  Work/Plan\n"))
  }
}
