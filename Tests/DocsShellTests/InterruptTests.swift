import DocsKit
import Foundation
import Testing

@testable import DocsShell

/// Plays Ctrl-C: asks to stop from the check after the first `allowed` checks of `work` on,
/// and every check of any work after that (as the SIGINT flag stays set for the command),
/// until ``isOver`` is set.
final class ScriptedCtrlC: Interruption {
  private let work: InterruptibleWork
  private var allowed: Int
  private var pressed = false
  /// Set once the command is over: the next line reads a fresh flag.
  var isOver = false

  init(after allowed: Int, of work: InterruptibleWork) {
    self.allowed = allowed
    self.work = work
  }

  func isRequested(during asked: InterruptibleWork) -> Bool {
    guard !isOver else { return false }
    if !pressed, asked == work {
      if allowed == 0 { pressed = true } else { allowed -= 1 }
    }
    return pressed
  }
}

/// What the interpreter makes of Ctrl-C during a command, with the REPL's error reporting.
@Suite struct InterruptTests {
  @Test func aChangingCommandStoppedAfterItsWorkIsTakenBackWhole() throws {
    // The check after the command (the second of the line's checks) finds Ctrl-C.
    let ctrlC = ScriptedCtrlC(after: 1, of: .command)
    let harness = try ShellHarness(interruption: ctrlC)
    let result = harness.run("mkdir Never Either")
    #expect(result.errors == "error: interrupted\n")
    #expect(harness.session.context.categories().isEmpty)
    #expect(try !harness.session.context.hasChanges)
    #expect(!harness.session.context.canUndo)
  }

  @Test func theCommandsAfterAStoppedOneDoNotRun() throws {
    let ctrlC = ScriptedCtrlC(after: 3, of: .command)
    let harness = try ShellHarness(interruption: ctrlC)
    let result = harness.run("mkdir Kept; mkdir Stopped; mkdir Never")
    #expect(result.errors == "error: interrupted\n")
    #expect(harness.session.context.categories().map(\.name.text) == ["Kept"])
    ctrlC.isOver = true
    #expect(harness.run("mkdir After").errors.isEmpty)
    #expect(harness.session.context.categories().map(\.name.text) == ["After", "Kept"])
  }

  @Test func outputWrittenAfterCtrlCIsDroppedAndTheCommandSaysInterrupted() throws {
    let ctrlC = ScriptedCtrlC(after: 3, of: .output)
    let harness = try ShellHarness(interruption: ctrlC)
    ctrlC.isOver = true
    harness.run("mkdir Many")
    for number in 1...20 { harness.run("new Many/Note\(number) text") }
    ctrlC.isOver = false
    let result = harness.run("ls Many")
    #expect(result.errors == "error: interrupted\n")
    let lines = result.output.split(separator: "\n")
    #expect(lines.count < 20)
    #expect(harness.session.context.documentCount == 20)
  }

  @Test func aGrepStoppedInTheModelReportsInterruptedAndChangesNothing() throws {
    let ctrlC = ScriptedCtrlC(after: 1, of: .contentSearch)
    let harness = try ShellHarness(interruption: ctrlC)
    ctrlC.isOver = true
    harness.run("mkdir Work; new Work/A needle; new Work/B needle; new Work/C needle")
    ctrlC.isOver = false
    let changes = try harness.session.context.changes().count
    let result = harness.run("grep needle")
    #expect(result == (output: "", errors: "error: interrupted\n"))
    #expect(try harness.session.context.changes().count == changes)
  }

  @Test func aStoppedScriptLineSaysWhereItStopped() throws {
    let ctrlC = ScriptedCtrlC(after: 0, of: .sourcedFile)
    let harness = try ShellHarness(interruption: ctrlC)
    let script = harness.folder.path("two.docsh")
    try "mkdir First\nmkdir Second\n".write(toFile: script, atomically: true, encoding: .utf8)
    let result = harness.run("source \(script)")
    #expect(result.errors == "error: \(script):2: interrupted\n")
    #expect(harness.session.context.categories().map(\.name.text) == ["First"])
  }

  @Test func anExportStoppedPartWayRemovesWhatItWrote() throws {
    let ctrlC = ScriptedCtrlC(after: 2, of: .exporting)
    let harness = try ShellHarness(interruption: ctrlC)
    ctrlC.isOver = true
    harness.run("mkdir Work; new Work/A one; new Work/B two; new Work/C three")
    ctrlC.isOver = false
    let destination = harness.folder.path("exported")
    let result = harness.run("export \(destination)")
    #expect(result.errors == "error: interrupted\n")
    // Two documents were written before Ctrl-C came; they and their folders are gone.
    #expect(!FileManager.default.fileExists(atPath: destination))
  }

  @Test func ctrlCIsExitStatus130() {
    #expect(ErrorReport(ShellError.interrupted).exitStatus.rawValue == 130)
    #expect(ErrorReport(ContextError.interrupted).exitStatus.rawValue == 130)
  }
}
