import DocsKit

/// The REPL: a prompt showing where the user is (`docsh:/Work*> `), line editing and
/// history, Ctrl-C dropping the line, and a question before leaving with unsaved changes.
final class InteractiveLoop {
  private let interpreter: Interpreter
  private var reader: any LineReader
  private var session: Session { interpreter.session }

  init(interpreter: Interpreter, reader: any LineReader) {
    self.interpreter = interpreter
    self.reader = reader
    let session = interpreter.session
    session.ask = { [unowned self] question in
      guard case .line(let answer) = self.reader.readLine(prompt: question) else { return nil }
      return answer
    }
    session.readContentLine = { [unowned self] in
      guard case .line(let line) = self.reader.readLine(prompt: "… ") else { return nil }
      return line
    }
  }

  /// The prompt: `docsh:PATH> `, with `*` after PATH while there are unsaved changes.
  var prompt: String {
    "docsh:\(session.displayed(session.location))\(session.context.hasChanges ? "*" : "")> "
  }

  /// Reads and runs lines until the user leaves.
  func run() {
    while true {
      switch reader.readLine(prompt: prompt) {
      case .interrupted:
        continue
      case .endOfInput:
        session.errors.writeLine("")
        if confirmLeaving() { return }
      case .invalid(let reason):
        report(.input(reason))
      case .line(let line):
        var entry = line
        do {
          try interpreter.execute(line) {
            guard case .line(let more) = reader.readLine(prompt: "> ") else { return nil }
            entry += "\n" + more
            return more
          }
        } catch {
          report(error)
        }
        if !line.trimmingBlanks().isEmpty { reader.addToHistory(entry) }
        session.output.flush()
        if session.wantsToExit {
          session.wantsToExit = false
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
        case .line(let answer) = reader.readLine(prompt: "Save \(what) before leaving? [Y/n/c] ")
      else { return false }
      switch answer.trimmingBlanks().lowercased() {
      case "", "y", "yes":
        do {
          try ShellError.catching { () throws(ContextError) in try session.context.save() }
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

  private func report(_ error: ShellError) {
    session.output.flush()
    session.errors.writeLine(
      session.settings.colors.styled("error:", .error) + " " + session.displayed(error.description))
    session.errors.flush()
  }
}
