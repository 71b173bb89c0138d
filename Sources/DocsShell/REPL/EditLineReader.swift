import CLibEdit
import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Reads lines from a terminal with libedit: editing, history, Ctrl-R search, Tab completion.
///
/// The only file that imports `CLibEdit`. Use it only when standard input is a terminal, and
/// never together with another reader of standard input.
struct EditLineReader: LineReader {
  /// Completes the word under the cursor: given the line before the cursor and the word libedit
  /// hands over (the text after the last unescaped blank or quote), returns the texts that
  /// replace that word, already escaped (see ``CompletionContext/replacements(for:)``).
  typealias CompletionProvider =
    (_ lineBeforeCursor: String, _ wordBeingCompleted: String) -> [String]

  /// The most entries history keeps.
  static let historyLimit: Int32 = 1000

  /// The history file, or `nil` when history is not kept on disk.
  let historyPath: String?

  /// Sets up libedit: the locale, history from `historyPath` (`nil` or `/dev/null` for none;
  /// a missing parent folder is created with mode 0700), a key reader that a Ctrl-C always
  /// interrupts, and a SIGINT handler that makes Ctrl-C drop the half-typed line instead of
  /// the process. Completion comes with ``enableCompletion(_:)``, once what it completes
  /// from exists.
  init(historyPath: String?) {
    setlocale(LC_CTYPE, "")
    docsh_set_readline_name()
    // Before libedit initialises in using_history(): it reads the key reader only then.
    docsh_install_key_reader()
    using_history()
    if let historyPath, !historyPath.isEmpty, historyPath != "/dev/null" {
      self.historyPath = historyPath
      Self.makeParentFolder(of: historyPath)
      // 2 (no file yet) and 22 (not a libedit history file) both leave history empty.
      _ = read_history(historyPath)
    } else {
      self.historyPath = nil
    }
    stifle_history(Self.historyLimit)
    _ = docsh_install_sigint_handler()
  }

  /// Completes the word under the cursor with `provider` on Tab.
  func enableCompletion(_ provider: @escaping CompletionProvider) {
    activeCompletion = CompletionState(provider: provider)
    docsh_set_attempted_completion_function(attemptCompletion)
  }

  /// Reads a line with `prompt`: `.interrupted` on Ctrl-C (after ending the prompt's line),
  /// `.endOfInput` on Ctrl-D at an empty line or when the terminal goes away.
  ///
  /// A Ctrl-C ends the line wherever it lands, also between two keys or during a redraw:
  /// keys are read by `docsh_read_key` (see `shim.h`), whose wait is the only place SIGINT
  /// reaches this thread while the line is read.
  mutating func readLine(prompt: String) -> LineInput {
    // A Ctrl-C while the last command ran is not one for this line.
    _ = docsh_take_sigint()
    docsh_set_reading(1)
    let raw = readline(prompt)
    docsh_set_reading(0)
    let interrupted = docsh_take_sigint() != 0
    guard let raw else {
      if interrupted {
        docsh_print_newline()
        return .interrupted
      }
      return .endOfInput
    }
    defer { free(raw) }
    guard let text = String(validatingCString: raw) else {
      return .invalid(reason: "the line is not valid UTF-8")
    }
    return .line(text)
  }

  /// Adds a non-empty entry to the history list.
  func addToHistory(_ entry: String) {
    guard !entry.isEmpty else { return }
    _ = add_history(entry)
  }

  /// The history list, oldest first.
  func historyEntries() -> [String] {
    let base = docsh_history_base()
    return (0..<docsh_history_length()).compactMap { offset in
      history_get(base + offset).flatMap { $0.pointee.line }.map { String(cString: $0) }
    }
  }

  /// Writes the last ``historyLimit`` entries to the history file (mode 0600); on failure,
  /// says so on standard error.
  func saveHistory() {
    guard let historyPath else { return }
    stifle_history(Self.historyLimit)
    let code = write_history(historyPath)
    if code == 0 {
      _ = chmod(historyPath, 0o600)
    } else {
      let message = "docsh: cannot save the history to \(historyPath) (error \(code))\n"
      _ = message.withCString { write(2, $0, strlen($0)) }
    }
  }

