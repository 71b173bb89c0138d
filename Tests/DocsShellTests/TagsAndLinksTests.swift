import DocsKit
import Foundation
import Testing

/// Tags and `[[links]]` through the real binary: every command and option, the rename that
/// rewrites links and its undo, a v1 store converted, export and import.
@Suite struct TagsAndLinksTests {
  let folder: DocshProcess.Folder
  let store: String

  init() throws {
    folder = try DocshProcess.Folder()
    store = folder.path("store.json")
  }

  /// Runs `script` against the store (saving at the end, as a script does).
  @discardableResult
  func docsh(_ script: String, _ extra: [String] = [], input: String = "") throws
    -> DocshProcess.Result
  {
    try DocshProcess.run(
      ["--store", store] + extra + ["-c", script], input: input, home: folder.path("home"))
  }

  /// Runs `script`, which must succeed; its standard output.
  func output(_ script: String, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> String
  {
    let result = try docsh(script)
    #expect(result.status == 0, "\(script): \(result.errors)", sourceLocation: sourceLocation)
    return result.output
  }

  func storeText() throws -> String { try String(contentsOfFile: store, encoding: .utf8) }

  // MARK: - Tags

  @Test func tagUntagAndTagsCountDocumentsAndShowTheFirstSpelling() throws {
    _ = try output("mkdir Work; new Work/Plan p; new Work/Notes n; new Work/Old o")
    _ = try output("tag Work/Plan Swift project/docsh; tag Work/Notes swift '#urgent'")
    #expect(try output("tags") == "project/docsh  1\nSwift          2\nurgent         1\n")
    #expect(
      try output("tags --json")
        == #"[{"tag":"project/docsh","documents":1},{"tag":"Swift","documents":2},{"tag":"urgent","documents":1}]"#
        + "\n")
    _ = try output("untag Work/Notes SWIFT urgent")
    // A tag no document holds is gone.
    #expect(try output("tags") == "project/docsh  1\nSwift          1\n")
    // Stored in the document's object, as first written.
    #expect(try storeText().contains(#""tags":["project/docsh","Swift"]"#))
  }

  @Test func tagsCompareIgnoringCaseAndAccents() throws {
    _ = try output("mkdir Food; new Food/Cake c; new Food/Tea t")
    _ = try output("tag Food/Cake Café; tag Food/Tea CAFE")
    #expect(try output("tags") == "Café  2\n")
    #expect(try output("find --tag cafe") == "Food/Cake\nFood/Tea\n")
  }

  @Test func aPatternTagsEveryDocumentItMatchesInOneUndoStep() throws {
    _ = try output("mkdir Work; new Work/Plan-1 a; new Work/Plan-2 b; new Work/Other c")
    #expect(try output("tag 'Work/Plan-*' draft; find --tag draft") == "Work/Plan-1\nWork/Plan-2\n")
    #expect(try output("tag 'Work/Plan-*' x; undo; tags") == "draft  2\n")
    let none = try docsh("tag 'Work/Nope*' draft")
    #expect(none.status != 0 && none.errors.contains("nothing matches \"Nope*\" in \"Work\""))
  }

