import DocsKit

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

/// What a session needs from outside and that differs between the REPL, a script and a
/// test, passed in whole when the session is made.
struct SessionCollaborators {
  /// Asks the yes/no questions of `rmdir`, `revert` and the like.
  var questions: any QuestionAsking
  /// Reads text typed line by line.
  var typedLines: any TypedLineReading
  /// The lines typed so far.
  var history: any HistoryKeeping
  /// Pages long output; `nil` writes everything straight out.
  var pager: (any Paging)?
  /// The time now, for showing recent dates.
  var clock: () -> Timestamp
  /// Shows long work as it goes (a terminal's standard error); `nil` shows nothing.
  var progress: (any ProgressShowing)? = nil
  /// The store's git repository, for `sync` and history; `nil` where there is none to have
  /// (tests of other things).
  var repository: RepositoryAccess? = nil
  /// Opens the store again as docsh opens it at start, for a `sync` that had to restore a
  /// lost store file first; `nil` where the session cannot.
  var reopenStore: (() throws -> Context)? = nil
  /// Says when Ctrl-C asked the running command to stop (the same one the context and the
  /// store ask); `nil`: nothing stops.
  var interruption: (any Interruption)? = nil

  /// A run where nobody is at the terminal: no answers, no typed lines, no history, no pager.
  static func nonInteractive(
    clock: @escaping () -> Timestamp = { Timestamp.now() },
    progress: (any ProgressShowing)? = nil
  ) -> SessionCollaborators {
    let nobody = NobodyAtTheTerminal()
    return SessionCollaborators(
      questions: nobody, typedLines: nobody, history: nobody, pager: nil, clock: clock,
      progress: progress)
  }

  /// Long work of `total` `unit`s called `title`: `body` reports how far it is through the
  /// `advance` it is given. Nothing shows without a progress reporter.
  func reportingProgress<Result>(
    _ title: String, total: Int, unit: ProgressUnit,
    _ body: (_ advance: (Int) -> Void) throws -> Result
  ) rethrows -> Result {
    guard let progress else { return try body { _ in } }
    progress.begin(title, total: total, unit: unit)
    defer { progress.end() }
    return try body { progress.advance(to: $0) }
  }
}

/// The state a command acts on: the context, where the user is, where output goes, and who
/// answers questions.
final class Session {
  /// The object graph; replaced only when `sync` restored a store that could not be loaded.
  private(set) var context: Context
  /// Standard output.
  let output: TextOutput
  /// Standard error.
  let errors: TextOutput
  /// How this run behaves.
  var settings: SessionSettings
  /// What differs between the REPL, a script and a test.
  let collaborators: SessionCollaborators

  /// Why the store cannot be used as it is (its file lost in a docsh repository): every
  /// command but `sync`, which restores it, fails with this.
  var storeRefusal: SyncError?

  private var currentCategoryID: ObjectID?
  private var hasWarnedAboutTheIndex = false
  private var previousPlace: Place?

  /// A session on `context` at the top level.
  init(
    context: Context, output: TextOutput, errors: TextOutput, settings: SessionSettings,
    collaborators: SessionCollaborators
  ) {
    self.context = context
    self.output = output
    self.errors = errors
    self.settings = settings
    self.collaborators = collaborators
  }

  /// Puts `context` in place of the session's, at the top, with nothing to refuse: after a
  /// `sync` restored the store.
  func replaceContext(with context: Context) {
    self.context = context
    storeRefusal = nil
    currentCategoryID = nil
    previousPlace = nil
  }

  /// The category the user is in; `nil` at the top. A category that vanished (undo, revert)
  /// puts the user back at the top.
  var currentCategory: Category? {
    guard let id = currentCategoryID else { return nil }
    return context.category(withID: id)
  }

  /// Goes into `category` (`nil`: the top), remembering where the user was for `cd -`.
  func changeCategory(to category: Category?) {
    previousPlace = currentCategory.map { .category($0.id) } ?? .top
    currentCategoryID = category?.id
  }

  /// A place the user can be: the top, or a category.
  enum Place: Equatable {
    case top
    case category(ObjectID)
  }

  /// Where `cd -` goes: the top, or a category.
  enum Destination {
    case top
    case category(Category)
  }

  /// Where `cd -` goes back to: `nil` when the user never moved; the top for a category
  /// that is gone since.
  var previousLocation: Destination? {
    switch previousPlace {
    case nil: return nil
    case .top?: return .top
    case .category(let id)?: return context.category(withID: id).map { .category($0) } ?? .top
    }
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
    guard let answer = collaborators.questions.ask(question + " [y/N] ") else { return false }
    let word = answer.trimmingBlanks().lowercased()
    return word == "y" || word == "yes"
  }

  /// Saves the context's changes; when what follows a save failed (its commit in a synced
  /// store), says so on standard error — the save itself stands.
  /// - Throws: what ``Context/save(resolving:)`` throws.
  func save(resolving resolution: ConflictResolution? = nil) throws(ContextError) {
    try context.save(resolving: resolution)
    if let warning = context.saveWarning { tell("docsh: warning: \(warning)") }
  }

  /// Whether Ctrl-C asked the command running now to stop, asked as `work`.
  func isInterrupted(during work: InterruptibleWork = .command) -> Bool {
    collaborators.interruption?.isRequested(during: work) ?? false
  }

  /// Stops the command running now when Ctrl-C asked it to.
  /// - Throws: ``ShellError/interrupted`` then.
  func stopIfInterrupted(_ work: InterruptibleWork = .command) throws(ShellError) {
    if isInterrupted(during: work) { throw .interrupted }
  }

  /// Says once per run, on standard error, why docsh works without its index, when it does.
  func warnOnceAboutTheIndex() {
    guard !hasWarnedAboutTheIndex, let warning = context.indexWarning else { return }
    hasWarnedAboutTheIndex = true
    tell("docsh: warning: \(warning)")
  }

  /// Tells the person at the terminal something while a command runs (before a question or
  /// typed text), as one line on standard error.
  func tell(_ line: String) {
    errors.writeLine(
      errors.isTerminal ? escapedForTerminal(line, allowingNewlinesAndTabs: false) : line)
  }
}

extension InterruptibleWork {
  /// A command as a whole: asked before each command of a line and after an undoable one.
  static let command = InterruptibleWork("command")
  /// Writing to standard output.
  static let output = InterruptibleWork("output")
  /// `import` reading the files it was given (or a folder's), before it changes anything.
  static let readingFiles = InterruptibleWork("import-read")
  /// `import` making documents of the files read, after each one.
  static let importing = InterruptibleWork("import")
  /// `export` writing documents as files.
  static let exporting = InterruptibleWork("export")
  /// A file run by `source` (or the startup file), asked after each of its lines.
  static let sourcedFile = InterruptibleWork("source")
}

extension Session {
  /// `document` with the name of its category.
  func located(_ document: Document) -> LocatedDocument {
    LocatedDocument(
      categoryName: context.category(withID: document.categoryID)?.name.text ?? "?",
      document: document)
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
