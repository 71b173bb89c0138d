import DocsKit

/// At the start of docsh: the recovery files of sessions that ended with unsaved changes.
///
/// Interactively each one is offered (`Recover 3 unsaved changes from a session that ended
/// 2026-12-01 18:49? [Y/n/show]`): taken back, its changes become this session's unsaved
/// changes, merged with the store as it is now (nothing is saved); declined, the file is kept
/// aside as `STORE.recovered-STAMP`. A file that cannot be used is reported in one line and
/// never applied; one from a newer docsh is left as it is. Non-interactive runs only say on
/// standard error what is there, and leave it for the next interactive start.
struct RecoveryOffer {
  let session: Session
  /// This session's journal, which keeps what is taken back; `nil` when there is none.
  let journal: UnsavedWorkJournal?

  /// Offers every file in `files`, one after the other.
  /// - Returns: whether any changes were taken back.
  func offer(_ files: [LeftBehindRecovery]) -> Bool {
    var recovered = false
    for file in files {
      defer { file.release() }
      switch file.contents {
      case .failure(let problem):
        report(problem, of: file)
      case .success(let record) where record.pending.isEmpty:
        try? file.discard()  // nothing was unsaved after all
      case .success(let record):
        if offer(record, from: file) { recovered = true }
      }
    }
    return recovered
  }

  /// Says what is there, in one line per file, and changes nothing.
  func mention(_ files: [LeftBehindRecovery]) {
    for file in files {
      defer { file.release() }
      switch file.contents {
      case .failure(let problem):
        session.tell("docsh: \(file.path): \(problem); nothing was recovered from it")
      case .success(let record):
        session.tell(
          "docsh: \(file.path) holds \(changes(record.pending.count)) of a session that ended \(date(record.written)); start docsh interactively to recover them"
        )
      }
    }
  }

  private func report(_ problem: RecoveryFileProblem, of file: LeftBehindRecovery) {
    if case .newerVersion = problem {
      session.tell("docsh: \(file.path): \(problem); left as it is")
      return
    }
    do {
      let aside = try file.setAside(stamp: stamp(session.collaborators.clock()))
      session.tell("docsh: \(file.path): \(problem); nothing was recovered, it is kept as \(aside)")
    } catch {
      session.tell("docsh: \(file.path): \(problem); nothing was recovered from it")
    }
  }

  private func offer(_ record: RecoveryRecord, from file: LeftBehindRecovery) -> Bool {
    let question =
      "Recover \(changes(record.pending.count)) from a session that ended \(date(record.written))? [Y/n/show] "
    while true {
      guard let answer = session.collaborators.questions.ask(question) else {
        session.errors.writeLine("")
        session.tell("docsh: left \(file.path) for the next start")
        return false
      }
      switch answer.trimmingBlanks().lowercased() {
      case "", "y", "yes":
        return recover(record, from: file)
      case "n", "no":
        do {
          let aside = try file.setAside(stamp: stamp(record.written))
          session.tell("docsh: not recovered; the changes are kept in \(aside)")
        } catch {
          session.tell("docsh: not recovered; \(error); left \(file.path) for the next start")
        }
        return false
      case "s", "show":
        let report = StatusReport(record.pending.summary) { id in
          record.pending.categoryName(of: id) ?? session.context.category(withID: id)?.name.text
        }
        // The table `status` shows, under a header of its own: these are not this session's
        // changes (yet), so "save to keep, revert to discard" would not hold.
        let table = StatusView(report: report).lines(colors: session.settings.colors).dropFirst()
        session.output.writeLine("The unsaved changes of that session:")
        for line in table { session.output.writeLine(line) }
        session.output.flush()
      default:
        session.errors.writeLine(
          "Answer y (take them back as unsaved changes), n (keep them aside) or show (list them).")
      }
    }
  }

  private func recover(_ record: RecoveryRecord, from file: LeftBehindRecovery) -> Bool {
    let context = session.context
    do {
      try context.recover(record.pending)
    } catch {
      session.tell("docsh: \(file.path): cannot recover it (\(error)); left for the next start")
      return false
    }
    // Its changes are this session's now: once this session's journal keeps them, the
    // file goes (if it cannot, the file stays for the next start).
    if journal?.writeNow(context) ?? false {
      do {
        try file.discard()
      } catch {
        session.tell("docsh: warning: \(error)")
      }
    }
    let count: Int
    do {
      count = try context.changes().count
    } catch {
      session.tell("docsh: warning: \(error)")
      count = record.pending.summary.count
    }
    var line = "Recovered: \(changes(count)) (save to keep them"
    if record.pending.generation != context.generation {
      line += "; merged with what was saved since"
    }
    session.tell(line + ").")
    for conflict in context.conflicts {
      session.tell("docsh: conflict: \(conflict)")
    }
    if !context.conflicts.isEmpty {
      session.tell("docsh: 'save --mine' keeps the recovered values where they conflict")
    }
    return true
  }

  private func changes(_ count: Int) -> String {
    count == 1 ? "1 unsaved change" : "\(count) unsaved changes"
  }

  private func date(_ moment: Timestamp) -> String {
    session.settings.dates.minutes(moment.millisecondsSince1970)
  }

  /// `2026-12-01T1849`, local time: the dated name of a file kept aside.
  private func stamp(_ moment: Timestamp) -> String {
    String(date(moment).map { $0 == " " ? "T" : $0 }.filter { $0 != ":" })
  }
}
