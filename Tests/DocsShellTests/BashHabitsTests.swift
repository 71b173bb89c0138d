import DocsKit
import Testing

@testable import DocsShell

/// The commands and options a bash user types from habit, where a transcript cannot say
/// enough: what the model holds afterwards, alignment by display width, and the line
/// arithmetic of `head` and `tail`.
@Suite struct BashHabitsTests {
  @Test func lsLinesUpNamesThatTakeTwoColumns() throws {
    let harness = try ShellHarness()
    harness.run("mkdir W; new W/plain x; new W/☕ x; new 'W/🫠 melt' x")
    #expect(
      harness.run("ls W").output == """
        plain    1 B  Nov 29 14:53
        ☕       1 B  Nov 29 14:53
        🫠 melt  1 B  Nov 29 14:53

        """)
  }

  @Test func touchCreatesAnEmptyDocumentOrGivesAnExistingOneTheDateNow() throws {
    let harness = try ShellHarness()
    harness.run("mkdir Work; new Work/Plan text; save")
    let context = harness.session.context
    let work = try #require(context.category(named: "Work"))
    let before = try #require(try context.document(named: "Plan", in: work.id))
    #expect(harness.run("touch Work/Plan Work/New").errors == "")
    let plan = try #require(try context.document(named: "Plan", in: work.id))
    #expect(plan.modified > before.modified)
    #expect(try context.content(of: plan.id) == "text")
    let new = try #require(try context.document(named: "New", in: work.id))
    #expect(try context.content(of: new.id) == "")
    #expect(
      harness.run("status").output
        == "2 unsaved changes (save to keep, revert to discard):\n"
        + "  new:      Work/New\n  changed:  Work/Plan (modified)\n")
    harness.run("undo")
    #expect(try context.document(named: "Plan", in: work.id)?.modified == before.modified)
    #expect(try context.document(named: "New", in: work.id) == nil)
    #expect(try !context.hasChanges)
  }

  @Test func aTouchThatFailsChangesNothing() throws {
    let harness = try ShellHarness()
    harness.run("mkdir Work; save")
    #expect(
      harness.run("touch Work/A Nowhere/B").errors == "error: no category named \"Nowhere\"\n")
    #expect(try !harness.session.context.hasChanges)
  }

  @Test(arguments: [
    ("echo a  b", "a b\n"), ("echo -n a b", "a b"), ("echo", "\n"), ("echo -x y", "-x y\n"),
    ("echo -- a", "-- a\n"), ("echo -nn a", "a"), ("echo a -n", "a -n\n"), ("echo -n", ""),
    ("echo -ne a", "-ne a\n"), ("echo 'a  b'", "a  b\n"),
  ])
  func echoReadsItsWordsAsBashDoes(_ line: String, _ output: String) throws {
    let harness = try ShellHarness()
    #expect(harness.run(line).output == output)
  }

  @Test func completionOffersTheNewCommandsAndTheirOptions() throws {
    let harness = try ShellHarness()
    harness.run("mkdir Work; new Work/Plan x")
    let completer = Completer(session: harness.session)
    #expect(
      completer.candidates(after: [], partial: "t")
        == ["tag", "tags", "tail", "today", "touch", "tree"])
    #expect(completer.candidates(after: ["wc"], partial: "-") == ["-c", "-l", "-w"])
    #expect(completer.candidates(after: ["head", "-n", "3"], partial: "Work/") == ["Work/Plan"])
    #expect(completer.candidates(after: ["echo"], partial: "-") == ["-n"])
    #expect(completer.candidates(after: ["echo", "hi"], partial: "-") == [])
    #expect(completer.candidates(after: ["cd"], partial: "~/W") == ["~/Work/"])
    #expect(completer.candidates(after: ["tail"], partial: "~/Work/P") == ["~/Work/Plan"])
    #expect(completer.candidates(after: ["tail"], partial: "~/") == ["~/Work/"])
    #expect(completer.candidates(after: ["cat"], partial: "/W") == ["/Work/"])
  }

  @Test(arguments: [
    (LineSelection.first(2), "a\nb\nc\n", "a\nb\n"),
    (.first(5), "a\nb", "a\nb"),
    (.first(0), "a\n", ""),
    (.allButLast(1), "a\nb\nc", "a\nb\n"),
    (.allButLast(1), "a\nb\nc\n", "a\nb\n"),
    (.allButLast(9), "a\nb\n", ""),
    (.last(1), "a\nb\nc", "c"),
    (.last(1), "a\nb\n\n", "\n"),
    (.last(2), "a\r\nb\r\n", "a\r\nb\r\n"),
    (.last(0), "a\n", ""),
    (.from(2), "a\nb\nc", "b\nc"),
    (.from(0), "a\nb", "a\nb"),
    (.from(4), "a\nb", ""),
    (.first(1), "", ""),
  ])
  func selectsLinesAsHeadAndTailDo(_ selection: LineSelection, _ text: String, _ lines: String) {
    #expect(String(selection.lines(of: text)) == lines)
  }

  @Test(arguments: [
    ("head -n x A", "error: head: -n takes a number of lines (N, -N or +N), not \"x\""),
    ("tail -n +-1 A", "error: tail: -n takes a number of lines (N, -N or +N), not \"+-1\""),
    ("head -n", "error: head: -n needs a value"),
    ("wc -m A", "error: wc: unknown option -m"),
    ("ls -t -s size", "error: ls: -t sorts by date; it cannot go with -s size"),
  ])
  func badArgumentsAreOneLineNamingWhatIsWrong(_ line: String, _ message: String) throws {
    let harness = try ShellHarness()
    harness.run("mkdir Work; cd Work; new A a")
    let errors = harness.run(line).errors
    #expect(errors.hasPrefix(message + " (usage: "), "\(errors)")
    #expect(errors.filter { $0 == "\n" }.count == 1)
  }

  @Test func aLeadingTildeIsTheTop() throws {
    let harness = try ShellHarness()
    harness.run("mkdir Work; new Work/Plan hi; cd Work")
    #expect(harness.run("cd ~").errors == "")
    #expect(harness.run("pwd").output == "/\n")
    #expect(harness.run("cat ~/Work/Plan").output == "hi")
    harness.run("cd Work")
    #expect(harness.run("cd ~/Work").errors == "")
    #expect(harness.run("pwd").output == "/Work\n")
  }
}
