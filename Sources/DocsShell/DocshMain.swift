import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// The exit statuses of docsh.
enum ExitStatus: Int32 {
  case success = 0
  /// A command failed.
  case commandFailed = 1
  /// The command line was wrong.
  case badInvocation = 2
  /// The store could not be read or written.
  case storeFailed = 3
}

/// `docsh`: parses the invocation, opens the store, then runs the REPL, a script, `-c`
/// commands or standard input.
@main
enum DocshMain {
  static func main() {
    // A reader that stops early (`docsh … | head`) must not kill a run with changes to
    // save: writes to a closed pipe fail with EPIPE instead, and the rest is discarded.
    signal(SIGPIPE, SIG_IGN)
    let status = run(
      arguments: Array(CommandLine.arguments.dropFirst()), environment: currentEnvironment())
    exit(status.rawValue)
  }

  static func run(arguments: [String], environment: [String: String]) -> ExitStatus {
    let errors = TextOutput(fileDescriptor: 2, unbuffered: true)
    let output = TextOutput(fileDescriptor: 1)
    defer { output.flush() }
    let invocation: Invocation
    do {
      invocation = try Invocation(arguments: arguments)
    } catch {
      errors.writeLine("docsh: \(error)")
      errors.writeLine("Try 'docsh --help' for more information.")
      return .badInvocation
    }
    if invocation.showHelp {
      output.writeLine(Invocation.help)
      return .success
    }
    if invocation.showVersion {
      output.writeLine(Invocation.version)
      return .success
    }
    guard let storePath = invocation.resolvedStorePath(environment: environment) else {
      errors.writeLine("docsh: no store: give --store PATH or set DOCSH_STORE or HOME")
      return .badInvocation
    }
    if invocation.check {
      let report = JSONStore(path: storePath).check()
      for line in CheckReportView(report: report).lines { output.writeLine(line) }
      return report.isSound ? .success : .commandFailed
    }
    let context: Context
    do {
      context = try Context(store: JSONStore(path: storePath))
    } catch {
      errors.writeLine("docsh: error: \(error)")
      return .storeFailed
    }

    let isInteractive =
      invocation.commands.isEmpty && invocation.scriptPath == nil && isatty(0) == 1
    var settings = SessionSettings()
    settings.isInteractive = isInteractive
    settings.assumeYes = invocation.assumeYes
    settings.environment = environment
    settings.colors = colors(
      for: invocation.color, isTerminal: output.isTerminal, environment: environment)
    let session = Session(context: context, output: output, errors: errors, settings: settings)
    let interpreter = Interpreter(session: session)

    if isInteractive {
      let completer = Completer(session: session)
      let reader = EditLineReader(
        historyPath: Invocation.historyPath(environment: environment),
        completionProvider: { line, word in completer.complete(lineBeforeCursor: line, word: word) }
      )
      session.historyEntries = { reader.historyEntries() }
      let loop = InteractiveLoop(interpreter: interpreter, reader: reader)
      if !invocation.noStartupFile, let path = Invocation.startupFilePath(environment: environment)
      {
        interpreter.runStartupFile(at: path)
      }
      if !invocation.noPager && output.isTerminal {
        session.pager = Pager.fromEnvironment(environment) {
          Pager.terminalRows(of: 1, environment: environment)
        }
      }
      loop.run()
      session.output.flush()
      reader.saveHistory()
      return .success
    }
    return runNonInteractively(invocation, interpreter: interpreter)
  }

  /// Runs `-c` texts, a script or standard input: all or nothing, saved at the end.
  static func runNonInteractively(_ invocation: Invocation, interpreter: Interpreter) -> ExitStatus
  {
    let session = interpreter.session
    var failure: (name: String, line: Int, error: ShellError)?
    if !invocation.commands.isEmpty {
      for text in invocation.commands {
        var reader = TextLineReader(text)
        if let (line, error) = interpreter.runScript(&reader) {
          failure = ("-c", line, error)
          break
        }
        if session.wantsToExit { break }
      }
    } else {
      let name = invocation.scriptPath ?? "-"
      var file: Int32 = 0
      if let path = invocation.scriptPath {
        file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
          session.errors.writeLine("docsh: \(path): \(String(cString: strerror(errno)))")
          return .badInvocation
        }
      }
      defer { if file != 0 { close(file) } }
      var reader = PlainLineReader(fileDescriptor: file)
      if let (line, error) = interpreter.runScript(&reader) {
        failure = (name, line, error)
      }
    }
    session.output.flush()
    if let failure {
      session.errors.writeLine("\(failure.name):\(failure.line): error: \(failure.error)")
      if case .context(.store) = failure.error { return .storeFailed }
      return .commandFailed
    }
    guard !invocation.noSave else { return .success }
    do {
      try session.context.save()
    } catch {
      session.errors.writeLine("docsh: error: \(error)")
      return .storeFailed
    }
    return .success
  }

  static func colors(
    for choice: Invocation.ColorChoice, isTerminal: Bool, environment: [String: String]
  ) -> Colors {
    switch choice {
    case .always: return Colors(enabled: true)
    case .never: return Colors(enabled: false)
    case .auto: return Colors.automatic(isTerminal: isTerminal) { environment[$0] }
    }
  }

  static func currentEnvironment() -> [String: String] {
    var environment: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
      let text = String(cString: entry)
      if let equals = text.firstIndex(of: "=") {
        environment[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      pointer += 1
    }
    return environment
  }
}

/// Reads the lines of a string, for `-c TEXT`.
struct TextLineReader: LineReader {
  private var lines: [Substring]
  private var index = 0

  init(_ text: String) {
    lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    if lines.last == "" { lines.removeLast() }
  }

  mutating func readLine(prompt: String) -> LineInput {
    guard index < lines.count else { return .endOfInput }
    defer { index += 1 }
    var line = lines[index]
    if line.hasSuffix("\r") { line = line.dropLast() }
    return .line(String(line))
  }
}