  /// Creates the missing folders above `path`, each with mode 0700.
  private static func makeParentFolder(of path: String) {
    let bytes = Array(path.utf8)
    guard let lastSlash = bytes.lastIndex(of: UInt8(ascii: "/")), lastSlash > 0 else { return }
    var index = 1
    while index <= lastSlash {
      if index == lastSlash || bytes[index] == UInt8(ascii: "/") {
        let folder = String(decoding: bytes[..<index], as: UTF8.self)
        _ = mkdir(folder, 0o700)
      }
      index += 1
    }
  }
}

// MARK: - Completion callbacks

/// The active completion provider and the candidates of the completion in progress.
private struct CompletionState {
  var provider: EditLineReader.CompletionProvider?
  var candidates: [String] = []
}

/// The one global the shell keeps, the documented exception to "no `nonisolated(unsafe)`".
///
/// libedit calls completion through C function pointers, which cannot capture context, so the
/// callbacks find the provider here. A `Mutex` would not do: storing a non-`Sendable` closure in
/// one requires `sending` it, and then the closure could not capture the session the caller
/// goes on using. It is safe because it is written only by `enableCompletion(_:)` and read only
/// by the callbacks below, which libedit runs synchronously inside `readline()` on the thread
/// that called `readLine(prompt:)`; there is one terminal and one reader.
nonisolated(unsafe) private var activeCompletion = CompletionState()

/// `rl_attempted_completion_function`: asks the provider, then lets libedit collect the
/// candidates through ``generateCandidate(_:_:)`` and insert their common prefix.
private func attemptCompletion(
  _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32
) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
  docsh_set_attempted_completion_over(1)
  let word = text.map { String(cString: $0) } ?? ""
  let line = lineBeforeCursor()
  let candidates = activeCompletion.provider?(line, word) ?? []
  activeCompletion.candidates = candidates
  guard let first = candidates.first else { return nil }
  let appendsSpace = candidates.count == 1 && !first.hasSuffix("/")
  docsh_set_completion_append_character(appendsSpace ? Int32(UInt8(ascii: " ")) : 0)
  // libedit puts the candidates' common prefix in place of the word: one shorter than the
  // word would erase what was typed (`[[Sh` offering `[[Garden/Shop]]` and `[[Home/Shop]]`).
  // The word stays then, and a second Tab lists the candidates.
  if candidates.count > 1, commonPrefixLength(candidates) < word.utf8.count,
    let matches = malloc(
      MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * (candidates.count + 2))?
      .assumingMemoryBound(to: UnsafeMutablePointer<CChar>?.self)
  {
    matches[0] = strdup(word)
    for (index, candidate) in candidates.enumerated() { matches[index + 1] = strdup(candidate) }
    matches[candidates.count + 1] = nil
    return matches
  }
  return word.withCString { rl_completion_matches($0, generateCandidate) }
}

/// The length in bytes of the prefix all of `candidates` share.
private func commonPrefixLength(_ candidates: [String]) -> Int {
  guard var prefix = candidates.first.map({ Array($0.utf8) }) else { return 0 }
  for candidate in candidates.dropFirst() {
    let shared = zip(prefix, candidate.utf8).prefix { $0 == $1 }.count
    prefix.removeLast(prefix.count - shared)
  }
  return prefix.count
}

/// `rl_compentry_func_t`: the `index`-th candidate, `strdup`ed for libedit to free.
private func generateCandidate(
  _ text: UnsafePointer<CChar>?, _ index: Int32
) -> UnsafeMutablePointer<CChar>? {
  let candidates = activeCompletion.candidates
  guard index >= 0, Int(index) < candidates.count else { return nil }
  return strdup(candidates[Int(index)])
}

/// The text of the line before the cursor; libedit counts `rl_point` in characters (code
/// points of its wide buffer), not bytes.
private func lineBeforeCursor() -> String {
  guard let buffer = docsh_line_buffer() else { return "" }
  let line = String(cString: buffer)
  let point = max(0, Int(docsh_point()))
  return String(String.UnicodeScalarView(line.unicodeScalars.prefix(point)))
}

// MARK: - Ctrl-C while a command runs

