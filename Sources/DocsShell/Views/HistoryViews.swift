import DocsKit

/// What `sync`, `log` and `diff` show.
enum HistoryViews {
  // MARK: - sync

  /// `Synced: 3 changes in, 2 out.`, then each conflict and each note on a line of its own.
  static func syncLines(_ report: SyncReport) -> [String] {
    func changes(_ count: Int) -> String { count == 1 ? "1 change" : "\(count) changes" }
    var lines = ["Synced: \(changes(report.incoming)) in, \(report.outgoing) out."]
    lines += report.conflicts.map { "conflict: \($0)" }
    lines += report.notes.map { "note: \($0)" }
    return lines
  }

  // MARK: - log

  /// `abc1234  2026-11-29 14:53  1.2 kB  Work/Plan`, newest first; a deletion says so.
  static func versionTable(_ versions: [DocumentVersion], dates: DateFormatting, colors: Colors)
    -> [String]
  {
    let renderer = TableRenderer(alignments: [.left, .left, .right, .left], colors: colors)
    return renderer.render(
      rows: versions.map { version in
        [
          TableRenderer.Cell(version.commit.short, style: .warning),
          TableRenderer.Cell(dates.minutes(version.date.millisecondsSince1970), style: .dim),
          TableRenderer.Cell(
            version.isDeletion ? "-" : SizeFormatting.humanReadable(version.size), style: .size),
          TableRenderer.Cell(
            version.category + "/" + version.name + (version.isDeletion ? " (deleted)" : "")),
        ]
      })
  }

  /// `[{"commit","date","category","name","size"}]`; a deletion has `"size": null`.
  static func versionsJSON(_ versions: [DocumentVersion]) -> JSONValue {
    .array(
      versions.map { version in
        .object([
          ("commit", .string(version.commit.hex)), ("date", .date(version.date)),
          ("category", .string(version.category)), ("name", .string(version.name)),
          ("size", version.isDeletion ? .null : .integer(version.size)),
        ])
      })
  }

  /// `abc1234  2026-11-29 14:53  2 changed: Work/Plan, Home/List`, newest first.
  static func commitTable(_ commits: [StoreCommit], dates: DateFormatting, colors: Colors)
    -> [String]
  {
    TableRenderer(colors: colors).render(
      rows: commits.map { commit in
        [
          TableRenderer.Cell(commit.commit.short, style: .warning),
          TableRenderer.Cell(dates.minutes(commit.date.millisecondsSince1970), style: .dim),
          TableRenderer.Cell(commit.message),
        ]
      })
  }

  /// `[{"commit","date","message"}]`.
  static func commitsJSON(_ commits: [StoreCommit]) -> JSONValue {
    .array(
      commits.map { commit in
        .object([
          ("commit", .string(commit.commit.hex)), ("date", .date(commit.date)),
          ("message", .string(commit.message)),
        ])
      })
  }

  // MARK: - diff

  /// A unified diff, as `diff -u` prints it: `--- PATH COMMIT`, `+++ PATH now`, then the
  /// hunks; removed lines red, added green, hunk headers cyan. Nothing when nothing changed.
  static func diffLines(_ report: DiffReport, colors: Colors) -> [String] {
    guard !report.hunks.isEmpty else { return [] }
    let path = escapedForTerminal(report.path, allowingNewlinesAndTabs: false)
    return [
      colors.styled("--- \(path) \(report.commit.short)", .bold),
      colors.styled("+++ \(path) now", .bold),
    ] + hunkLines(report.hunks, colors: colors)
  }

  /// `save --diff`: for each document in conflict, the other session's version (`---`)
  /// against this session's (`+++`), as `diff` shows a change; a side that deleted it says
  /// so.
  static func conflictLines(_ versions: [ConflictVersions], colors: Colors) -> [String] {
    guard !versions.isEmpty else {
      return ["No conflicts to show: a save that finds some lists them, and keeps them for this."]
    }
    var lines: [String] = []
    for version in versions {
      let path = escapedForTerminal(version.path, allowingNewlinesAndTabs: false)
      lines.append(
        colors.styled("--- \(path) theirs\(version.theirs == nil ? " (deleted)" : "")", .bold))
      lines.append(
        colors.styled("+++ \(path) yours\(version.mine == nil ? " (deleted)" : "")", .bold))
      let hunks = TextDiff.hunks(from: version.theirs ?? "", to: version.mine ?? "")
      if hunks.isEmpty { lines.append("(the same text: another property differs)") }
      lines += hunkLines(hunks, colors: colors)
    }
    return lines
  }

  private static func hunkLines(_ hunks: [DiffHunk], colors: Colors) -> [String] {
    var lines: [String] = []
    for hunk in hunks {
      lines.append(colors.styled(hunk.header, .hunk))
      for line in hunk.lines {
        let text = escapedForTerminal(line.text, allowingNewlinesAndTabs: false)
        switch line.kind {
        case .context: lines.append(" " + text)
        case .removed: lines.append(colors.styled("-" + text, .error))
        case .added: lines.append(colors.styled("+" + text, .size))
        }
        if !line.hasNewline { lines.append("\\ No newline at end of file") }
      }
    }
    return lines
  }
}
