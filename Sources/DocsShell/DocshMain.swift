import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

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
    // Ctrl-C as the running command sees it; only the REPL installs the handler that makes
    // it more than the end of docsh. DOCSH_TEST_PAUSE_AT is for tests (see CtrlC).
    let ctrlC = CtrlC(pausingAt: environment["DOCSH_TEST_PAUSE_AT"])
    let errors = TextOutput(fileDescriptor: 2, unbuffered: true)
    let output = TextOutput(fileDescriptor: 1, interruption: ctrlC)
    defer { output.flush() }
    let invocation: Invocation
    switch parse(arguments, environment: environment, output: output, errors: errors) {
    case .finished(let status): return status
    case .toRun(let parsed): invocation = parsed
    }
    guard let storePath = invocation.resolvedStorePath(environment: environment) else {
      ErrorReporter(errors: errors, colors: .disabled).reportBadInvocation(.noStore)
      return .badInvocation
    }
    let launch = Launch(
      invocation: invocation, storePath: storePath, environment: environment, output: output,
      errors: errors, ctrlC: ctrlC)
    if invocation.check { return launch.check() }
    if invocation.checkpoint { return launch.checkpoint() }
    if let kept = invocation.applyLog { return launch.applyKeptLog(at: kept) }
    let context: Context
    let refusal: SyncError?
    switch launch.openContext() {
    case .success(let opened): (context, refusal) = opened
    case .failure(let error): return launch.reporter.report(error, at: "docsh")
    }
    // Recovery files of sessions that ended with unsaved changes; none for a lost store.
    let leftBehind =
      refusal == nil ? RecoveryJournal.filesLeftBehind(storePath: storePath) : []
    guard launch.settings.isInteractive else {
      return launch.runNonInteractively(context, refusal: refusal, leftBehind: leftBehind)
    }
    return launch.runInteractively(context, refusal: refusal, leftBehind: leftBehind)
  }

  /// What the first phase, reading the arguments, leaves to do.
  enum ParsedInvocation {
    /// Nothing more: the help, the version, a merge or a refusal was the whole run.
    case finished(ExitStatus)
    /// The store is to be opened and the invocation run.
    case toRun(Invocation)
  }

  /// Reads the arguments, and answers at once what needs no store: `--help`, `--version`,
  /// `--merge-file` and a bad invocation.
  static func parse(
    _ arguments: [String], environment: [String: String], output: TextOutput,
    errors: TextOutput
  ) -> ParsedInvocation {
    let invocation: Invocation
    do {
      invocation = try Invocation(arguments: arguments)
    } catch {
      let meant = Invocation.commandWithoutC(in: arguments, exists: fileExists)
      ErrorReporter(errors: errors, colors: .disabled).reportBadInvocation(meant ?? error)
      return .finished(.badInvocation)
    }
    if let script = invocation.scriptPath,
      let meant = Invocation.commandWithoutC(in: arguments, exists: fileExists),
      script == meant.word
    {
      ErrorReporter(errors: errors, colors: .disabled).reportBadInvocation(meant)
      return .finished(.badInvocation)
    }
    if invocation.showHelp {
      output.writeLine(Invocation.helpText)
      return .finished(.success)
    }
    if invocation.showVersion {
      output.writeLine(Invocation.version)
      return .finished(.success)
    }
    if let files = invocation.mergeFiles {
      return .finished(mergeFiles(files, errors: errors))
    }
    return .toRun(invocation)
  }

  /// The journal of the interactive `session`'s unsaved work, written when the terminal is
  /// idle; `nil` for a session on a lost store, or when `DOCSH_JOURNAL_DELAY_MS=off`.
  static func makeJournal(
    for session: Session, storePath: String, environment: [String: String]
  ) -> UnsavedWorkJournal? {
    guard session.storeRefusal == nil,
      let delay = UnsavedWorkJournal.delay(environment: environment)
    else { return nil }
    let journal = UnsavedWorkJournal(
      journal: RecoveryJournal(
        storePath: storePath, processID: getpid(), started: Timestamp.now()),
      delayMilliseconds: delay, context: session.context, timer: TerminalIdleTimer(),
      tell: { [unowned session] line in TerminalEvents.printAbovePrompt { session.tell(line) } })
    TerminalEvents.onIdle { [unowned session] in journal.idle(session.context) }
    return journal
  }

  /// Runs `-c` texts, a script or standard input: all or nothing, saved at the end.
  static func runNonInteractively(_ invocation: Invocation, interpreter: Interpreter) -> ExitStatus
  {
    let session = interpreter.session
    let reporter = interpreter.errorReporter
    var failure: (name: String, failure: Interpreter.ScriptFailure)?
    if !invocation.commands.isEmpty {
      for text in invocation.commands {
        var reader = TextLineReader(text)
        if let failed = interpreter.runScript(&reader) {
          failure = ("-c", failed)
          break
        }
        if interpreter.exitRequested { break }
      }
    } else {
      let name = invocation.scriptPath ?? "-"
      var file: Int32 = 0
      if let path = invocation.scriptPath {
        file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
          reporter.reportBadInvocation(.unreadableScript(path: path, errno: errno))
          return .badInvocation
        }
      }
      defer { if file != 0 { close(file) } }
      var reader = PlainLineReader(fileDescriptor: file)
      if let failed = interpreter.runScript(&reader) {
        failure = (name, failed)
      }
    }
    session.output.flush()
    if let failure {
      return reporter.report(failure.failure.error, at: "\(failure.name):\(failure.failure.line)")
    }
    guard !invocation.noSave else { return .success }
    do {
      try session.save()
    } catch {
      reporter.report(error, at: "docsh")
      return .storeFailed  // whatever the reason, the changes could not be written
    }
    session.warnOnceAboutTheIndex()
    return .success
  }

  /// `docsh --merge-file BASE CURRENT OTHER [PATH]`: git's merge driver. The merged store is
  /// written into CURRENT; each conflict is a line on standard error; exit 0. An input that
  /// is not a docsh store exits 3 and leaves CURRENT byte for byte as it was.
  static func mergeFiles(_ files: Invocation.MergeFiles, errors: TextOutput) -> ExitStatus {
    do {
      let conflicts = try MergeDriver.mergeFiles(
        base: files.base, current: files.current, other: files.other, date: MergeDate.today())
      for conflict in conflicts { errors.writeLine("docsh: conflict: \(conflict)") }
      return .success
    } catch {
      ErrorReporter(errors: errors, colors: .disabled).report(error, at: "docsh")
      return error.isNotAStore ? .storeFailed : .commandFailed
    }
  }

  /// Whether a file (or anything) is at `path`.
  static func fileExists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
  }

  /// A path beside `path` where no file is: an empty store for a session that refuses every
  /// command until `sync` restores the real one.
  static func unusedPath(beside path: String) -> String {
    var candidate = path + ".unavailable"
    while fileExists(candidate) { candidate += "-" }
    return candidate
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
    // Split at the first `=` byte, not the first `=` Character: cheaper (this runs at every
    // start), and a name is bytes, whatever follows the `=`.
    var count = 0
    while environ[count] != nil { count += 1 }
    var environment: [String: String] = [:]
    environment.reserveCapacity(count)
    for position in 0..<count {
      guard let entry = environ[position], let equals = strchr(entry, Int32(UInt8(ascii: "=")))
      else { continue }
      let name = UnsafeRawBufferPointer(start: entry, count: entry.distance(to: equals))
      environment[String(decoding: name, as: UTF8.self)] = String(cString: equals + 1)
    }
    return environment
  }
}

