import DocsKit
import Foundation
import Testing

/// `export` and `import` through the real binary write and read front matter as the sync
/// layout does: files `NAME.md`, `tags` a YAML list in one header shared with the content's
/// own; import reads every form of `tags` and keeps keys it does not know in the content.
@Suite struct ExportFrontMatterTests {
  let folder: DocshProcess.Folder

  init() throws { folder = try DocshProcess.Folder() }

  /// Runs `script` against the store `name`, which must succeed; its standard output.
  @discardableResult
  func output(
    _ script: String, store name: String = "store.json",
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    let result = try DocshProcess.run(
      ["--store", folder.path(name), "-c", script], home: folder.path("home"))
    #expect(result.status == 0, "\(script): \(result.errors)", sourceLocation: sourceLocation)
    return result.output
  }

  func write(_ text: String, to path: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  }

  @Test func exportSharesOneHeaderWithTheContentsOwnAndImportGivesBothBack() throws {
    try output(
      """
      mkdir Work
      new Work/Plan <<END
      ---
      title: The plan
      aliases: [P]
      ---
      body
      END
      tag Work/Plan a b/c "yes"
      """)
    let out = folder.path("out")
    try output("export '\(out)'")
    #expect(
      try String(contentsOfFile: out + "/Work/Plan.md", encoding: .utf8)
        == "---\ntags:\n  - a\n  - b/c\n  - \"yes\"\ntitle: The plan\naliases: [P]\n---\nbody\n")
    try output("import '\(out)/Work'", store: "other.json")
    #expect(
      try output("cat Work/Plan; tags", store: "other.json")
        == "---\ntitle: The plan\naliases: [P]\n---\nbody\na    1\nb/c  1\nyes  1\n")
  }

  @Test(arguments: [
    ("tags: a b/c\n", "the line docsh wrote before"),
    ("tags: [a, b/c]\n", "a flow list"),
    ("tags:\n  - a\n  - \"b/c\"\n", "a block list"),
  ])
  func importReadsEveryFormOfTags(header: String, form: String) throws {
    try write("---\n" + header + "---\nbody\n", to: folder.path("in/Work/Plan.md"))
    try output("import '\(folder.path("in/Work"))'")
    #expect(
      try output("cat Work/Plan; find --tag b/c; find --tag a") == "body\nWork/Plan\nWork/Plan\n",
      "\(form)")
  }

  @Test func importKeepsKeysItDoesNotKnowAndTakesAClonesFileWithoutItsIdentity() throws {
    try write(
      "---\ntitle: Kept\ntags: [x]\n---\nbody\n", to: folder.path("in/Notes/Mine.md"))
    // A file of a sync clone: its id and date are not taken, its tags and content are.
    try write(
      """
      ---
      id: 1b4e28ba-2fa1-41d2-883f-0016d3cca427
      modified: 2026-12-01T23:29:00.123Z
      tags:
        - y
      ---
      from a clone
      """, to: folder.path("in/Notes/Cloned.txt.md"))
    try output("import '\(folder.path("in/Notes"))'")
    #expect(try output("ls Notes").contains("Cloned.txt"))
    #expect(try output("cat Notes/Mine") == "---\ntitle: Kept\n---\nbody\n")
    #expect(try output("cat Notes/Cloned.txt") == "from a clone")
    #expect(try output("find --tag x; find --tag y") == "Notes/Mine\nNotes/Cloned.txt\n")
    let info = try output("info Notes/Cloned.txt")
    #expect(!info.contains("1b4e28ba-2fa1-41d2-883f-0016d3cca427"))
  }
}
