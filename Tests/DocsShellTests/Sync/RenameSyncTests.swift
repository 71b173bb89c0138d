import DocsKit
import DocsTestSupport
import Foundation
import Testing

/// A rename's link rewrite survives a sync: one machine renames a document (rewriting the
/// links to it), the other side edits a document linking to it; the merged text links to
/// the new name. Two stores synced by a bare repository, and a plain `git clone` of it.
@Suite struct RenameSyncTests {
  let machines: TwoMachines
  var sandbox: GitSandbox { machines.sandbox }
  var laptop: SyncMachine { machines.laptop }
  var desktop: SyncMachine { machines.desktop }

  init() throws { machines = try TwoMachines("renamesync") }

  /// Work/Plan and Work/Notes linking to it, on both machines.
  func startBoth() throws {
    try laptop.succeed(
      """
      mkdir Work Home
      new Work/Plan plan
      new Work/Notes <<END
      one [[Plan]]
      two
      three
      END
      """)
    try laptop.sync(machines.remote)
    try desktop.sync(machines.remote)
  }

  /// The desktop's edits: the link's own line, a new link to the old name beside a code
  /// sample that must stay, and a new document linking to it from another category.
  func editOnTheDesktop() throws {
    try desktop.succeed(
      """
      write Work/Notes <<END
      one [[Plan#Friday|the plan]] edited
      two
      three, and `[[Plan]]` in code, and [[Plan]]
      END
      new Home/List 'see [[Work/Plan]]'
      """)
  }

  static let expected = [
    "Work/": "", "Home/": "", "Work/Roadmap": "plan",
    "Work/Notes":
      "one [[Roadmap#Friday|the plan]] edited\ntwo\nthree, and `[[Plan]]` in code, and [[Roadmap]]\n",
    "Home/List": "see [[Work/Roadmap]]",
  ]

  @Test(arguments: [true, false])
  func theMergedTextLinksToTheNewName(renamerSyncsFirst: Bool) throws {
    try startBoth()
    try laptop.succeed("mv Work/Plan Work/Roadmap")
    try editOnTheDesktop()
    if renamerSyncsFirst {
      try laptop.sync()
      try desktop.sync()
      try laptop.sync()
    } else {
      try desktop.sync()
      try laptop.sync()
      try desktop.sync()
    }
    #expect(try laptop.contents() == Self.expected)
    #expect(try desktop.contents() == Self.expected)
    #expect(!(try laptop.succeed("check").contains("links:")))
  }

  @Test func anEditInAPlainCloneFollowsTheRename() throws {
    try startBoth()
    let clone = sandbox.folder.path("clone")
    try sandbox.text(["clone", "--quiet", machines.remote, clone], in: sandbox.folder.path)
    let notes = clone + "/Work/Notes.md"
    let text = try String(contentsOfFile: notes, encoding: .utf8)
    try Data(
      text.replacingOccurrences(of: "one [[Plan]]", with: "one [[Plan]] by hand").utf8
    ).write(to: URL(fileURLWithPath: notes))
    for arguments in [
      ["commit", "--quiet", "-a", "-m", "by hand"], ["push", "--quiet", "origin", "HEAD"],
    ] {
      try sandbox.text(arguments, in: clone)
    }
    try laptop.succeed("mv Work/Plan Work/Roadmap")
    try laptop.sync()
    #expect(try laptop.contents()["Work/Notes"] == "one [[Roadmap]] by hand\ntwo\nthree\n")
    try sandbox.text(["pull", "--quiet"], in: clone)
    let pulled = try String(contentsOfFile: notes, encoding: .utf8)
    #expect(pulled.hasSuffix("---\none [[Roadmap]] by hand\ntwo\nthree\n"))
  }
}
