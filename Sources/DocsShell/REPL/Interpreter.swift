import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Runs lines of docsh: tokenizes them, collects here-documents, finds each command in the
/// registry and runs it as one undo group. Used by the REPL, scripts, `-c` and `source`.
final class Interpreter {
  /// How deep `source` may nest before it is taken for a loop.
  static let maximumSourceDepth = 32

  let session: Session
  private var sourceDepth = 0

  init(session: Session) {
    self.session = session
    session.runFile = { [unowned self] path throws(ShellError) in try self.source(path) }
  }

  /// Runs one line; `moreLines` supplies the lines of a here-document it starts.
  /// - Throws: ``ShellError`` from the first command that fails; later commands of the line
  ///   do not run.
  func execute(_ line: String, moreLines: () -> String?) throws(ShellError) {
    let commands: [ParsedCommand]
    do {
      commands = try Tokenizer.commands(in: line)
    } catch {
      throw .input(error.description)
    }
    for parsed in commands {
      guard let name = parsed.words.first else { continue }
      var hereDocument: String?
      if let delimiter = parsed.hereDocumentDelimiter {
        hereDocument = try collectHereDocument(until: delimiter, from: moreLines)
      }
      guard let type = CommandRegistry.command(named: name) else { throw .unknownCommand(name) }
      let command = try type.init(
        arguments: Array(parsed.words.dropFirst()), hereDocument: hereDocument)
      if type.configuration.pagesOutput, let pager = session.pager {
        try runPaged(command, of: type, through: pager, words: parsed.words)
      } else {
        try run(command, of: type, words: parsed.words)
      }
      session.output.flush()
      if session.wantsToExit { return }
    }
  }

  private func run(_ command: any ShellCommand, of type: any ShellCommand.Type, words: [String])
    throws(ShellError)
  {
    if type.configuration.isUndoable {
      try session.context.performChanges(Interpreter.actionName(words)) { () throws(ShellError) in
        try command.run(in: session)
      }
    } else {
      try command.run(in: session)
    }
  }

  /// Runs `command` with its output held back, then shows it through `pager` when it is
  /// longer than the screen. Output written before a failure is shown too.
  private func runPaged(
    _ command: any ShellCommand, of type: any ShellCommand.Type, through pager: Pager,
    words: [String]
  ) throws(ShellError) {
    session.output.hold()
    var failure: ShellError?
    do {
      try run(command, of: type, words: words)
    } catch {
      failure = error
    }
    pager.show(session.output.releaseHeld(), on: session.output, errors: session.errors)
    if let failure { throw failure }
  }

  /// What `undo` calls a command: its name and first argument ("rmdir Work"), cut short
  /// after 60 characters.
  static func actionName(_ words: [String]) -> String {
    var name = words.first ?? ""
    if let target = words.dropFirst().first(where: { !$0.hasPrefix("-") }) { name += " " + target }
    return name.utf8.count <= 60 ? name : name.prefix(59) + "…"
  }

  /// Runs the lines `reader` gives, stopping at the first failure.
  /// - Returns: `nil` when every line succeeded, else the failure with its line number.
  func runScript(_ reader: inout some LineReader) -> (line: Int, error: ShellError)? {
    var lineNumber = 0
    while !session.wantsToExit {
      let input = reader.readLine(prompt: "")
      lineNumber += 1
      switch input {
      case .endOfInput:
        return nil
      case .interrupted:
        return (lineNumber, .input("interrupted"))
      case .invalid(let reason):
        return (lineNumber, .input(reason))
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
          return (commandLine, error)
        }
      }
    }
    return nil
  }

  /// Runs the commands of the file at `path` in this session, for `source`.
  private func source(_ path: String) throws(ShellError) {
    guard sourceDepth < Interpreter.maximumSourceDepth else {
      throw .input(
        "source: files source each other more than \(Interpreter.maximumSourceDepth) deep")
    }
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { throw .input("source: \(path): \(String(cString: strerror(errno)))") }
    defer { close(file) }
    sourceDepth += 1
    defer { sourceDepth -= 1 }
    var reader = PlainLineReader(fileDescriptor: file)
    if let (line, error) = runScript(&reader) {
      throw .input("\(path):\(line): \(error)")
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
    throw .input("the here-document has no line \"\(delimiter)\" before the end of input")
  }
}
