import DocsKit

/// The REPL: a prompt showing where the user is (`docsh:/Work*> `), line editing and
/// history, Ctrl-C dropping the line, a question before leaving with unsaved changes, and
/// the journal of unsaved work kept as it goes.
final class InteractiveLoop {
  /// How the loop ended.
  enum Ending: Equatable {
    /// The user left.
    case left
    /// SIGHUP or SIGTERM asked the session to end; the journal holds what was unsaved.
    case terminated(signal: Int32)
  }

  private let interpreter: Interpreter
  private let terminal: TerminalInput
  private let journal: UnsavedWorkJournal?
  private let terminationSignal: () -> Int32?
  private var session: Session { interpreter.session }

  /// A loop reading command lines from `terminal`, the same input the session's questions
  /// and typed text are read from, keeping `journal` (`nil`: none) and ending when
  /// `terminationSignal` gives a signal.
  init(
    interpreter: Interpreter, terminal: TerminalInput, journal: UnsavedWorkJournal? = nil,
    terminationSignal: @escaping () -> Int32? = { nil }
  ) {
    self.interpreter = interpreter
    self.terminal = terminal
    self.journal = journal
    self.terminationSignal = terminationSignal
  }

  /// The prompt: `docsh:PATH> `, with `*` after PATH while there are unsaved changes, and
  /// `↓N` after it when N saves by other sessions came in since (`↓` when the file was
  /// rewritten): `save` merges them, as git's prompt shows a branch behind its upstream.
  var prompt: String {
    let location = escapedForTerminal(session.location, allowingNewlinesAndTabs: false)
    let hasChanges: Bool
    do {
      hasChanges = try session.context.hasChanges
    } catch {
      // When a saved content cannot be read to compare, the star says "maybe": the save it
      // invites reports the failure.
      hasChanges = true
    }
    guard hasChanges else { return "docsh:\(location)> " }
    switch session.context.storeMovement {
    case .none: return "docsh:\(location)*> "
    case .saves(let count): return "docsh:\(location)*↓\(count)> "
    case .replaced: return "docsh:\(location)*↓> "
    }
  }

  /// Before a command: a session with nothing unsaved shows the store as last saved by
  /// anyone (another session's saves since are read in); its undo history, which described
  /// the old view, goes with a note.
  private func catchUpWithOtherSessions() {
    do {
      if case .refreshed(let droppedUndo) = try session.context.catchUpWithStore(), droppedUndo {
        session.tell(
          "docsh: another session saved: showing the store as it is now (the undo history of the old view is gone)"
        )
      }
    } catch {
      report(error)
    }
  }

  /// Reads and runs lines until the user leaves or a signal ends the session.
  func run() -> Ending {
    while true {
      if let ending = terminated() { return ending }
      let input = terminal.readLine(prompt: prompt)
      if let ending = terminated() { return ending }
      switch input {
      case .interrupted:
        continue
      case .endOfInput:
        session.errors.writeLine("")
        if confirmLeaving() { return left() }
      case .invalid(let reason):
        report(ShellError.unusableLine(reason: reason))
      case .line(let line):
        if !line.trimmingBlanks().isEmpty { catchUpWithOtherSessions() }
        journal?.commandStarting()
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
        journal?.commandFinished(session.context)
        if interpreter.exitRequested {
          interpreter.exitRequested = false
          if confirmLeaving() { return left() }
        }
      }
    }
  }

  /// The user leaves: what is unsaved was saved or left on purpose, so the journal goes.
  private func left() -> Ending {
    journal?.sessionEnded()
    return .left
  }

  /// When a signal asked the session to end: the journal written, the ending.
  private func terminated() -> Ending? {
    guard let signal = terminationSignal() else { return nil }
    journal?.writeNow(session.context)
    return .terminated(signal: signal)
  }

  /// Asks `Save 3 unsaved changes before leaving? [Y/n/c]` when there are any.
  /// - Returns: whether to leave.
  private func confirmLeaving() -> Bool {
    let count: Int
    let what: String
    do {
      count = try session.context.changes().count
      guard count > 0 else { return true }
      what = count == 1 ? "1 unsaved change" : "\(count) unsaved changes"
    } catch {
      // Whether anything is unsaved cannot be told: asking loses nothing, leaving might.
      session.errors.writeLine("docsh: \(error)")
      count = 0
      what = "unsaved changes"
    }
    while true {
      let answer: String
      switch terminal.readLine(prompt: "Save \(what) before leaving? [Y/n/c] ") {
      case .line(let line): answer = line
      case .endOfInput:
        // Ctrl-D stays, as c does; the next prompt starts on a line of its own.
        session.errors.writeLine("")
        return false
      case .interrupted, .invalid: return false
      }
      switch answer.trimmingBlanks().lowercased() {
      case "", "y", "yes":
        do {
          try session.save()
          session.output.writeLine(SaveCommand.report(saved: count, in: session))
          session.output.flush()
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
