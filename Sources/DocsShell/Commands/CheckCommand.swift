import DocsKit

/// `check`: verify the store file on disk.
struct CheckCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "check",
    abstract: "verify the store file: format, unique ids and names, sizes against contents",
    discussion: """
      Reads the saved store as it is on disk (unsaved changes are not part of it) and
      reports every problem found; fails when there is any. docsh --check does the same
      from the command line. Links to documents that do not exist ([[Missing]]) are listed
      after the report, as CATEGORY/NAME:LINE: [[TARGET]], then bare names that more than
      one other category holds, with those documents; they are no problem of the store.
      """,
    example: "check", isUndoable: false, pagesOutput: true)

  init(_ arguments: ParsedArguments) {}

  func run(in session: Session) throws -> CommandResult {
    let report = session.context.check()
    // Stopped by Ctrl-C: what it found so far is not a verdict on the store.
    if report.wasInterrupted { throw ShellError.interrupted }
    let missing = try session.context.missingLinks().map { missing in
      LocatedBacklink(
        source: session.located(missing.source), backlink: missing,
        candidates: missing.candidates.map(session.located))
    }
    return .checkReport(report, missingLinks: missing)
  }
}