  @Test func findWithSeveralTagsKeepsDocumentsHoldingThemAll() throws {
    _ = try output("mkdir Work Home; new Work/Plan p; new Work/Notes n; new Home/Plan h")
    _ = try output("tag Work/Plan a b; tag Work/Notes a; tag Home/Plan a b")
    #expect(try output("find --tag a --tag b") == "Home/Plan\nWork/Plan\n")
    #expect(try output("find --tag a notes") == "Work/Notes\n")
    #expect(
      try output("find --json --tag b Work")
        == "[]\n")
    let json = try output("find --json --tag a notes")
    #expect(json.contains(#""tags":["a"]"#))
    let missing = try docsh("find")
    #expect(missing.status != 0 && missing.errors.contains("give the text to look for"))
  }

  @Test func lsLongAndInfoShowTags() throws {
    _ = try output("mkdir Work; new Work/Plan p; new Work/Notes n; tag Work/Plan urgent q/1")
    let long = try output("ls -l Work")
    #expect(long.contains("#q/1 #urgent"))
    #expect(!(try output("ls Work")).contains("#urgent"))
    #expect(try output("info Work/Plan").contains("tags:      q/1 urgent"))
    #expect(try output("ls --json Work").contains(#""tags":["q/1","urgent"]"#))
  }

  @Test func grepAndSearchAreNarrowedByTag() throws {
    _ = try output("mkdir Work; new Work/A release day; new Work/B release night; tag Work/B keep")
    #expect(try output("grep --tag keep release /") == "Work/B:1: release night\n")
    #expect(try output("grep -l --tag keep release /") == "Work/B\n")
    #expect(try output("grep -c --tag keep release /") == "Work/B:1\n")
    #expect(try output("grep release /") == "Work/A:1: release day\nWork/B:1: release night\n")
    let hits = try output("search --json --tag keep release")
    #expect(hits.contains(#""name":"B""#) && !hits.contains(#""name":"A""#))
  }

  @Test func aCopyHoldsTheSourcesTags() throws {
    _ = try output("mkdir Work; new Work/Plan p; tag Work/Plan a; cp Work/Plan Work/Copy")
    #expect(try output("find --tag a") == "Work/Copy\nWork/Plan\n")
  }

  @Test func badTagsAreOneLineErrorsThatChangeNothing() throws {
    _ = try output("mkdir Work; new Work/Plan p")
    let before = try storeText()
    for bad in ["'a b'", "'a.b'", "'/a'", "'a//b'", "'#'", "'a/'"] {
      let result = try docsh("tag Work/Plan ok \(bad)")
      #expect(result.status != 0, "\(bad)")
      #expect(result.errors.split(separator: "\n").count == 1, "\(bad): \(result.errors)")
    }
    let result = try docsh("find --tag 'no way'")
    #expect(result.status != 0 && result.errors.contains("is not a tag"))
    #expect(try docsh("tag Work/Nope x").status != 0)
    #expect(try docsh("tag Work/Plan").status != 0)
    #expect(try storeText() == before)
  }

  @Test func tagsSurviveReopeningThroughTheIndexAndTheSaveLog() throws {
    _ = try output("mkdir A B; new A/One 1; new B/Two 2; tag A/One x; tag B/Two x y")
    // Reopened: the categories come from the index, faulted in for the answer.
    #expect(try output("find --tag x") == "A/One\nB/Two\n")
    _ = try output("untag B/Two x")
    #expect(try output("find --tag x; tags") == "A/One\nx  1\ny  1\n")
    _ = try DocshProcess.run(["--store", store, "--checkpoint"], home: folder.path("home"))
    #expect(try output("find --tag y") == "B/Two\n")
    #expect(
      try DocshProcess.run(["--store", store, "--check"], home: folder.path("home")).status == 0)
  }

  @Test func aStoreOfVersionOneOpensAndConvertsOnItsFirstSave() throws {
    let v1 = """
      {"format":"docsh-store","version":1,"generation":3,"categories":[
      {"id":"0b0e5b0e-3f0c-4b8e-9a43-6f1f5f0d2a11","name":"Work","documents":[
      {"id":"9a1c0b0e-3f0c-4b8e-9a43-6f1f5f0d2a12","name":"Plan","content":"See [[Notes]]\\n","size":14,"modified":"2026-11-29T14:53:00.123Z"},
      {"id":"9a1c0b0e-3f0c-4b8e-9a43-6f1f5f0d2a13","name":"Notes","content":"n\\n","size":2,"modified":"2026-11-29T14:53:00.123Z"}
      ]}
      ]}

      """
    try Data(v1.utf8).write(to: URL(fileURLWithPath: store))
    #expect(
      try output("cat Work/Plan; tags; backlinks Work/Notes")
        == "See [[Notes]]\nWork/Plan:1: See [[Notes]]\n")
    _ = try output("tag Work/Plan converted")
    _ = try DocshProcess.run(["--store", store, "--checkpoint"], home: folder.path("home"))
    let text = try storeText()
    #expect(text.contains(#""version":2"#))
    #expect(text.contains(#""tags":["converted"]"#))
    #expect(try output("find --tag converted") == "Work/Plan\n")
  }

  @Test func tagsInAVersionOneFileAreAnotherToolsKeyAndWhatIsNoTagIsSkipped() throws {
    func file(version: Int, tags: String) -> String {
      """
      {"format":"docsh-store","version":\(version),"generation":1,"categories":[
      {"id":"0b0e5b0e-3f0c-4b8e-9a43-6f1f5f0d2a11","name":"Work","documents":[
      {"id":"9a1c0b0e-3f0c-4b8e-9a43-6f1f5f0d2a12","name":"Plan","content":"p","size":1,"modified":"2026-11-29T14:53:00.123Z","tags":\(tags)}
      ]}
      ]}

      """
    }
    try Data(file(version: 1, tags: #"["x",{"nested":1}]"#).utf8).write(
      to: URL(fileURLWithPath: store))
    #expect(try output("tags; cat Work/Plan") == "p")
    try Data(file(version: 2, tags: #"["ok","not a tag",7]"#).utf8).write(
      to: URL(fileURLWithPath: store))
    #expect(try output("tags") == "ok  1\n")
    try Data(file(version: 2, tags: #"["b","A","a"]"#).utf8).write(to: URL(fileURLWithPath: store))
    #expect(try output("tags") == "A  1\nb  1\n")
  }

  @Test func exportWritesATagsHeaderThatImportReadsBack() throws {
    _ = try output("mkdir Work; new Work/Plan body; new Work/Plain text; tag Work/Plan a b/c")
    let out = folder.path("out")
    _ = try output("export '\(out)'")
    #expect(
      try String(contentsOfFile: out + "/Work/Plan.md", encoding: .utf8)
        == "---\ntags:\n  - a\n  - b/c\n---\nbody")
    #expect(try String(contentsOfFile: out + "/Work/Plain.md", encoding: .utf8) == "text")
    let other = folder.path("other.json")
    let imported = try DocshProcess.run(
      ["--store", other, "-c", "import '\(out)/Work'; find --tag b/c; cat Work/Plan"],
      home: folder.path("home"))
    #expect(imported.status == 0, "\(imported.errors)")
    #expect(imported.output == "Work/Plan\nbody")
  }

  // MARK: - Links

  func makeLinkedStore() throws {
    _ = try output(
      """
      mkdir Work Home
      new Work/Plan <<END
      See [[Notes]] and [[Home/List|the list]].
      Also [[Missing]].
      END
      new Work/Notes <<END
      Back to [[plan]]
      twice: [[Plan|it]]
      END
      new Home/List <<END
      From home: [[Work/Plan]] and [[Plan]]
      END
      """)
  }

  @Test func linksListsEachLinkResolvedOrMissing() throws {
    try makeLinkedStore()
    #expect(
      try output("links Work/Plan")
        == "1: [[Notes]] -> Work/Notes\n1: [[Home/List]] -> Home/List\n2: [[Missing]] -> (missing)\n"
    )
    #expect(
      try output("links --json Work/Plan")
        == #"[{"line":1,"target":"Notes","text":null,"category":"Work","name":"Notes","candidates":[]},{"line":1,"target":"Home/List","text":"the list","category":"Home","name":"List","candidates":[]},{"line":2,"target":"Missing","text":null,"category":null,"name":null,"candidates":[]}]"#
        + "\n")
  }

  @Test func backlinksListEveryLinkingDocumentWithTheLine() throws {
    try makeLinkedStore()
    // Home holds no Plan: its [[Plan]] names the only Plan there is.
    let expected =
      "Home/List:1: From home: [[Work/Plan]] and [[Plan]]\n"
      + "Home/List:1: From home: [[Work/Plan]] and [[Plan]]\n"
      + "Work/Notes:1: Back to [[plan]]\nWork/Notes:2: twice: [[Plan|it]]\n"
    // Saved: the index answers; unsaved changes are read from memory.
    #expect(try output("backlinks Work/Plan") == expected)
    let unsaved = try DocshProcess.run(
      [
        "--store", store, "--no-save", "-c",
        "append Work/Plan 'self [[Plan]]'; backlinks Work/Plan",
      ],
      home: folder.path("home"))
    #expect(
      unsaved.output
        == expected + "Work/Plan:3: self [[Plan]]\n")
    #expect(
      try output("backlinks --json Home/List")
        == #"[{"category":"Work","name":"Plan","line":1,"text":"See [[Notes]] and [[Home/List|the list]]."}]"#
        + "\n")
    #expect(
      try output("backlinks Work/Notes")
        == "Work/Plan:1: See [[Notes]] and [[Home/List|the list]].\n")
  }

  @Test func linksSavedLaterAreFoundByTheNextRunsIndex() throws {
    try makeLinkedStore()
    // The first backlinks builds the index's links; later saves keep them in step.
    _ = try output("backlinks Work/Notes")
    _ = try output("new Home/Fresh 'to [[Work/Notes]]'")
    _ = try output("write Work/Plan 'no links now'")
    #expect(try output("backlinks Work/Notes") == "Home/Fresh:1: to [[Work/Notes]]\n")
    _ = try DocshProcess.run(["--store", store, "--checkpoint"], home: folder.path("home"))
    #expect(try output("backlinks Work/Notes") == "Home/Fresh:1: to [[Work/Notes]]\n")
  }

  @Test func checkReportsLinksToDocumentsThatDoNotExist() throws {
    try makeLinkedStore()
    let result = try docsh("check")
    #expect(result.status == 0)
    #expect(
      result.output.hasSuffix(
        "  links: 1 link names no document\n    Work/Plan:2: [[Missing]]\n"
      ))
  }

  @Test func aRenameRewritesTheLinksToItInOneUndoStep() throws {
    try makeLinkedStore()
    let moved = try docsh("mv Work/Plan Work/Roadmap; cat Work/Notes Home/List")
    #expect(moved.status == 0, "\(moved.errors)")
    #expect(moved.errors.contains("Rewrote 4 links in 2 documents."))
    #expect(
      moved.output
        == "Back to [[Roadmap]]\ntwice: [[Roadmap|it]]\nFrom home: [[Work/Roadmap]] and [[Roadmap]]\n"
    )
    #expect(try output("backlinks Work/Roadmap").contains("Work/Notes:2: twice: [[Roadmap|it]]"))
    // A move to another category: bare names that still reach what they named stay (the
    // only Roadmap, the only Notes); a Category/Name follows it.
    let across = try docsh(
      "mv Work/Roadmap Home/; cat Work/Notes Home/Roadmap Home/List; undo; cat Home/List")
    #expect(across.status == 0, "\(across.errors)")
    #expect(
      across.output
        == "Back to [[Roadmap]]\ntwice: [[Roadmap|it]]\n"
        + "See [[Notes]] and [[Home/List|the list]].\nAlso [[Missing]].\n"
        + "From home: [[Home/Roadmap]] and [[Roadmap]]\n"
        + "From home: [[Work/Roadmap]] and [[Roadmap]]\n")
    // Where a bare name would reach another document, it gains its category.
    let shadowed = try docsh(
      "new Home/Notes 'other notes'; mv Work/Roadmap Home/; cat Home/Roadmap Work/Notes")
    #expect(shadowed.status == 0, "\(shadowed.errors)")
    #expect(
      shadowed.output
        == "See [[Work/Notes]] and [[Home/List|the list]].\nAlso [[Missing]].\n"
        + "Back to [[Roadmap]]\ntwice: [[Roadmap|it]]\n")
  }

  @Test func renamingACategoryRewritesTheLinksIntoIt() throws {
    try makeLinkedStore()
    let result = try docsh("mv Work Office; cat Home/List Office/Plan; undo; cat Home/List")
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errors.contains("Rewrote 1 link in 1 document."))
    #expect(
      result.output
        == "From home: [[Office/Plan]] and [[Plan]]\n"
        + "See [[Notes]] and [[Home/List|the list]].\nAlso [[Missing]].\n"
        + "From home: [[Work/Plan]] and [[Plan]]\n")
    let kept = try docsh("mv --no-links Work Office; cat Home/List")
    #expect(kept.output == "From home: [[Work/Plan]] and [[Plan]]\n")
  }

  @Test func undoTakesBackTheRenameAndTheRewritesTogether() throws {
    try makeLinkedStore()
    let result = try docsh("mv Work/Plan Work/Roadmap; undo; ls Work; cat Work/Notes Home/List")
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errors.contains("Undid mv"))
    #expect(
      result.output.hasSuffix(
        "Back to [[plan]]\ntwice: [[Plan|it]]\nFrom home: [[Work/Plan]] and [[Plan]]\n"))
    #expect(result.output.contains("Plan "))
  }

  @Test func noLinksKeepsTheLinksAsTheyWere() throws {
    try makeLinkedStore()
    let result = try docsh("mv --no-links Work/Plan Work/Roadmap; cat Work/Notes")
    #expect(result.status == 0)
    #expect(!result.errors.contains("Rewrote"))
    #expect(result.output == "Back to [[plan]]\ntwice: [[Plan|it]]\n")
  }

  @Test func deletingALinkedDocumentSaysSoBeforeItAsks() throws {
    try makeLinkedStore()
    let refused = try docsh("rm Work/Notes")
    #expect(refused.status != 0)
    #expect(refused.errors.hasPrefix("1 document links to Work/Notes: Work/Plan\n"))
    #expect(try output("ls Work").contains("Notes"))
    let forced = try docsh("rm -f Work/Notes; ls Work")
    #expect(forced.status == 0 && !forced.output.contains("Notes"))
    // A document nobody links to goes without a question.
    #expect(try docsh("new Home/Lonely x; rm Home/Lonely").status == 0)
  }
}