/// A run of docsh past its arguments: what opening the store and each way of running
/// (a check, a script or `-c`, the REPL) share, settled once from the invocation.
private struct Launch {
  let invocation: Invocation
  let storePath: String
  let environment: [String: String]
  let output: TextOutput
  let errors: TextOutput
  let ctrlC: CtrlC
  let settings: SessionSettings
  let reporter: ErrorReporter
  /// Where the index lives: the cache, derived data, rebuilt from the store whenever in doubt.
  let cacheFolder: String?
  /// How long a run waits for another process's write to the index.
  let indexWaitMilliseconds: Int
  let progress: ProgressBar?
  /// The store's git repository, looked for only when a save, sync or history needs it.
  let repository: RepositoryAccess

  init(
    invocation: Invocation, storePath: String, environment: [String: String],
    output: TextOutput, errors: TextOutput, ctrlC: CtrlC
  ) {
    self.invocation = invocation
    self.storePath = storePath
    self.environment = environment
    self.output = output
    self.errors = errors
    self.ctrlC = ctrlC
    var settings = SessionSettings()
    settings.isInteractive =
      invocation.commands.isEmpty && invocation.scriptPath == nil && isatty(0) == 1
    settings.assumeYes = invocation.assumeYes
    settings.environment = environment
    settings.colors = DocshMain.colors(
      for: invocation.color, isTerminal: output.isTerminal, environment: environment)
    self.settings = settings
    reporter = ErrorReporter(errors: errors, colors: settings.colors)
    cacheFolder = Invocation.xdgPath(
      "XDG_CACHE_HOME", fallback: ".cache", file: "docsh", environment: environment)
    progress =
      errors.isTerminal
      ? ProgressBar(output: errors, delay: ProgressBar.delay(in: environment)) : nil
    // DOCSH_TEST_INDEX_WAIT_MS is for tests: a wait no loaded machine runs out of, so that
    // a test of many processes at once bets on no machine's speed.
    indexWaitMilliseconds =
      environment["DOCSH_TEST_INDEX_WAIT_MS"].flatMap { Int($0) }
      ?? IndexedStore.defaultIndexWaitMilliseconds
    // DOCSH_TEST_FAN_OUT_LIMIT is for tests: a tiny limit fans a category of a few out.
    repository = RepositoryAccess(
      storePath: storePath,
      runner: SystemGitRunner(canPrompt: settings.isInteractive),
      fanOutLimit: environment["DOCSH_TEST_FAN_OUT_LIMIT"].flatMap { Int($0) },
      passphrases: SyncPassphrases(environment: environment))
  }

