import DocsKit
import Foundation
import Testing

@testable import DocsShell

/// A note-taker's first hour (issue 40), through the real binary: wildcards in every command
/// that takes names, the `--` hint, `docsh ls`, one wording per name rule, the `#` hint,
/// `clear` to a pipe, templates and daily notes. What only a terminal shows is in
/// Tests/pty/run.py (section 20).
@Suite struct FirstHourTests {
  let folder: DocshProcess.Folder
  let store: String

  init() throws {
    folder = try DocshProcess.Folder()
    store = folder.path("store.json")
  }

  /// 2025-12-06 05:46:40 UTC, a Saturday.
  static let now = "1765000000"

  /// Runs `script` against the store (saving at the end, as a script does).
  @discardableResult
  func docsh(_ script: String, environment: [String: String] = [:]) throws -> DocshProcess.Result {
    try DocshProcess.run(
      ["--store", store, "-c", script], environment: environment, home: folder.path("home"))
  }

  /// Runs `script`, which must succeed; its standard output.
  func output(
    _ script: String, environment: [String: String] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    let result = try docsh(script, environment: environment)
    #expect(result.status == 0, "\(script): \(result.errors)", sourceLocation: sourceLocation)
    return result.output
  }

  /// Work holds Plan, Pear, a.txt and b.txt; Archive is empty.
  func makeWork() throws {
    _ = try output(
      "mkdir Work Archive; cd Work; new Plan plan; new Pear pear; new a.txt A; new b.txt B")
  }

  // MARK: - Wildcards

  @Test func everyCommandThatTakesNamesExpandsAWildcard() throws {
    try makeWork()
    #expect(try output("cd Work; cat P*") == "pearplan")
    // A document named twice prints twice, as coreutils' cat prints a file named twice.
    #expect(try output("cd Work; cat Plan Pl*") == "planplan")
    #expect(try output("cat Work/*.txt") == "AB")
    #expect(try output("head -n 1 Work/P*") == "==> Work/Pear <==\npear\n==> Work/Plan <==\nplan")
    #expect(try output("cd Work; wc -c *.txt") == "1 a.txt\n1 b.txt\n2 total\n")
    #expect(try output("cd Work; info -- Pl*").contains("Plan"))
    // A document named twice is copied once.
    _ = try output("cd Work; tag P* fruit; cp a.txt *.txt /Archive")
    #expect(try output("find --tag fruit") == "Work/Pear\nWork/Plan\n")
    #expect(try output("ls Archive").contains("a.txt"))
    _ = try output("cd Work; rm Pl?n")
    #expect(try output("find P") == "Work/Pear\n")
  }

  @Test func movingAPatternPutsEveryMatchIntoTheCategory() throws {
    try makeWork()
    _ = try output("cd Work; mv *.txt Archive")
    #expect(try output("find .txt") == "Archive/a.txt\nArchive/b.txt\n")
    // One match moves too: a pattern always names a set, and a set goes into a category.
    _ = try output("mv Work/Pe* Archive/")
    #expect(try output("find Pear") == "Archive/Pear\n")
    // Several plain names as mv(1) takes them.
    _ = try output("cd Archive; mv a.txt b.txt Work")
    #expect(try output("find .txt") == "Work/a.txt\nWork/b.txt\n")
  }

