import DocsKit

/// The REPL: a prompt showing where the user is (`docsh:/Work*> `), line editing and
/// history, Ctrl-C dropping the line, and a question before leaving with unsaved changes.
final class InteractiveLoop {
  private let interpreter: Interpreter
  private let terminal: TerminalInput
  private var session: Session { interpreter.session }

  /// A loop reading command lines from `terminal`, the same input the session's questions
  /// and typed text are read from.
  init(interpreter: Interpreter, terminal: TerminalInput) {
    self.interpreter = interpreter
    self.terminal = terminal
  }

  /// The prompt: `docsh:PATH> `, with `*` after PATH while there are unsaved changes.
  var prompt: String {
    let location = escapedForTerminal(session.location, allowingNewlinesAndTabs: false)
    return "docsh:\(location)\(session.context.hasChanges ? "*" : "")> "
  }

  /// Reads and runs lines until the user leaves.
  func run() {
    while true {
      switch terminal.readLine(prompt: prompt) {
      case .interrupted:
        continue
      case .endOfInput:
        session.errors.writeLine("")
        if confirmLeaving() { return }
      case .invalid(let reason):
        report(ShellError.unusableLine(reason: reason))
      case .line(let line):
        var entry = line
        do {
          try interpreter.execute(line) {
            guard case .line(let more) = terminal.readLine(prompt: "> ") else { return nil }
            entry += "\n" + more
            return more
          }
        } catch {
          report(error)
        }
        if !line.trimmingBlanks().isEmpty { terminal.addToHistory(entry) }
        session.output.flush()
        if interpreter.exitRequested {
          interpreter.exitRequested = false
          if confirmLeaving() { return }
        }
      }
    }
  }

  /// Asks `Save 3 unsaved changes before leaving? [Y/n/c]` when there are any.
  /// - Returns: whether to leave.
  private func confirmLeaving() -> Bool {
    let count = session.context.changes().count
    guard count > 0 else { return true }
    let what = count == 1 ? "1 unsaved change" : "\(count) unsaved changes"
    while true {
      guard
        case .line(let answer) = terminal.readLine(prompt: "Save \(what) before leaving? [Y/n/c] ")
      else { return false }
      switch answer.trimmingBlanks().lowercased() {
      case "", "y", "yes":
        do {
          try session.save()
          return true
        } catch {
          report(error)
          return false
        }
      case "n", "no":
        return true
      case "c", "cancel":
        return false
      default:
        session.errors.writeLine("Answer y (save and leave), n (leave without saving) or c (stay).")
      }
    }
  }

  private func report(_ error: any Error) {
    session.output.flush()
    interpreter.errorReporter.report(error)
  }
}
