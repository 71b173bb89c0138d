import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Arms and disarms the timer that runs the journal's write when the terminal is idle.
protocol IdleTimer {
  /// Fires once the terminal was idle for `idle` milliseconds, or `longest` from now.
  func arm(idle: Int, longest: Int)
  /// Does not fire.
  func disarm()
}

/// The key reader's idle timer (`TerminalEvents`).
struct TerminalIdleTimer: IdleTimer {
  func arm(idle: Int, longest: Int) { TerminalEvents.armIdleTimer(idle: idle, longest: longest) }
  func disarm() { TerminalEvents.disarmIdleTimer() }
}

/// Keeps an interactive session's unsaved changes in its recovery journal
/// (``RecoveryJournal``), a few seconds behind the last change at most.
///
/// After a command that changed something, the journal is written once the terminal has been
/// idle for ``delayMilliseconds`` (or ``longestMultiple`` times that while keys keep coming),
/// or at once at the end of a command when the changes are older than the delay; at once on
/// SIGHUP and SIGTERM. Nothing is written while nothing changed. When nothing is unsaved any
/// more (save, revert, undo back to the saved state) or the session ends normally, the file
/// goes. A journal that cannot be written is one warning; the session works on without it.
final class UnsavedWorkJournal {
  /// The delay when `DOCSH_JOURNAL_DELAY_MS` does not set one.
  static let defaultDelayMilliseconds = 2000
  /// While keys keep coming, the write waits at most this many delays.
  static let longestMultiple = 3

  let journal: RecoveryJournal
  /// How long after a change the journal is written (0: after every changing command).
  let delayMilliseconds: Int
  private let timer: any IdleTimer
  private let clock: () -> Timestamp
  private let tell: (String) -> Void
  /// The context and its ``Context/editCount`` when the journal last matched it (`sync` may
  /// put another context in the session's place).
  private var journaled: (context: ObjectIdentifier, editCount: Int)
  /// When (monotonic milliseconds) the changes not yet written were first seen.
  private var unwrittenSince: Int64?
  private var hasWarned = false

  /// A journal for `context`, as it is now (saved or not: ``writeNow(_:)`` writes it).
  init(
    journal: RecoveryJournal, delayMilliseconds: Int, context: Context, timer: any IdleTimer,
    clock: @escaping () -> Timestamp = { Timestamp.now() }, tell: @escaping (String) -> Void
  ) {
    self.journal = journal
    self.delayMilliseconds = delayMilliseconds
    self.timer = timer
    self.clock = clock
    self.tell = tell
    journaled = (ObjectIdentifier(context), context.mayHaveChanges ? -1 : context.editCount)
  }

  /// The journal's delay from `DOCSH_JOURNAL_DELAY_MS` (milliseconds, for tests); `nil`
  /// when it says `off` (for measuring what the journal costs).
  static func delay(environment: [String: String]) -> Int? {
    guard let text = environment["DOCSH_JOURNAL_DELAY_MS"] else { return defaultDelayMilliseconds }
    if text == "off" { return nil }
    guard let value = Int(text), value >= 0 else { return defaultDelayMilliseconds }
    return value
  }

  /// A command line is about to run: the timer must not write in the middle of it (a question
  /// it asks reads keys too).
  func commandStarting() {
    timer.disarm()
  }

  /// A command line ran: writes, removes or schedules the journal as the changes now ask.
  /// Costs nothing that grows with the changes unless it writes: whether they are real
  /// changes (not taken back) is asked only then.
  func commandFinished(_ context: Context) {
    guard !isJournaled(context) else { return }
    guard context.mayHaveChanges else {
      remove()
      markJournaled(context)
      unwrittenSince = nil
      timer.disarm()
      return
    }
    let now = UnsavedWorkJournal.monotonicMilliseconds()
    let since = unwrittenSince ?? now
    unwrittenSince = since
    if delayMilliseconds == 0 || now - since >= Int64(delayMilliseconds) {
      write(context)
    } else {
      timer.arm(
        idle: delayMilliseconds, longest: delayMilliseconds * UnsavedWorkJournal.longestMultiple)
    }
  }

  /// The terminal was idle: writes what is not written yet.
  func idle(_ context: Context) {
    guard !isJournaled(context) else { return }
    write(context)
  }

  /// Writes the unsaved changes now, when there are any not written yet (SIGHUP, SIGTERM, or
  /// changes just recovered from another session's journal).
  /// - Returns: whether the journal holds them (or nothing is unsaved).
  @discardableResult
  func writeNow(_ context: Context) -> Bool {
    guard !isJournaled(context) else { return true }
    return write(context)
  }

  /// The session ends normally (saved, or the user chose to leave the changes): the journal
  /// goes.
  func sessionEnded() {
    timer.disarm()
    remove()
  }

  /// Writes the journal, or removes it when the changes were all taken back.
  @discardableResult
  private func write(_ context: Context) -> Bool {
    do {
      let pending = try context.pendingChanges()
      if pending.isEmpty {
        remove()
      } else {
        try journal.write(pending, at: clock())
      }
      markJournaled(context)
      unwrittenSince = nil
      timer.disarm()
      return true
    } catch {
      warnOnce(
        "cannot keep the unsaved changes in a recovery file (\(error)); they are only in memory until you save"
      )
      return false
    }
  }

  /// Whether the journal is as `context` is now (written, or removed as nothing is unsaved).
  private func isJournaled(_ context: Context) -> Bool {
    journaled == (ObjectIdentifier(context), context.editCount)
  }

  private func markJournaled(_ context: Context) {
    journaled = (ObjectIdentifier(context), context.editCount)
  }

  private func remove() {
    do {
      try journal.remove()
    } catch {
      warnOnce("cannot remove the recovery file (\(error))")
    }
  }

  private func warnOnce(_ message: String) {
    guard !hasWarned else { return }
    hasWarned = true
    tell("docsh: warning: \(message)")
  }

  static func monotonicMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
  }
}
