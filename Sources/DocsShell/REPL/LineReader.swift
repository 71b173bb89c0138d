#if canImport(Glibc)
  import Glibc
#endif

/// What one attempt to read a line gave.
enum LineInput: Equatable, Sendable {
  /// A line, without its terminator.
  case line(String)
  /// Ctrl-C: the half-typed line was dropped.
  case interrupted
  /// No more input (end of file, or Ctrl-D on an empty line).
  case endOfInput
  /// A line that cannot be used, and why (`line 3 is not valid UTF-8`); reading may go on.
  case invalid(reason: String)
}

/// A source of input lines: a line editor on a terminal, or plain reading from a pipe or file.
protocol LineReader {
  /// Reads the next line, showing `prompt` when the reader is interactive.
  mutating func readLine(prompt: String) -> LineInput
  /// Remembers `entry` for history recall; does nothing for readers without history.
  func addToHistory(_ entry: String)
  /// Writes the history where it is kept; does nothing for readers without history.
  func saveHistory()
  /// The remembered entries, oldest first; empty for readers without history.
  func historyEntries() -> [String]
}

extension LineReader {
  /// Readers without history ignore entries.
  func addToHistory(_ entry: String) {}
  /// Readers without history have nothing to save.
  func saveHistory() {}
  /// Readers without history remember nothing.
  func historyEntries() -> [String] { [] }
}