  @Test func severalDocumentsNeedACategory() throws {
    try makeWork()
    let result = try docsh("cd Work; mv *.txt Nowhere")
    #expect(result.status == 1)
    #expect(
      result.errors.contains(
        #"mv: several documents go to a category, and "Nowhere" is none"#), "\(result.errors)")
    #expect(try output("find .txt") == "Work/a.txt\nWork/b.txt\n")
  }

  @Test(arguments: [
    "rm Q*", "cat Q*", "head Q*", "tail Q*", "wc Q*", "info Q*", "edit Q*", "links Q*",
    "backlinks Q*", "tag Q* x", "untag Q* x", "mv Q* /Archive", "cp Q* /Archive",
  ])
  func aPatternThatMatchesNothingSaysSoAndChangesNothing(command: String) throws {
    try makeWork()
    let before = try output("tree")
    let result = try docsh("cd Work; rm Plan; " + command)
    #expect(result.status == 1)
    #expect(result.errors == "-c:1: error: nothing matches \"Q*\" in \"Work\"\n")
    #expect(try output("tree") == before)
  }

  @Test func aDocumentNamedLikeAPatternIsTakenAsNamed() throws {
    try makeWork()
    _ = try output("cd Work; new 'P*' star")
    #expect(try output("cd Work; cat 'P*'") == "star")
    _ = try output("cd Work; rm 'P*'")
    #expect(try output("find P") == "Work/Pear\nWork/Plan\n")
  }

  @Test func aPatternWhereOneDocumentIsNeededMustMatchOne() throws {
    try makeWork()
    let result = try docsh("cd Work; info P*")
    #expect(result.errors == "-c:1: error: \"P*\" matches 2 documents; name one\n")
  }

  // MARK: - Options that are names

  @Test(arguments: ["rm", "cat", "head", "info", "tag"])
  func anUnknownOptionSaysHowToNameADashedDocument(command: String) throws {
    try makeWork()
    let result = try docsh("cd Work; \(command) -dash x")
    #expect(result.status == 1)
    #expect(
      result.errors.contains(
        "\(command): unknown option -d (Try '\(command) -- -dash' to name \"-dash\")"),
      "\(result.errors)")
  }

  @Test func theHintedLineWorks() throws {
    try makeWork()
    _ = try output("cd Work; new -dash text; cat -- -dash; rm -- -dash")
    #expect(try output("find dash") == "")
  }

  @Test func aLoneUnknownLetterGetsNoNameHint() throws {
    try makeWork()
    let result = try docsh("wc -m Work/Plan")
    #expect(!result.errors.contains("Try"), "\(result.errors)")
  }

  // MARK: - docsh COMMAND

  @Test(arguments: [
    (["ls"], "docsh -c 'ls'"), (["ls", "Work"], "docsh -c 'ls Work'"),
    (["rm", "-f", "My Plan"], #"docsh -c 'rm -f My\ Plan'"#),
  ])
  func aCommandWhereAScriptGoesIsRefusedWithTheLineThatRunsIt(
    arguments: [String], suggestion: String
  ) throws {
    try makeWork()
    let result = try DocshProcess.run(
      ["--store", store] + arguments, home: folder.path("home"))
    #expect(result.status == 2)
    #expect(
      result.errors.hasPrefix(
        "docsh: \(arguments[0]): no such file; to run the docsh command, type: docsh --store \(store) \(suggestion.dropFirst("docsh ".count))\n"
      ),
      "\(result.errors)")
    #expect(try output("find Plan") == "Work/Plan\n")
  }