  /// The time now, for dates shown and made (`{{date}}`, `today`). DOCSH_TEST_NOW (seconds
  /// since 1970) is for tests: a fixed moment, so that a test of `today` does not depend on
  /// the day it runs.
  var clock: () -> Timestamp {
    if let text = environment["DOCSH_TEST_NOW"], let seconds = Int64(text),
      let (milliseconds, overflow) = Optional(seconds.multipliedReportingOverflow(by: 1000)),
      !overflow
    {
      return { Timestamp(millisecondsSince1970: milliseconds) }
    }
    return { Timestamp.now() }
  }

  /// A context on the store, committing each save when the repository is set up.
  /// - Throws: ``StoreError`` when the store cannot be read.
  func openStore() throws -> Context {
    let context = try Context(
      store: IndexedStore(
        path: storePath, cacheFolder: cacheFolder, progress: progress, interruption: ctrlC,
        indexWaitMilliseconds: indexWaitMilliseconds),
      observer: CommitOnSaveWhenSetUp(access: repository), interruption: ctrlC)
    if let warning = context.storeWarning { errors.writeLine("docsh: warning: \(warning)") }
    return context
  }

  /// How this run leaves the store: folding its save log when it is the last session.
  var departure: StoreDeparture {
    StoreDeparture(environment: environment, openStore: openStore, errors: errors)
  }

  /// `--checkpoint`: folds the save log into the store file; refuses while other sessions
  /// have the store open.
  func checkpoint() -> ExitStatus {
    do {
      let context = try openStore()
      let before = context.saveLogSize.log
      try context.foldSaveLog()
      output.writeLine(
        before == 0 && context.saveLogSize.log == 0
          ? "Nothing to fold: the store file holds every save."
          : "Folded the save log into \(storePath).")
      return .success
    } catch {
      return reporter.report(error, at: "docsh")
    }
  }

  /// `--apply-log FILE`: applies what a save log kept aside holds, saves, and removes the
  /// file once the store holds it.
  func applyKeptLog(at path: String) -> ExitStatus {
    do {
      let context = try openStore()
      let applied = try context.applyKeptLog(at: path)
      if try context.hasChanges { try context.save() }
      departure.leave(context, folding: false)
      if unlink(path) != 0 {
        errors.writeLine(
          "docsh: warning: \(path): could not be removed: \(String(cString: strerror(errno)))")
      }
      var parts = ["Applied \(path): \(applied.applied) documents brought back"]
      if applied.keptBeside > 0 {
        parts.append("\(applied.keptBeside) beside a newer version, named '(from save log)'")
      }
      if applied.unchanged > 0 { parts.append("\(applied.unchanged) already as the log has them") }
      if applied.deletionsNotApplied > 0 {
        parts.append("\(applied.deletionsNotApplied) deletions not applied (those documents stay)")
      }
      if applied.unreadable > 0 {
        parts.append("\(applied.unreadable) damaged records could not be read")
      }
      output.writeLine(parts.joined(separator: "; ") + ".")
      return .success
    } catch {
      return reporter.report(error, at: "docsh")
    }
  }

