import DocsKit
import Foundation
import Testing

@testable import DocsShell

#if canImport(Glibc)
  import Glibc
#endif

/// Commands whose behaviour a transcript cannot show: questions answered, files sourced,
/// completion candidates, and the registry that help and completion share.
@Suite struct CommandBehaviourTests {
  @Test func revertAsksAndAnswerNoKeepsTheChanges() throws {
    let harness = try ShellHarness(isInteractive: true, answers: ["n"])
    harness.run("mkdir Work")
    let result = harness.run("revert")
    #expect(result.errors == "Discard 1 unsaved change? [y/N] n\nerror: nothing changed\n")
    #expect(harness.session.context.category(named: "Work") != nil)
  }

  @Test func revertAsksAndAnswerYesDiscardsTheChanges() throws {
    let harness = try ShellHarness(isInteractive: true, answers: ["y"])
    harness.run("mkdir Work")
    let result = harness.run("revert")
    #expect(result.errors == "Discard 1 unsaved change? [y/N] y\n")
    #expect(harness.session.context.category(named: "Work") == nil)
    #expect(try !harness.session.context.hasChanges)
  }

  @Test func rmdirOfAnEmptyCategoryAsksNothing() throws {
    let harness = try ShellHarness(isInteractive: true, answers: [])
    harness.run("mkdir Empty")
    let result = harness.run("rmdir Empty")
    #expect(result.errors.isEmpty)
    #expect(harness.session.context.category(named: "Empty") == nil)
  }

