import DocsKit

/// `sync`: save, commit, fetch, merge by meaning, push — the store's git repository as the
/// way between machines.
struct SyncCommand: ShellCommand {
  /// `--encrypt`: the remote holds only age files (set up once, with a new passphrase).
  static let encrypt = OptionSpec.flag(
    "--encrypt", help: "set up REMOTE as an end-to-end encrypted remote (asks a new passphrase)")
  /// `--change-passphrase`: the encrypted remote's identity under a new passphrase.
  static let changePassphrase = OptionSpec.flag(
    "--change-passphrase", help: "sync, then put the encrypted remote under a new passphrase")

  static let configuration = CommandConfiguration(
    name: "sync",
    abstract: "sync the store with a git remote: save, commit, fetch, merge, push",
    discussion: """
      The first time, sync REMOTE makes the store's folder a git repository of its own and
      syncs with REMOTE (any git remote: a path, ssh, https) as origin; plain sync
      afterwards. The repository holds a folder per category and a text file per document,
      so a clone of REMOTE is a folder of notes to read and edit with any tool. Unsaved
      changes are saved first (the REPL asks). Both sides' changes are merged per document
      and property, contents line by line; when both changed the same lines, yours stays
      and theirs becomes a sibling "NAME (conflict DATE)". git never writes the store file:
      docsh merges and saves it itself. Every save in a synced store also commits it, so
      'log' shows every saved version. sync --encrypt REMOTE sets up an empty REMOTE that
      holds only age files under names that say nothing (a new passphrase is asked twice);
      another machine's sync REMOTE asks that passphrase once. sync --change-passphrase
      rewrites only the remote's identity file. DOCSH_PASSPHRASE_FILE names a file holding
      the passphrase, for scripts.
      """,
    example: "sync ~/notes.git",
    arguments: ArgumentSpec(
      options: [encrypt, changePassphrase],
      positionals: [PositionalSpec("REMOTE", .optional, completing: .file)],
      whenExtra: "takes one remote"),
    isUndoable: false)

  let remote: String?
  let encrypts: Bool
  let changesPassphrase: Bool

  init(_ arguments: ParsedArguments) {
    remote = arguments.positionals.first
    encrypts = arguments.isSet(Self.encrypt)
    changesPassphrase = arguments.isSet(Self.changePassphrase)
  }

  func run(in session: Session) throws -> CommandResult {
    guard let access = session.collaborators.repository else {
      throw SyncError.notARepository(folder: ".")
    }
    if encrypts && remote == nil {
      throw Self.configuration.usageError("sync --encrypt needs the REMOTE to set up")
    }
    let repository: StoreRepository
    if let remote {
      try saveFirst(in: session)
      repository =
        encrypts
        ? try access.setUpEncrypted(remote: session.filePath(remote))
        : try access.setUp(remote: session.filePath(remote))
    } else {
      // Nothing to sync with: nothing is saved either, so a script stays all or nothing.
      guard let found = try access.setUpRepository() else {
        throw SyncError.notSetUp(folder: access.storeFolder)
      }
      try saveFirst(in: session)
      repository = found
    }
    let lost = session.storeRefusal != nil
    let report = try session.collaborators.reportingProgress(
      "syncing", total: SyncStep.allCases.count, unit: .items("steps")
    ) { advance in
      try withoutActuallyEscaping(advance) { advance in
        let observer = StepsObserver(advance: advance)
        // A lost store has no graph to save or reload: the sync writes it, the store opens.
        if lost {
          return try repository.syncer.sync(
            SyncOptions(), store: access.storeForSync(), observer: observer)
        }
        return try session.context.sync(through: repository, observer: observer)
      }
    }
    for warning in report.warnings { session.tell("docsh: warning: \(warning)") }
    if changesPassphrase {
      try repository.changePassphrase()
      session.tell("The encrypted remote's identity is under the new passphrase.")
    }
    if lost, let reopen = session.collaborators.reopenStore {
      session.replaceContext(with: try reopen())
    }
    return .syncReport(report)
  }

  /// Saves what is pending: in the REPL after a yes, as leaving does; in a script always,
  /// and that save stands whatever the network part does then.
  private func saveFirst(in session: Session) throws {
    let count = try session.context.changes().count
    guard count > 0 else { return }
    if session.settings.isInteractive && !session.settings.assumeYes {
      let what = count == 1 ? "1 unsaved change" : "\(count) unsaved changes"
      let answer = session.collaborators.questions.ask("Save \(what) before syncing? [Y/n] ")
      switch answer?.trimmingBlanks().lowercased() {
      case "", "y", "yes": break
      default: throw ShellError.declined
      }
    }
    // No warning when its commit fails: the sync commits the store next, or says why not.
    try session.context.save()
  }

  /// Turns the sync's steps into progress.
  private final class StepsObserver: SyncObserving {
    let advance: (Int) -> Void
    init(advance: @escaping (Int) -> Void) { self.advance = advance }
    func syncReached(_ step: SyncStep) { advance(step.rawValue) }
  }
}
