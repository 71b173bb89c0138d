// What a session needs from the person at the terminal, as small protocols passed in when the
// session is made: the REPL's versions read the terminal, the non-interactive ones answer
// nothing, and tests bring scripted ones.

/// Asks the user a question.
protocol QuestionAsking: AnyObject {
  /// Shows `question` and returns the answer line; `nil` at the end of input.
  func ask(_ question: String) -> String?
}

/// Reads text the user types line by line (`new NAME` with no text and no editor).
protocol TypedLineReading: AnyObject {
  /// Reads one more line with a continuation prompt; `nil` at the end of input.
  func readTypedLine() -> String?
}

/// The lines typed so far, for `history`.
protocol HistoryKeeping: AnyObject {
  /// The entries, oldest first.
  func historyEntries() -> [String]
}

/// Shows long output a screen at a time.
protocol Paging {
  /// Shows `output` on `screen`, through a pager when it is longer than the screen; says on
  /// `errors` why when the pager cannot run, and then writes the output after all.
  func show(_ output: [UInt8], on screen: TextOutput, errors: TextOutput)
}

/// A run where nobody is at the terminal: questions get no answer, nothing can be typed,
/// there is no history.
final class NobodyAtTheTerminal: QuestionAsking, TypedLineReading, HistoryKeeping {
  init() {}
  func ask(_ question: String) -> String? { nil }
  func readTypedLine() -> String? { nil }
  func historyEntries() -> [String] { [] }
}

/// The REPL's terminal: questions, typed lines and command lines all read through one line
/// reader (libedit), which keeps the history.
final class TerminalInput: QuestionAsking, TypedLineReading, HistoryKeeping {
  /// The reader of the terminal.
  private(set) var reader: any LineReader

  /// Where a newline goes when Ctrl-D answers a question, so the next line does not start
  /// after the `^D` libedit left; `nil`: nowhere.
  private let endOfInputEcho: TextOutput?

  /// Input read through `reader`; a question ended by Ctrl-D ends its line on
  /// `endOfInputEcho`.
  init(reader: any LineReader, endOfInputEcho: TextOutput? = nil) {
    self.reader = reader
    self.endOfInputEcho = endOfInputEcho
  }

  /// Reads a command line (or a line of its here-document) with `prompt`.
  func readLine(prompt: String) -> LineInput {
    reader.readLine(prompt: prompt)
  }

  func ask(_ question: String) -> String? {
    switch reader.readLine(prompt: question) {
    case .line(let answer): return answer
    case .endOfInput:
      // Ctrl-D answers no; what follows starts on a line of its own.
      endOfInputEcho?.writeLine("")
      return nil
    case .interrupted, .invalid: return nil
    }
  }

  func readTypedLine() -> String? {
    guard case .line(let line) = reader.readLine(prompt: "… ") else { return nil }
    return line
  }

  func historyEntries() -> [String] {
    reader.historyEntries()
  }

  /// Remembers `entry` in the history.
  func addToHistory(_ entry: String) {
    reader.addToHistory(entry)
  }

  /// Writes the history where it is kept.
  func saveHistory() {
    reader.saveHistory()
  }
}
