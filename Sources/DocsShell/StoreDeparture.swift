import DocsKit

/// What a run of docsh does as it leaves the store: when it was the last session and the
/// save log holds saves, the log is folded into the file (a checkpoint) before the run
/// returns, so that whoever reads the file next (a script's `jq`, a backup) finds every
/// save in it. Nothing outlives the command.
///
/// The REPL always folds as it leaves (a person leaving waits a moment, with a progress
/// line on a large store). A `-c`, a script or piped input folds when the store file is at
/// most ``SaveLogPolicy/foldAlwaysUpTo`` bytes (a fold there costs a small fraction of a
/// second) or the log has outgrown its share of the file; above that the log stays beside a
/// large file at rest, read by every docsh command and folded by the next REPL that leaves,
/// by a save that finds it large, or by `docsh --checkpoint`.
/// `DOCSH_FOLD=foreground` folds in every case; `DOCSH_FOLD=never` leaves the log (tests).
struct StoreDeparture {
  let environment: [String: String]
  /// Opens a context of its own on the store: the fold writes what is saved, whatever the
  /// leaving session held unsaved.
  let openStore: () throws -> Context
  let errors: TextOutput

  /// Leaves the store of `context`; folds its log when this was the last session and the
  /// log is due (always when `inForeground`: a REPL).
  func leave(_ context: Context, folding inForeground: Bool) {
    let path = context.storeFilePath
    guard environment["DOCSH_FOLD"] != "never" else {
      _ = context.leaveStore()
      return
    }
    let always = inForeground || environment["DOCSH_FOLD"] == "foreground"
    let isDue = always || SaveLogPolicy.foldsOnLeaving(storePath: path)
    if isDue, context.surelyHasNoChanges, SaveLogPolicy.logHoldsSaves(storePath: path) {
      // Nothing unsaved: the leaving context is the store as saved, and folds it itself
      // (refused, and left to the last one, while another session has the store open).
      withClaim(path) { fold(context) }
      _ = context.leaveStore()
      return
    }
    guard context.leaveStore(), isDue else { return }
    // The leaving context holds unsaved changes: a context of its own folds what is saved.
    withClaim(path) {
      do {
        fold(try openStore())
      } catch {
        warn(error)
      }
    }
  }

  /// Runs `body` holding the claim to fold the store at `path`, waiting for it when another
  /// process holds it, so that when this run returns the fold that takes its saves has
  /// ended too.
  private func withClaim(_ path: String, _ body: () -> Void) {
    guard let claim = FoldClaim.claim(storePath: path, waiting: true) else { return }
    withExtendedLifetime(claim) { body() }
  }

  /// Folds the log of `context`'s store now, saying why on standard error when it cannot:
  /// it gives up at once, leaving the file and the log as they were, for the next run that
  /// leaves to try again.
  func fold(_ context: Context) {
    do {
      try context.foldSaveLog()
    } catch ContextError.otherSessionsOpen {
      // Another session came in meanwhile: it folds as it leaves.
    } catch {
      warn(error)
    }
  }

  private func warn(_ error: any Error) {
    errors.writeLine(
      "docsh: warning: the save log was not folded into the store (\(error)); every save is in the log beside it, and the next run that leaves tries again"
    )
  }
}