/// Ctrl-C as long work sees it: asked to stop once SIGINT arrived since the last line was
/// read. The handler that sets the flag is installed by ``EditLineReader/init(historyPath:)``,
/// so only the REPL (and its startup file) stops work on Ctrl-C; `-c`, a script and piped
/// input have no handler, and Ctrl-C ends them as it ends any program, before they saved.
///
/// For tests, `pausingAt` names work (`grep`, `index`, `import`, `source` …) held at its first
/// check until Ctrl-C comes; it says so on standard error first (`docsh: test pause: grep
/// waits for Ctrl-C`), so that a test sends Ctrl-C when docsh is provably inside that work.
final class CtrlC: Interruption {
  /// The work still to hold at its first check; `nil` once held, or for none.
  private var pausingAt: String?

  /// Ctrl-C, holding the work named `pausingAt` (`DOCSH_TEST_PAUSE_AT`) once.
  init(pausingAt: String?) {
    self.pausingAt = pausingAt.flatMap { $0.isEmpty ? nil : $0 }
  }

  func isRequested(during work: InterruptibleWork) -> Bool {
    if let pausingAt, work.name == pausingAt {
      self.pausingAt = nil
      let message = "docsh: test pause: \(work.name) waits for Ctrl-C\n"
      _ = message.withCString { write(2, $0, strlen($0)) }
      docsh_wait_for_sigint()
    }
    return docsh_sigint_pending() != 0
  }
}
// MARK: - SIGHUP, SIGTERM and the idle timer

/// What the journal of unsaved work needs from the terminal's C edge (`shim.h`): SIGHUP and
/// SIGTERM recorded instead of ending the process at once, and a timer the key reader runs
/// when the terminal has been idle.
enum TerminalEvents {
  /// Makes SIGHUP and SIGTERM end the line being read and be recorded, for the session to
  /// write its journal and then end by ``endBySignal(_:)``.
  static func installTerminationHandlers() {
    _ = docsh_install_termination_handlers()
  }

  /// The signal that asked the session to end, once one did.
  static var terminationSignal: Int32? {
    let signal = docsh_pending_termination()
    return signal == 0 ? nil : signal
  }

  /// Ends the process by `signal` with its default action, as it would have ended without
  /// the handler (a shell sees status 128 + `signal`).
  static func endBySignal(_ signal: Int32) -> Never {
    Glibc.signal(signal, SIG_DFL)
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    sigaddset(&unblocked, signal)
    pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    raise(signal)
    exit(128 + signal)
  }

  /// Runs `action` when the armed idle timer fires: inside the key reader, between two keys
  /// of the main prompt, on the thread reading the terminal.
  static func onIdle(_ action: @escaping () -> Void) {
    // Kept for the life of the process: the C side holds the pointer.
    let box = Unmanaged.passRetained(IdleAction(action))
    docsh_set_idle_handler(runIdleAction, box.toOpaque())
  }

  /// Arms the idle timer: it fires once the terminal was idle for `idle` milliseconds, or
  /// `longest` milliseconds from now at the latest.
  static func armIdleTimer(idle: Int, longest: Int) {
    docsh_arm_idle_timer(Int32(clamping: idle), Int32(clamping: longest))
  }

  /// Runs `write`, which prints a line to the terminal (a warning of the journal), so that it
  /// does not land on the prompt: while a line is being read, on a line of its own, with the
  /// prompt and what was typed drawn again below it; otherwise as it is.
  static func printAbovePrompt(_ write: () -> Void) {
    guard docsh_reading_now() != 0 else { return write() }
    docsh_print_newline()
    write()
    docsh_redraw_line()
  }

  /// Disarms the idle timer.
  static func disarmIdleTimer() {
    docsh_arm_idle_timer(-1, 0)
  }
}

/// The action of the idle timer, boxed for the C side's context pointer.
private final class IdleAction {
  let run: () -> Void
  init(_ run: @escaping () -> Void) { self.run = run }
}

/// The idle handler the C side calls with the boxed action.
private func runIdleAction(_ context: UnsafeMutableRawPointer?) {
  guard let context else { return }
  Unmanaged<IdleAction>.fromOpaque(context).takeUnretainedValue().run()
}
