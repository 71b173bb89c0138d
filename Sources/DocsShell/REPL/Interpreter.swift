import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Runs lines of docsh: tokenizes them, collects here-documents, finds each command in the
/// registry, parses its arguments by its declaration, runs it as one undo group and hands what
/// it returns to the view. Used by the REPL, scripts, `-c`, the startup file and `source`.
final class Interpreter {
  /// How deep `source` may nest before it is taken for a loop.
  static let maximumSourceDepth = 32

  let session: Session
  /// Set by `exit`: a script stops, the REPL asks before leaving.
  var exitRequested = false
  private var sourceDepth = 0

  init(session: Session) {
    self.session = session
  }

  /// How errors are written: one line each on standard error.
  var errorReporter: ErrorReporter {
    ErrorReporter(errors: session.errors, colors: session.settings.colors)
  }

  /// Runs one line; `moreLines` supplies the lines of a here-document it starts.
  ///
  /// Ctrl-C stops it (see ``CtrlC``): a command that notices it part way throws, one that
  /// changes things is taken back whole even when it did not notice, and the commands after
  /// it do not run. A command that fails once Ctrl-C came (git ended by the same Ctrl-C
  /// during `sync`) is reported as interrupted.
  /// - Throws: the error of the first command that fails (a ``ShellError`` or a model error);
  ///   later commands of the line do not run.
  func execute(_ line: String, moreLines: () -> String?) throws {
    let commands: [ParsedCommand]
    do {
      commands = try Tokenizer.commands(in: line)
    } catch {
      throw ShellError.tokenizer(error)
    }
    for parsed in commands {
      guard parsed.words.first != nil else { continue }
      try session.stopIfInterrupted()
      do {
        try execute(parsed, moreLines: moreLines)
      } catch {
        // Kept when it says interrupted already (with the line of a sourced file).
        if session.isInterrupted(), ErrorReport(error).exitStatus != .interrupted {
          throw ShellError.interrupted
        }
        throw error
      }
      if exitRequested { return }
    }
  }

  /// Runs one command of a line.
  private func execute(_ parsed: ParsedCommand, moreLines: () -> String?) throws {
    guard let name = parsed.words.first else { return }
    _ = session.output.takeWasCut()
    var hereDocument: String?
    if let delimiter = parsed.hereDocumentDelimiter {
      hereDocument = try collectHereDocument(until: delimiter, from: moreLines)
    }
    guard let type = CommandRegistry.command(named: name) else {
      throw ShellError.unknownCommand(name)
    }
    // A store lost in its repository: nothing but sync (which restores it) may run.
    if let refusal = session.storeRefusal, !Interpreter.runsWithoutTheStore(type) {
      throw refusal
    }
    // Read once: each read of a command type's configuration copies it.
    let configuration = type.configuration
    let arguments: ParsedArguments
    do {
      arguments = try configuration.parse(
        Array(parsed.words.dropFirst()), hereDocument: hereDocument)
    } catch {
      throw Interpreter.mentioningComment(parsed.comment, in: error)
    }
    let command = try type.init(arguments)
    // bash's rule stands, but a person typing `append Plan text #tag` is told what it did.
    if let word = parsed.comment.flatMap(Interpreter.firstWord), session.settings.isInteractive,
      configuration.arguments.positionals.contains(where: { $0.kind == .text })
    {
      session.tell(
        "docsh: note: \"\(word)\" began a comment and was left out; quote it ('\(word)') to keep it"
      )
    }
    if configuration.pagesOutput, let pager = session.collaborators.pager {
      try runPaged(command, of: configuration, through: pager, words: parsed.words)
    } else {
      try run(command, of: configuration, words: parsed.words)
    }
    session.output.flush()
    // Output dropped by Ctrl-C: the command was stopped while it showed what it found.
    if session.output.takeWasCut() { throw ShellError.interrupted }
  }

  /// Runs `command` (as one undo group when it changes things) and carries out or shows
  /// what it returns.
  private func run(
    _ command: any ShellCommand, of configuration: CommandConfiguration, words: [String]
  ) throws {
    let context = session.context
    if !configuration.runsWithoutCategoryList { try context.readCategoryList() }
    // A category the store could not load fails its query, and so the command (which,
    // inside its undo group, changes nothing); so does a category list that could not be
    // read while the command ran.
    func runCheckingLoads() throws -> CommandResult {
      let result = try command.run(in: session)
      try context.checkCategoryList()
      // Ctrl-C during a command that changes things takes it back, noticed or not.
      if configuration.isUndoable { try session.stopIfInterrupted() }
      return result
    }
    let result: CommandResult
    if configuration.isUndoable {
      result = try context.performChanges(Interpreter.actionName(words), runCheckingLoads)
    } else {
      result = try runCheckingLoads()
    }
    session.warnOnceAboutTheIndex()
    switch result {
    case .runFile(let path):
      try source(path)
    case .exit:
      exitRequested = true
    default:
      resultView.show(result)
      if let failure = result.failureAfterShowing { throw failure }
    }
  }

  private var resultView: ResultView {
    ResultView(
      output: session.output, errors: session.errors, colors: session.settings.colors,
      dates: session.settings.dates, now: session.collaborators.clock())
  }

