import DocsKit
import Foundation
import Testing

// Links as Obsidian writes and resolves them, through the real binary: headings, blocks,
// shown text, embeds and `/Category/Name` listed, found by backlinks and kept by renames;
// nothing in code touched; bare names resolved across categories, ambiguity reported.
extension TagsAndLinksTests {
  // MARK: - Obsidian's grammar and resolution

  /// Work/Plan with a heading and a block, and the links to it people write.
  func makeVault() throws {
    _ = try output(
      """
      mkdir Work Home
      new Work/Plan <<END
      # Friday
      Ship it. ^abc123
      See [[#Friday]].
      END
      new Work/Notes <<END
      [[Plan#Friday]] and [[Plan#^abc123]]
      [[Plan#Friday|the plan]] ![[Plan]]
      END
      new Home/List <<END
      [[/Work/Plan]] | [[Work/Plan\\|in a table]]
      END
      """)
  }

  @Test func everyFormResolvesAndIsABacklink() throws {
    try makeVault()
    #expect(
      try output("links Work/Notes")
        == """
        1: [[Plan#Friday]] -> Work/Plan
        1: [[Plan#^abc123]] -> Work/Plan
        2: [[Plan#Friday]] -> Work/Plan
        2: ![[Plan]] -> Work/Plan

        """)
    #expect(try output("links Work/Plan") == "3: [[#Friday]] -> Work/Plan\n")
    #expect(
      try output("links --json Home/List")
        == #"[{"line":1,"target":"/Work/Plan","text":null,"category":"Work","name":"Plan","candidates":[]},{"line":1,"target":"Work/Plan","text":"in a table","category":"Work","name":"Plan","candidates":[]}]"#
        + "\n")
    let backlinks = try output("backlinks Work/Plan")
    #expect(
      backlinks.split(separator: "\n").map {
        $0.split(separator: ":").prefix(2).joined(separator: ":")
      }
        == [
          "Home/List:1", "Home/List:1", "Work/Notes:1", "Work/Notes:1", "Work/Notes:2",
          "Work/Notes:2", "Work/Plan:3",
        ])
    #expect(!(try docsh("check").output.contains("links:")))
  }

  @Test func aRenameKeepsHeadingsBlocksShownTextAndTheirForm() throws {
    try makeVault()
    let moved = try docsh("mv Work/Plan Work/Roadmap; cat Work/Notes Home/List Work/Roadmap")
    #expect(moved.status == 0, "\(moved.errors)")
    #expect(moved.errors.contains("Rewrote 6 links in 2 documents."))
    #expect(
      moved.output
        == """
        [[Roadmap#Friday]] and [[Roadmap#^abc123]]
        [[Roadmap#Friday|the plan]] ![[Roadmap]]
        [[/Work/Roadmap]] | [[Work/Roadmap\\|in a table]]
        # Friday
        Ship it. ^abc123
        See [[#Friday]].

        """)
    #expect(try output("backlinks Work/Roadmap").split(separator: "\n").count == 7)
  }

  /// A document full of code samples naming Plan, and one real link after them.
  static let codeSamples = """
    Use `[[Plan]]` or ``a `[[Plan]]` b`` in text.
    ```sh
    echo "[[Plan]]"
    ```
    ~~~~ markdown
    [[Plan]]
    ~~~
    [[InFence]]
    ~~~~
    The real one: [[Plan]]
    ````
    [[Unclosed]] to the end
    ```
    """

  @Test func codeIsNeitherListedCheckedNorRewritten() throws {
    _ = try output("mkdir Work; new Work/Plan p; new Work/Samples <<END\n\(Self.codeSamples)\nEND")
    #expect(try output("links Work/Samples") == "10: [[Plan]] -> Work/Plan\n")
    #expect(try output("backlinks Work/Plan") == "Work/Samples:10: The real one: [[Plan]]\n")
    #expect(!(try output("check").contains("links:")))
    let moved = try docsh("mv Work/Plan Work/Roadmap; cat Work/Samples")
    #expect(moved.errors.contains("Rewrote 1 link in 1 document."))
    #expect(
      moved.output
        == Self.codeSamples.replacingOccurrences(
          of: "The real one: [[Plan]]", with: "The real one: [[Roadmap]]") + "\n")
  }

  @Test func aBareNameLooksInItsCategoryFirstThenTheOnlyOneAnywhere() throws {
    _ = try output(
      """
      mkdir Work Home Garden
      new Home/Shop s
      new Work/Notes n
      new Home/Notes n
      new Work/Plan '[[Shop]] [[Notes]] [[Tools]]'
      new Garden/Tools t
      new Garden/Todo '[[Notes]]'
      """)
    #expect(
      try output("links Work/Plan")
        == "1: [[Shop]] -> Home/Shop\n1: [[Notes]] -> Work/Notes\n1: [[Tools]] -> Garden/Tools\n")
    #expect(
      try output("links Garden/Todo")
        == "1: [[Notes]] -> (ambiguous: Home/Notes, Work/Notes)\n")
    #expect(
      try output("links --json Garden/Todo")
        == #"[{"line":1,"target":"Notes","text":null,"category":null,"name":null,"candidates":["Home/Notes","Work/Notes"]}]"#
        + "\n")
    #expect(
      try output("check").hasSuffix(
        "  links: 1 link names more than one document (write Category/Name)\n"
          + "    Garden/Todo:1: [[Notes]]: Home/Notes, Work/Notes\n"))
    #expect(try output("backlinks Home/Shop") == "Work/Plan:1: [[Shop]] [[Notes]] [[Tools]]\n")
    // Ambiguous: a link from another category reaches neither.
    #expect(try output("backlinks Home/Notes") == "")
    #expect(try output("backlinks Work/Notes") == "Work/Plan:1: [[Shop]] [[Notes]] [[Tools]]\n")
  }

  @Test func aRenameThatWouldChangeWhatALinkNamesGivesItItsCategory() throws {
    _ = try output(
      "mkdir Work Home; new Home/Shop s; new Work/Plan 'buy at [[Shop]]'; new Work/Old o")
    // Work/Old becomes Work/Shop: from Work, [[Shop]] would name it now.
    let moved = try docsh("mv Work/Old Work/Shop; cat Work/Plan; links Work/Plan")
    #expect(moved.status == 0, "\(moved.errors)")
    #expect(moved.output == "buy at [[Home/Shop]]1: [[Home/Shop]] -> Home/Shop\n")
  }

  @Test func aNameNoLinkCanHoldKeepsTheLinksAndSaysSo() throws {
    _ = try output("mkdir Work; new Work/Plan p; new Work/Notes 'see [[Plan]]'")
    let moved = try docsh("mv Work/Plan 'Work/C# plan'; cat Work/Notes")
    #expect(moved.status == 0, "\(moved.errors)")
    #expect(
      moved.errors.contains("Kept 1 link as written: a link cannot hold a name with #, |, [ or ]."))
    #expect(moved.output == "see [[Plan]]")
  }
}
