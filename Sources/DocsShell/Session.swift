import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Where text goes: a file descriptor (buffered, flushed after each command) or, in tests,
/// a string.
final class TextOutput {
  /// The descriptor written to; `nil` captures into ``captured``.
  let fileDescriptor: Int32?
  /// Whether the descriptor is a terminal.
  let isTerminal: Bool
  /// Everything written, when capturing.
  private(set) var captured = ""
  private var buffer: [UInt8] = []

  /// Whether every write goes out at once (standard error).
  private let isUnbuffered: Bool
  /// Output kept back by ``hold()`` until ``releaseHeld()``; `nil` when not holding.
  private var held: [UInt8]?

  /// Output to `fileDescriptor`, buffered until ``flush()`` unless `unbuffered`.
  init(fileDescriptor: Int32, unbuffered: Bool = false) {
    self.fileDescriptor = fileDescriptor
    isTerminal = isatty(fileDescriptor) == 1
    isUnbuffered = unbuffered
  }

  /// Output captured in memory, as if to a terminal or not.
  init(capturingAsTerminal isTerminal: Bool = false) {
    fileDescriptor = nil
    self.isTerminal = isTerminal
    isUnbuffered = false
  }

  /// Writes `text` as it is.
  func write(_ text: String) {
    if held != nil {
      held?.append(contentsOf: text.utf8)
      return
    }
    guard fileDescriptor != nil else {
      captured += text
      return
    }
    buffer.append(contentsOf: text.utf8)
    if isUnbuffered || buffer.count >= 1 << 16 { flush() }
  }

  /// Writes `text` and a newline.
  func writeLine(_ text: String) {
    write(text)
    write("\n")
  }

  /// Writes `bytes` as they are (output that was held, then not paged).
  func write(bytes: [UInt8]) {
    guard fileDescriptor != nil, held == nil else {
      write(String(decoding: bytes, as: UTF8.self))
      return
    }
    buffer.append(contentsOf: bytes)
    if isUnbuffered || buffer.count >= 1 << 16 { flush() }
  }

  /// Keeps everything written from now on back, however long, until ``releaseHeld()``:
  /// the REPL decides afterwards whether a command's output goes through the pager.
  func hold() {
    flush()
    held = held ?? []
  }

  /// Stops holding and returns what was held.
  func releaseHeld() -> [UInt8] {
    defer { held = nil }
    return held ?? []
  }

  /// Sends what is buffered to the descriptor (nothing while holding).
  func flush() {
    guard held == nil, let fileDescriptor, !buffer.isEmpty else { return }
    buffer.withUnsafeBytes { bytes in
      var done = 0
      while done < bytes.count {
        let count = Glibc.write(
          fileDescriptor, bytes.baseAddress.map { $0 + done }, bytes.count - done)
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }  // a closed pipe: nothing more to do
        done += count
      }
    }
    buffer.removeAll(keepingCapacity: true)
  }

  /// Clears what was captured (tests).
  func takeCaptured() -> String {
    defer { captured = "" }
    return captured
  }
}

/// How this run of docsh behaves.
struct SessionSettings {
  /// Someone is at a terminal to answer questions.
  var isInteractive = false
  /// `--yes`: every confirmation is answered yes.
  var assumeYes = false
  /// Colors for output.
  var colors = Colors(enabled: false)
  /// The time zone dates are shown in.
  var dates = DateFormatting()
  /// The environment (`VISUAL`, `EDITOR`, …).
  var environment: [String: String] = [:]
}

/// The state a command acts on: the context, where the user is, and where output goes.
final class Session {
  /// The object graph.
  let context: Context
  /// Standard output.
  let output: TextOutput
  /// Standard error.
  let errors: TextOutput
  /// How this run behaves.
  var settings: SessionSettings
  /// Asks the user a question and returns the answer line; `nil` at end of input.
  var ask: (String) -> String? = { _ in nil }
  /// Reads one more line of typed content with a continuation prompt; `nil` at end of input.
  var readContentLine: () -> String? = { nil }
  /// The entries of the line history, oldest first.
  var historyEntries: () -> [String] = { [] }
  /// Runs the lines of a file, for `source`.
  var runFile: (String) throws(ShellError) -> Void = { path throws(ShellError) in
    throw .input("\(path): cannot source files here")
  }
  /// Set by `exit` / `quit`.
  var wantsToExit = false
  /// The time now, for showing recent dates.
  var now: () -> Timestamp = { Timestamp.now() }
  /// The pager for long output of the commands that page; `nil` (no REPL, `--no-pager`,
  /// output not a terminal) writes everything straight out.
  var pager: Pager?

  private var currentCategoryID: ObjectID?
  private var previousCategoryID: ObjectID??

  /// A session on `context` at the top level.
  init(context: Context, output: TextOutput, errors: TextOutput, settings: SessionSettings) {
    self.context = context
    self.output = output
    self.errors = errors
    self.settings = settings
  }

  /// The category the user is in; `nil` at the top. A category that vanished (undo, revert)
  /// puts the user back at the top.
  var currentCategory: Category? {
    guard let id = currentCategoryID else { return nil }
    return context.category(withID: id)
  }

  /// Goes into `category` (`nil`: the top), remembering where the user was for `cd -`.
  func changeCategory(to category: Category?) {
    previousCategoryID = .some(currentCategory?.id)
    currentCategoryID = category?.id
  }

  /// Where `cd -` goes back to: `.none` when there is nowhere, `.some(nil)` for the top.
  var previousCategory: Category?? {
    guard let previous = previousCategoryID else { return .none }
    guard let id = previous else { return .some(nil) }
    return context.category(withID: id).map { .some($0) } ?? .some(nil)
  }

  /// The location shown in the prompt and by `pwd`: `/` or `/Work`.
  var location: String {
    currentCategory.map { "/" + $0.name.text } ?? "/"
  }

  /// Resolves a path typed by the user from where the user is.
  func resolve(_ path: String) throws(ShellError) -> ResolvedPath {
    try ShellPath(path).resolve(in: context, from: currentCategory)
  }

  /// A file-system path as typed, with a leading `~` or `~/` standing for `$HOME` as in a
  /// shell (`~user` is left alone).
  func filePath(_ typed: String) -> String {
    guard typed == "~" || typed.hasPrefix("~/"),
      let home = settings.environment["HOME"], !home.isEmpty
    else { return typed }
    return home + typed.dropFirst()
  }

  /// Asks a yes/no `question` (default no), unless `--yes` or nobody can answer.
  /// - Throws: ``ShellError/confirmationNeeded(_:)`` in a non-interactive run without `--yes`.
  func confirm(_ question: String) throws(ShellError) -> Bool {
    if settings.assumeYes { return true }
    guard settings.isInteractive else { throw .confirmationNeeded(question) }
    guard let answer = ask(question + " [y/N] ") else { return false }
    let word = answer.trimmingBlanks().lowercased()
    return word == "y" || word == "yes"
  }

  /// Text escaped for the terminal when output goes to one.
  func displayed(_ text: String, isContent: Bool = false) -> String {
    output.isTerminal ? escapedForTerminal(text, allowingNewlinesAndTabs: isContent) : text
  }
}

extension String {
  /// The string without blanks (spaces, tabs, newlines) around it.
  func trimmingBlanks() -> String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
      let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
    else { return "" }
    return String(scalars[first...last])
  }
}