  /// Runs `command` with its output held back, then shows it through `pager` when it is
  /// longer than the screen. Output written before a failure is shown too.
  private func runPaged(
    _ command: any ShellCommand, of configuration: CommandConfiguration,
    through pager: any Paging, words: [String]
  ) throws {
    session.output.hold()
    var failure: (any Error)?
    do {
      try run(command, of: configuration, words: words)
    } catch {
      failure = error
    }
    pager.show(session.output.releaseHeld(), on: session.output, errors: session.errors)
    if let failure { throw failure }
  }

  /// A usage error that says, when a comment ended the line, that `#` began it: `tag Plan
  /// #hash` lacks its tag because `#hash` was a comment.
  static func mentioningComment(_ comment: String?, in error: ShellError) -> ShellError {
    guard case .usage(let command, let message, let usage) = error,
      let word = comment.flatMap(firstWord)
    else { return error }
    return .usage(
      command: command,
      message: message + "; \"\(word)\" began a comment (quote it: '\(word)')", usage: usage)
  }

  /// The first word of a comment (`#hash` of `#hash more`, `# hash` of `# hash more`);
  /// `nil` for a comment that is a `#` alone.
  static func firstWord(of comment: String) -> String? {
    let words = comment.split(whereSeparator: { $0 == " " || $0 == "\t" }).prefix(2)
    guard let first = words.first else { return nil }
    guard first == "#" else { return String(first) }
    return words.count == 2 ? "# " + words[words.index(after: words.startIndex)] : nil
  }

  /// Whether `type` may run while the store is lost: `sync` restores it; `help` and `exit`
  /// touch nothing.
  static func runsWithoutTheStore(_ type: any ShellCommand.Type) -> Bool {
    type == SyncCommand.self || type == HelpCommand.self || type == ExitCommand.self
  }

  /// What `undo` calls a command: its name and first argument ("rmdir Work"), cut short
  /// after 60 characters.
  static func actionName(_ words: [String]) -> String {
    var name = words.first ?? ""
    if let target = words.dropFirst().first(where: { $0.utf8.first != UInt8(ascii: "-") }) {
      name += " " + target
    }
    return name.utf8.count <= 60 ? name : name.prefix(59) + "…"
  }

  /// A line of a script that failed, and why.
  struct ScriptFailure {
    /// The line's number, from 1.
    var line: Int
    /// Why it failed.
    var error: any Error
  }

  /// Runs the lines `reader` gives, stopping at the first failure, at `exit` or at Ctrl-C
  /// (after the line that ran when it came; the lines before it stand, as before a failure).
  /// - Returns: `nil` when every line succeeded, else the failure with its line number.
  func runScript(_ reader: inout some LineReader) -> ScriptFailure? {
    var lineNumber = 0
    while !exitRequested {
      let input = reader.readLine(prompt: "")
      lineNumber += 1
      switch input {
      case .endOfInput:
        return nil
      case .interrupted:
        return ScriptFailure(line: lineNumber, error: ShellError.interrupted)
      case .invalid(let reason):
        return ScriptFailure(line: lineNumber, error: ShellError.unusableLine(reason: reason))
      case .line(let text):
        let commandLine = lineNumber
        do {
          try execute(text) {
            guard case .line(let more) = reader.readLine(prompt: "") else { return nil }
            lineNumber += 1
            return more
          }
        } catch {
          session.output.flush()
          return ScriptFailure(line: commandLine, error: error)
        }
        // Ctrl-C stops a sourced file or the startup file between two lines as well.
        if session.isInterrupted(during: .sourcedFile) {
          return ScriptFailure(line: lineNumber + 1, error: ShellError.interrupted)
        }
      }
    }
    return nil
  }

  /// Runs the commands of the file at `path` in this session, for `source`.
  private func source(_ path: String) throws(ShellError) {
    guard sourceDepth < Interpreter.maximumSourceDepth else {
      throw .sourcedTooDeep(limit: Interpreter.maximumSourceDepth)
    }
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { throw .unreadableScript(path: path, errno: errno) }
    defer { close(file) }
    sourceDepth += 1
    defer { sourceDepth -= 1 }
    var reader = PlainLineReader(fileDescriptor: file)
    if let failure = runScript(&reader) {
      throw .failedInSourcedFile(path: path, line: failure.line, report: ErrorReport(failure.error))
    }
  }

  /// Runs the REPL's startup file (`docshrc`) before the first prompt.
  ///
  /// The file runs like a script: nobody is asked anything (a confirmation fails unless
  /// `-f`), and the first failing line stops it, reported as `FILE:LINE: error: …` on
  /// standard error — later lines may depend on it (`cd Work` then `rm -f Draft`), so they
  /// are skipped. Whatever happens, the REPL starts afterwards; `exit` in the file only ends
  /// the file. A missing file is no error.
  func runStartupFile(at path: String) {
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else {
      if errno != ENOENT {
        session.tell("docsh: \(path): \(systemMessage(errno))")
      }
      return
    }
    defer { close(file) }
    let wasInteractive = session.settings.isInteractive
    session.settings.isInteractive = false
    defer {
      session.settings.isInteractive = wasInteractive
      exitRequested = false
    }
    var reader = PlainLineReader(fileDescriptor: file)
    let failure = runScript(&reader)
    session.output.flush()
    if let failure {
      errorReporter.report(failure.error, at: "\(path):\(failure.line)")
    }
  }

  private func collectHereDocument(
    until delimiter: String, from moreLines: () -> String?
  ) throws(ShellError) -> String {
    var text = ""
    while let line = moreLines() {
      if line == delimiter { return text }
      text += line + "\n"
    }
    throw .unterminatedHereDocument(delimiter: delimiter)
  }
}
