import DocsKit

/// `today`: the daily note, made when it is not there yet, opened in the editor.
struct TodayCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "today",
    abstract: "open today's note (-1: yesterday's) in the journal category, making it if needed",
    discussion: """
      The note is the document named by the date in ISO 8601 (2026-12-06), in the user's
      time zone, in the journal category (DOCSH_JOURNAL, else Journal; made when missing).
      A note that does not exist yet is made from the daily template (DOCSH_DAILY_TEMPLATE,
      else Daily, in the templates category) when there is one, its placeholders filled
      for that day, else empty. Then it opens in the editor as 'edit' does; with no editor
      set, today prints the note's path instead. -N is N days back, +N N days ahead.
      """,
    example: "today -1",
    arguments: ArgumentSpec(
      positionals: [PositionalSpec("-N|+N", .optional, completing: .text)], placement: .none,
      whenExtra: "give at most one day offset, such as -1"))

  /// Days from today: 0 today, -1 yesterday.
  let offset: Int

  init(_ arguments: ParsedArguments) throws(ShellError) {
    guard let word = arguments.positionals.first else {
      offset = 0
      return
    }
    // A day offset a person means: -1, +2, 0; at most about 270,000 years either way.
    guard let days = Int(word), (-100_000_000...100_000_000).contains(days) else {
      throw Self.usageError("takes a day offset such as -1 (yesterday), not \"\(word)\"")
    }
    offset = days
  }

  func run(in session: Session) throws -> CommandResult {
    let settings = session.noteSettings
    let context = session.context
    let now = session.collaborators.clock().millisecondsSince1970
    let name = session.settings.dates.isoDay(now, addingDays: offset)
    let journal =
      try context.category(named: settings.journalCategory)
      ?? context.createCategory(named: settings.journalCategory)
    let note: Document
    if let existing = try context.document(named: name, in: journal.id) {
      note = existing
    } else {
      var content = ""
      if let templates = context.category(named: settings.templatesCategory),
        let template = try context.document(named: settings.dailyTemplate, in: templates.id)
      {
        content = try session.filledTemplate(
          template, title: name, category: journal.name.text, date: name)
      }
      note = try context.createDocument(named: name, in: journal.id, content: content)
    }
    guard let editor = ExternalEditor.fromEnvironment(session.settings.environment) else {
      // On standard output, for a script: `docsh -c today` makes the day's note and says it.
      return .location(session.located(note).path)
    }
    return try session.edit(note, with: editor)
  }
}