  /// `--check`: verifies the store, shows the report, and exits by it.
  func check() -> ExitStatus {
    let report = IndexedStore(path: storePath, cacheFolder: cacheFolder, progress: progress)
      .check()
    ResultView(
      output: output, errors: errors, colors: settings.colors, dates: settings.dates,
      now: Timestamp.now()
    ).show(.checkReport(report))
    return report.isSound ? .success : .commandFailed
  }

  /// The context to run on, and why every command but sync must refuse, if one must. A
  /// store file lost in a docsh repository is never taken for an empty store: the context
  /// is then an empty placeholder, and every command but sync (which restores it) refuses.
  func openContext() -> Result<(Context, refusal: SyncError?), any Error> {
    do {
      let context = try openStore()
      let refusal = DocshMain.fileExists(storePath) ? nil : repository.lostStore(loadError: nil)
      return .success((context, refusal))
    } catch {
      guard let storeError = error as? StoreError,
        let lost = repository.lostStore(loadError: storeError),
        let placeholder = try? Context(
          store: IndexedStore(path: DocshMain.unusedPath(beside: storePath), cacheFolder: nil))
      else {
        return .failure(error)
      }
      return .success((placeholder, lost))
    }
  }

  /// Runs `-c` texts, a script or standard input on `context`.
  func runNonInteractively(
    _ context: Context, refusal: SyncError?, leftBehind: [LeftBehindRecovery]
  ) -> ExitStatus {
    var collaborators = SessionCollaborators.nonInteractive(clock: clock, progress: progress)
    collaborators.repository = repository
    collaborators.reopenStore = openStore
    collaborators.interruption = ctrlC
    let session = Session(
      context: context, output: output, errors: errors, settings: settings,
      collaborators: collaborators)
    session.storeRefusal = refusal
    session.warnOnceAboutTheIndex()
    // A script is all or nothing, and it is its own record: it keeps no journal.
    RecoveryOffer(session: session, journal: nil).mention(leftBehind)
    let status = DocshMain.runNonInteractively(
      invocation, interpreter: Interpreter(session: session))
    departure.leave(session.context, folding: false)
    return status
  }

  /// Runs the REPL on `context`: the line editor, completion, the recovery offer, the
  /// startup file, then the loop until `exit`, end of input or a signal.
  func runInteractively(
    _ context: Context, refusal: SyncError?, leftBehind: [LeftBehindRecovery]
  ) -> ExitStatus {
    let reader = EditLineReader(historyPath: Invocation.historyPath(environment: environment))
    TerminalEvents.installTerminationHandlers()
    let terminal = TerminalInput(reader: reader, endOfInputEcho: errors)
    let pager: Pager? =
      invocation.noPager || !output.isTerminal
      ? nil
      : Pager.fromEnvironment(environment) { Pager.terminalRows(of: 1, environment: environment) }
    let session = Session(
      context: context, output: output, errors: errors, settings: settings,
      collaborators: SessionCollaborators(
        questions: terminal, typedLines: terminal, history: terminal, pager: pager,
        clock: clock, progress: progress, repository: repository,
        reopenStore: openStore, interruption: ctrlC))
    session.storeRefusal = refusal
    if let refusal { reporter.report(refusal, at: "docsh") }
    session.warnOnceAboutTheIndex()
    let journal = DocshMain.makeJournal(
      for: session, storePath: storePath, environment: environment)
    if !leftBehind.isEmpty {
      _ = RecoveryOffer(session: session, journal: journal).offer(leftBehind)
    }
    let completer = Completer(session: session)
    reader.enableCompletion { line, word in completer.complete(lineBeforeCursor: line, word: word) }
    let interpreter = Interpreter(session: session)
    if !invocation.noStartupFile, let path = Invocation.startupFilePath(environment: environment) {
      interpreter.runStartupFile(at: path)
    }
    let ending = InteractiveLoop(
      interpreter: interpreter, terminal: terminal, journal: journal,
      terminationSignal: { TerminalEvents.terminationSignal }
    ).run()
    session.output.flush()
    terminal.saveHistory()
    if case .terminated(let signal) = ending {
      // Ended by a signal: a child folds, this process goes at once.
      departure.leave(session.context, folding: false)
      TerminalEvents.endBySignal(signal)
    }
    departure.leave(session.context, folding: true)
    return .success
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
