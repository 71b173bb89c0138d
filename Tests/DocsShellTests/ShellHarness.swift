import DocsKit
import DocsTestSupport
import Foundation

@testable import DocsShell

/// Answers the session's questions from a list, echoing question and answer on standard
/// error as a terminal would show them.
final class ScriptedAnswers: QuestionAsking {
  private var pending: [String]
  private let errors: TextOutput

  init(_ answers: [String], echoingTo errors: TextOutput) {
    pending = answers
    self.errors = errors
  }

  func ask(_ question: String) -> String? {
    errors.write(question)
    guard !pending.isEmpty else { return nil }
    let answer = pending.removeFirst()
    errors.writeLine(answer)
    return answer
  }
}

/// A session on a fresh store in a temporary folder, with a fixed clock, sequential ids,
/// UTC dates and captured output: what the transcript and command tests drive. Errors go
/// through the shell's own error reporter, as in the REPL.
final class ShellHarness {
  let folder: TemporaryFolder
  let storePath: String
  let session: Session
  let interpreter: Interpreter

  /// 2026-11-29T14:53:00Z, the moment the harness's clock starts at.
  static let start: Int64 = 1_795_963_980_000

  /// A harness; `colored` turns colors on and makes both outputs look like terminals.
  /// With `git`, the session has the store's repository as docsh does (saves commit once it
  /// is set up; `sync`, `log`, `diff`, `restore` work), git run by that runner and the docsh
  /// binary of this build registered as the merge driver; the store is then `notes/store.json`,
  /// away from the cache folder. `interruption` plays Ctrl-C for the context, the store, the
  /// session and standard output.
  init(
    isInteractive: Bool = false, assumeYes: Bool = false, answers: [String] = [],
    pager: (any Paging)? = nil, colored: Bool = false, folder existing: TemporaryFolder? = nil,
    progress: (any ProgressShowing)? = nil, git runner: (any GitRunner)? = nil,
    interruption: (any Interruption)? = nil
  ) throws {
    folder = try existing ?? TemporaryFolder("shell")
    let storePath = folder.path(runner == nil ? "store.json" : "notes/store.json")
    self.storePath = storePath
    let clock = TestClock(start: ShellHarness.start, step: 1000)
    let ids = SequentialIDs()
    let repository = runner.map { runner in
      RepositoryAccess(storePath: storePath, runner: runner)
    }
    // The store as docsh opens it: with its index, in a cache folder of the test's own.
    let cacheFolder = folder.path("cache")
    func openStore() throws -> Context {
      try Context(
        store: IndexedStore(path: storePath, cacheFolder: cacheFolder, interruption: interruption),
        clock: clock.now, makeID: ids.make,
        observer: repository.map(CommitOnSaveWhenSetUp.init(access:)), interruption: interruption)
    }
    let context = try openStore()
    var settings = SessionSettings()
    settings.isInteractive = isInteractive
    settings.assumeYes = assumeYes
    settings.dates = DateFormatting(timeZone: .fixed(seconds: 0))
    settings.colors = Colors(enabled: colored)
    let errors = TextOutput(capturingAsTerminal: colored)
    let nobody = NobodyAtTheTerminal()
    session = Session(
      context: context,
      output: TextOutput(capturingAsTerminal: colored, interruption: interruption), errors: errors,
      settings: settings,
      collaborators: SessionCollaborators(
        questions: ScriptedAnswers(answers, echoingTo: errors), typedLines: nobody,
        history: nobody, pager: pager,
        clock: { Timestamp(millisecondsSince1970: ShellHarness.start + 86_400_000) },
        progress: progress, repository: repository, reopenStore: openStore,
        interruption: interruption))
    interpreter = Interpreter(session: session)
  }

  /// Runs `line` (and the lines of its here-document from `more`) as the REPL would:
  /// returns standard output and standard error, where a failure shows as `error: …`.
  @discardableResult
  func run(_ line: String, more: [String] = []) -> (output: String, errors: String) {
    var pending = more
    do {
      try interpreter.execute(line) {
        pending.isEmpty ? nil : pending.removeFirst()
      }
    } catch {
      interpreter.errorReporter.report(error)
    }
    session.output.flush()
    return (session.output.takeCaptured(), session.errors.takeCaptured())
  }

  /// Marks output that did not end in a newline, so the next typed line stays on its own.
  static let noNewlineMarker = "[no newline]"

  /// Runs a whole transcript: lines starting with `> ` are typed; everything else is what
  /// docsh printed (standard output, then standard error).
  func replay(_ transcript: String) -> String {
    var lines = transcript.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    var result = ""
    var index = 0
    while index < lines.count {
      let line = lines[index]
      index += 1
      guard line.hasPrefix("> ") || line == ">" else { continue }
      let typed = String(line.dropFirst(2))
      result += "> \(typed)\n"
      var consumed: [String] = []
      do {
        try interpreter.execute(typed) {
          guard index < lines.count, lines[index].hasPrefix("> ") || lines[index] == ">" else {
            return nil
          }
          let more = String(lines[index].dropFirst(2))
          consumed.append(more)
          index += 1
          return more
        }
      } catch {
        interpreter.errorReporter.report(error)
      }
      for more in consumed { result += "> \(more)\n" }
      session.output.flush()
      let printed = session.output.takeCaptured()
      result += printed
      if !printed.isEmpty && !printed.hasSuffix("\n") {
        result += ShellHarness.noNewlineMarker + "\n"
      }
      result += session.errors.takeCaptured()
    }
    return result
  }
}