  @Test func aFileNamedLikeACommandIsStillAScript() {
    #expect(Invocation.commandWithoutC(in: ["ls"], exists: { _ in true }) == nil)
    #expect(Invocation.commandWithoutC(in: ["notes.docsh"], exists: { _ in false }) == nil)
    #expect(
      Invocation.commandWithoutC(in: ["ls"], exists: { _ in false })
        == .commandWithoutC("ls", suggestion: "docsh -c 'ls'"))
  }

  // MARK: - One wording per name rule

  @Test(arguments: [
    (#"cd Work; new "a/b" x"#, #"a name cannot contain "/": "a/b""#),
    (#"mkdir "a/b""#, #"a name cannot contain "/": "a/b""#),
    (#"cd Work; new "" x"#, "a name cannot be empty"),
    (#"cd Work; new "   " x"#, "a name cannot be empty"),
    (#"mkdir """#, "a name cannot be empty"),
    (
      #"cd Work; tag Plan "has space""#,
      #"a tag holds letters, digits, "-", "_" and "/", not a space"#
    ),
    (#"cd Work; tag Plan "a!b""#, #"not "!""#),
  ])
  func eachNameRuleIsWordedOneWay(script: String, message: String) throws {
    try makeWork()
    let result = try docsh(script)
    #expect(result.status == 1)
    #expect(result.errors.contains(message), "\(script): \(result.errors)")
  }

  // MARK: - Comments

  @Test func aUsageErrorSaysACommentSwallowedWhatWasMissing() throws {
    try makeWork()
    let result = try docsh("cd Work; tag Plan #hash")
    #expect(
      result.errors
        == "-c:1: error: tag: name a document and give one or more tags; \"#hash\" began a comment (quote it: '#hash') (usage: tag NAME TAG…)\n"
    )
    // Quoted, it is the tag (its # dropped, as documented).
    _ = try output("cd Work; tag Plan '#hash'")
    #expect(try output("tags") == "hash  1\n")
  }

  @Test func aScriptKeepsBashsCommentRuleWithoutNotes() throws {
    try makeWork()
    let result = try docsh("cd Work; append Plan more #inline")
    #expect(result.status == 0 && result.errors == "", "\(result.errors)")
    #expect(try output("cat Work/Plan") == "plan\nmore\n")
  }

  @Test(
    arguments: [
      ("#hash more", "#hash"), ("# hash more", "# hash"), ("#", nil), ("#  ", nil),
    ] as [(String, String?)])
  func theHintNamesTheCommentsFirstWord(comment: String, word: String?) {
    #expect(Interpreter.firstWord(of: comment) == word)
  }

  // MARK: - clear

  @Test func clearWritesNothingToAPipe() throws {
    let result = try docsh("clear; echo after")
    #expect(result.status == 0)
    #expect(result.output == "after\n")
  }

  // MARK: - Templates

  func makeTemplates() throws {
    _ = try output(
      """
      mkdir Templates Work
      cd Templates
      new Meeting <<END
      # {{title}} in {{ Category }}
      {{date}} {{TIME}} {{unknown}} {{open
      END
      new Daily <<END
      Day {{date}}, titled {{title}}
      END
      """)
  }

  @Test func newFromATemplateFillsItsPlaceholdersInLocalTime() throws {
    try makeTemplates()
    _ = try output(
      "cd Work; new --from Meeting Standup",
      environment: ["DOCSH_TEST_NOW": Self.now, "TZ": "Pacific/Auckland"])
    #expect(
      try output("cat Work/Standup")
        == "# Standup in Work\n2025-12-06 18:46 {{unknown}} {{open\n")
  }

  @Test func theTemplatesCategoryIsASetting() throws {
    _ = try output("mkdir Forms Work; new Forms/Note 'about {{title}}'")
    _ = try output(
      "cd Work; new --from Note Idea", environment: ["DOCSH_TEMPLATES": "Forms"])
    #expect(try output("cat Work/Idea") == "about Idea")
    // A path names any document as the template.
    _ = try output("cd Work; new --from=/Forms/Note -- -dash")
    #expect(try output("cat -- Work/-dash") == "about -dash")
  }

  @Test(arguments: [
    ("cd Work; new --from Nope X", #"no template named "Nope" in "Templates""#),
    ("cd Work; new --from Meeting X some text", "give either --from TEMPLATE or the text"),
    ("cd Work; new --from Meeting Plan; new --from Meeting Plan", #"a document named "Plan""#),
  ])
  func aTemplateThatCannotBeUsedChangesNothing(script: String, message: String) throws {
    try makeTemplates()
    let result = try docsh(script)
    #expect(result.status == 1)
    #expect(result.errors.contains(message), "\(result.errors)")
    #expect(try output("ls Work") == "")
  }

  // MARK: - Daily notes

  @Test func todayMakesTheDaysNoteFromTheDailyTemplateAndPrintsItWithoutAnEditor() throws {
    try makeTemplates()
    let environment = ["DOCSH_TEST_NOW": Self.now, "TZ": "UTC"]
    #expect(try output("today", environment: environment) == "Journal/2025-12-06\n")
    #expect(try output("today -1", environment: environment) == "Journal/2025-12-05\n")
    #expect(try output("today +1", environment: environment) == "Journal/2025-12-07\n")
    #expect(
      try output("cat Journal/2025-12-05") == "Day 2025-12-05, titled 2025-12-05\n")
    // An existing note is opened, never made again.
    _ = try output("write Journal/2025-12-06 mine")
    #expect(try output("today", environment: environment) == "Journal/2025-12-06\n")
    #expect(try output("cat Journal/2025-12-06") == "mine")
  }

  @Test func todayIsTheUsersDayAndTheJournalIsASetting() throws {
    let environment = [
      "DOCSH_TEST_NOW": Self.now, "TZ": "America/Los_Angeles", "DOCSH_JOURNAL": "Diary",
    ]
    #expect(try output("today", environment: environment) == "Diary/2025-12-05\n")
    // No template: an empty note.
    #expect(try output("wc -c Diary/2025-12-05") == "0 Diary/2025-12-05\n")
  }

  @Test func todayOpensTheNoteInTheEditorAsEditDoes() throws {
    let editor = folder.path("editor.sh")
    try "#!/bin/sh\necho edited >> \"$1\"\n".write(
      toFile: editor, atomically: true, encoding: .utf8)
    chmod(editor, 0o755)
    let environment = ["DOCSH_TEST_NOW": Self.now, "TZ": "UTC", "EDITOR": editor]
    #expect(try output("today", environment: environment) == "")
    #expect(try output("cat Journal/2025-12-06") == "edited\n")
    // Making the note and the edit are one undo step.
    #expect(
      try output("today -1; undo; find 2025", environment: environment) == "Journal/2025-12-06\n")
  }

  @Test(arguments: ["x", "-1 -2", "1.5"])
  func todayRefusesAnythingButADayOffset(words: String) throws {
    let result = try docsh("today \(words)")
    #expect(result.status == 1)
    #expect(result.errors.contains("today:"), "\(result.errors)")
    #expect(try output("ls") == "")
  }

  // MARK: - Pieces

  @Test func completionOffersTodayClearAndTheTemplatesAfterFrom() throws {
    let harness = try ShellHarness()
    harness.run("mkdir Templates Work; new Templates/Meeting x; new Templates/Daily y")
    harness.run("new Work/Plan z")
    let completer = Completer(session: harness.session)
    #expect(completer.candidates(after: ["new", "--from"], partial: "") == ["Daily", "Meeting"])
    #expect(completer.candidates(after: ["new", "--from"], partial: "m") == ["Meeting"])
    #expect(completer.candidates(after: [], partial: "cl") == ["clear"])
    #expect(completer.candidates(after: [], partial: "to") == ["today", "touch"])
    // mv's SOURCE… and DEST are both document paths.
    #expect(completer.candidates(after: ["mv", "Work/Plan"], partial: "Wo") == ["Work/"])
  }

  @Test func aTemplateFillsOnlyItsFourPlaceholders() {
    let values = TemplateValues(date: "D", time: "T", title: "N", category: "C")
    #expect(values.fill("{{date}}{{ Time }}{{TITLE}}{{category}}") == "DTNC")
    #expect(values.fill("{{x}} {{date") == "{{x}} {{date")
    #expect(values.fill("a {{title}} b {{title}}}") == "a N b N}")
  }

  @Test(arguments: [
    // 2025-03-30 01:30 UTC: in Berlin summer time began at 01:00 UTC (03:00 local).
    (Int64(1_743_298_200_000), 7200, 0, "2025-03-30"),
    (Int64(1_743_298_200_000), 7200, -1, "2025-03-29"),
    (Int64(1_743_298_200_000), -36_000, 0, "2025-03-29"),
    (Int64(-1), 0, 0, "1969-12-31"),
    (Int64(0), 0, 366, "1971-01-02"),
  ])
  func theDayIsCountedOnTheLocalCalendar(
    milliseconds: Int64, offset: Int, days: Int, expected: String
  ) {
    let dates = DateFormatting(timeZone: .fixed(seconds: offset))
    #expect(dates.isoDay(milliseconds, addingDays: days) == expected)
  }
}