  @Test func rmdirAnsweredNoKeepsTheCategoryAndItsDocuments() throws {
    let harness = try ShellHarness(isInteractive: true, answers: ["no"])
    harness.run("mkdir Work; new Work/a 1; new Work/b 2")
    let result = harness.run("rmdir Work")
    #expect(
      result.errors
        == "Delete category \"Work\" and its 2 documents? [y/N] no\nrmdir: kept \"Work\"\n")
    let work = try #require(harness.session.context.category(named: "Work"))
    #expect(try harness.session.context.documents(in: work.id).count == 2)
  }

  @Test func assumeYesAnswersEveryQuestion() throws {
    let harness = try ShellHarness(assumeYes: true)
    harness.run("mkdir Work; new Work/a 1")
    #expect(harness.run("rmdir Work").errors.isEmpty)
    #expect(harness.session.context.category(named: "Work") == nil)
  }

  @Test func sourceRunsAFileInThisSessionAndReportsItsErrorsWithFileAndLine() throws {
    let harness = try ShellHarness()
    let good = harness.folder.url.appendingPathComponent("good.docsh").path
    try "mkdir Sourced\ncd Sourced\nnew Note <<END\nfrom a file\nEND\n".write(
      toFile: good, atomically: true, encoding: .utf8)
    #expect(harness.run("source \(good)").errors.isEmpty)
    #expect(harness.session.location == "/Sourced")
    #expect(harness.run("cat Note").output == "from a file\n")
    let bad = harness.folder.url.appendingPathComponent("bad.docsh").path
    try "pwd\nmkdir Fine\nrm Missing\nmkdir Never\n".write(
      toFile: bad, atomically: true, encoding: .utf8)
    let result = harness.run("source \(bad)")
    #expect(result.errors == "error: \(bad):3: no document named \"Missing\" in \"Sourced\"\n")
    #expect(harness.session.context.category(named: "Never") == nil)
    #expect(harness.run("source /no/such/file.docsh").errors.contains("No such file or directory"))
  }

  @Test func aFileThatSourcesItselfStopsAtTheDepthLimit() throws {
    let harness = try ShellHarness()
    let loop = harness.folder.url.appendingPathComponent("loop.docsh").path
    try "source \(loop)\n".write(toFile: loop, atomically: true, encoding: .utf8)
    let result = harness.run("source \(loop)")
    #expect(
      result.errors.contains(
        "files source each other more than \(Interpreter.maximumSourceDepth) deep"))
  }

  @Test func everyCommandHasHelpAndAUniqueName() {
    var seen = Set<String>()
    for command in CommandRegistry.commands {
      let configuration = command.configuration
      #expect(configuration.usage.hasPrefix(configuration.name), "\(configuration.name)")
      #expect(!configuration.abstract.isEmpty && !configuration.example.isEmpty)
      for name in [configuration.name] + configuration.aliases {
        #expect(seen.insert(name).inserted, "\(name) is used twice")
        #expect(CommandRegistry.command(named: name) == command)
      }
    }
  }

  @Test func completionOffersWhatEachCommandTakes() throws {
    let harness = try ShellHarness()
    harness.run(
      "mkdir 'Meeting Notes' Work; new Work/Plan x; new Work/Plans y; new 'Meeting Notes/Jan' z")
    let completer = Completer(session: harness.session)
    #expect(completer.candidates(after: [], partial: "mk") == ["mkdir"])
    #expect(completer.candidates(after: [], partial: "qu") == ["quit"])
    #expect(completer.candidates(after: ["cd"], partial: "Mee") == ["Meeting Notes/"])
    #expect(completer.candidates(after: ["cd"], partial: "/W") == ["/Work/"])
    #expect(completer.candidates(after: ["cat"], partial: "") == ["Meeting Notes/", "Work/"])
    #expect(
      completer.candidates(after: ["cat"], partial: "Work/Pl") == ["Work/Plan", "Work/Plans"])
    #expect(completer.candidates(after: ["help"], partial: "re") == ["redo", "restore", "revert"])
    #expect(completer.candidates(after: ["ls", "-l"], partial: "W") == ["Work/"])
    #expect(completer.candidates(after: ["pwd"], partial: "") == [])
    harness.run("cd Work")
    #expect(completer.candidates(after: ["cat"], partial: "pl") == ["Plan", "Plans"])
    #expect(completer.complete(lineBeforeCursor: "cd /Mee", word: "/Mee") == ["/Meeting\\ Notes/"])
  }

  /// Tab after a dash offers the command's declared options; after an option that takes a
  /// value, the values it allows; an option's value is not counted as a positional word.
  @Test func completionOffersDeclaredOptionsAndTheirValues() throws {
    let harness = try ShellHarness()
    harness.run("mkdir Work; new Work/Plan x")
    let completer = Completer(session: harness.session)
    #expect(
      completer.candidates(after: ["ls"], partial: "-")
        == ["--json", "--sort", "-a", "-l", "-r", "-s", "-t"])
    #expect(completer.candidates(after: ["ls"], partial: "--s") == ["--sort"])
    #expect(completer.candidates(after: ["ls", "-s"], partial: "") == ["date", "name", "size"])
    #expect(completer.candidates(after: ["ls", "--sort"], partial: "s") == ["size"])
    #expect(completer.candidates(after: ["ls", "-ls"], partial: "d") == ["date"])
    #expect(completer.candidates(after: ["ls", "-s", "size"], partial: "W") == ["Work/"])
    #expect(
      completer.candidates(after: ["rm"], partial: "-") == [
        "--force", "--recursive", "-R", "-f", "-r",
      ])
    #expect(completer.candidates(after: ["grep", "-i", "plan"], partial: "W") == ["Work/"])
    #expect(
      completer.candidates(after: ["grep"], partial: "-") == [
        "--json", "--tag", "-E", "-F", "-c", "-i", "-l", "-n", "-v", "-w",
      ])
    #expect(completer.candidates(after: ["grep", "-vw", "plan"], partial: "W") == ["Work/"])
    // --tag's value is a tag of the store, matched ignoring case.
    harness.run("tag Work/Plan Urgent")
    #expect(completer.candidates(after: ["grep", "--tag"], partial: "u") == ["Urgent"])
    #expect(completer.candidates(after: ["untag", "Work/Plan"], partial: "") == ["Urgent"])
    // grep's options end at its pattern; new's (--from) come before its name, so a dash
    // after the name is a name or text.
    #expect(completer.candidates(after: ["grep", "plan"], partial: "-") == [])
    #expect(completer.candidates(after: ["new"], partial: "-") == ["--from"])
    #expect(completer.candidates(after: ["new", "Plan"], partial: "-") == [])
  }

  /// A category that cannot be loaded (the file was cut short under the session) makes the
  /// command that needed it fail with the store's error, instead of showing it empty.
  @Test func aCategoryThatCannotLoadFailsTheCommand() throws {
    let first = try ShellHarness()
    first.run("mkdir Work Home; new Work/Plan x; new Home/List y; save")
    // Dated safely in the past, the store is not "racily clean": once the index has been
    // rebuilt for that date, a new session trusts it and loads no category at open.
    var past = [
      timeval(tv_sec: time(nil) - 10, tv_usec: 0), timeval(tv_sec: time(nil) - 10, tv_usec: 0),
    ]
    #expect(utimes(first.storePath, &past) == 0)
    let writer = try ShellHarness(folder: first.folder)
    let second = try ShellHarness(folder: first.folder)
    let work = try #require(second.session.context.category(named: "Work"))
    #expect(!second.session.context.isLoaded(work.id))
    // Another session saves: the index now describes its file, so the second session must
    // read its own (older) file, which is then cut short.
    let older = first.folder.path("older.json")
    #expect(link(second.storePath, older) == 0)
    #expect(writer.run("new Home/Other z; save").errors.isEmpty)
    #expect(truncate(older, 80) == 0)
    let result = second.run("ls Work")
    #expect(result.output.isEmpty)
    #expect(result.errors.hasPrefix("error: "), "\(result.errors)")
    #expect(result.errors.contains("store.json"), "\(result.errors)")
  }

  /// Records the progress the shell reports.
  final class ProgressRecorder: ProgressShowing {
    var events: [String] = []
    func begin(_ title: String, total: Int, unit: ProgressUnit) {
      events.append("begin \(title) \(total)")
    }
    func advance(to completed: Int) { events.append("advance \(completed)") }
    func end() { events.append("end") }
  }

  /// Export reports each document written, import each file of a folder it reads.
  @Test func exportAndImportReportTheirProgress() throws {
    let recorder = ProgressRecorder()
    let harness = try ShellHarness(progress: recorder)
    harness.run("mkdir Work; new Work/a 1; new Work/b 2; new Work/c 3")
    let destination = harness.folder.path("out")
    #expect(harness.run("export \(destination)").errors.isEmpty)
    #expect(recorder.events == ["begin exporting 3", "advance 1", "advance 2", "advance 3", "end"])
    recorder.events = []
    #expect(harness.run("rmdir -f Work; import \(destination)/Work").errors.isEmpty)
    #expect(
      recorder.events == ["begin importing Work 3", "advance 0", "advance 1", "advance 2", "end"])
  }
}
