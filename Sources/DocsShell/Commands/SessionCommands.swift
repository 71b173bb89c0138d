import DocsKit

/// `status`: the unsaved changes, like `git status`.
struct StatusCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "status", usage: "status [--json]",
    abstract: "show the unsaved changes: new, changed (which properties), deleted",
    example: "status", isUndoable: false)

  let json: Bool

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    let parsed = try ParsedArguments.parse(arguments, flags: ["json"], for: Self.configuration)
    guard parsed.positionals.isEmpty else { throw Self.usageError("takes no names") }
    json = parsed.flags.contains("json")
  }

  func run(in session: Session) throws(ShellError) {
    let view = StatusView(context: session.context)
    if json {
      session.output.writeLine(view.json().rendered)
    } else {
      for line in view.lines(colors: session.settings.colors) {
        session.output.writeLine(session.displayed(line))
      }
    }
  }
}

/// `save`: commit the changes to the store.
struct SaveCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "save", usage: "save [--mine]", abstract: "commit the changes to the store",
    discussion: """
      When another session saved since this one loaded, save merges: changes to different
      objects or properties combine; real conflicts (both changed the same property, one
      deleted what the other changed, both used one name) are listed and nothing is written.
      Then 'save --mine' keeps your values for them, or 'revert' takes the other session's.
      """,
    example: "save", isUndoable: false)

  let keepingMine: Bool

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    let parsed = try ParsedArguments.parse(arguments, flags: ["mine"], for: Self.configuration)
    guard parsed.positionals.isEmpty else { throw Self.usageError("takes no names") }
    keepingMine = parsed.flags.contains("mine")
  }

  func run(in session: Session) throws(ShellError) {
    // Counted only for the message a person reads.
    let count = session.settings.isInteractive ? session.context.changes().count : 0
    try ShellError.catching { () throws(ContextError) in
      try session.context.save(keepingMine: keepingMine)
    }
    if session.settings.isInteractive {
      let what = count == 0 ? "Nothing to save" : "Saved \(count) change\(count == 1 ? "" : "s")"
      session.errors.writeLine("\(what) (generation \(session.context.generation)).")
    }
  }
}

/// `revert`: discard every unsaved change and load the store again.
struct RevertCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "revert", usage: "revert [-f]",
    abstract: "discard every unsaved change and reload the store (asks first)",
    example: "revert", isUndoable: false)

  let force: Bool

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    let parsed = try ParsedArguments.parse(
      arguments, flags: ["f", "force"], for: Self.configuration)
    guard parsed.positionals.isEmpty else { throw Self.usageError("takes no names") }
    force = !parsed.flags.isEmpty
  }

  func run(in session: Session) throws(ShellError) {
    let count = session.context.changes().count
    if count > 0 && !force {
      let what = count == 1 ? "1 unsaved change" : "\(count) unsaved changes"
      guard try session.confirm("Discard \(what)?") else { throw .declined }
    }
    try ShellError.catching { () throws(ContextError) in try session.context.reload() }
  }
}

/// `undo`: take back the last command's changes.
struct UndoCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "undo", usage: "undo", abstract: "take back the last command's changes",
    example: "undo", isUndoable: false)

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseArguments(arguments, hereDocument)
  }

  func run(in session: Session) throws(ShellError) {
    let action = try ShellError.catching { () throws(ContextError) in try session.context.undo() }
    session.errors.writeLine("Undid \(action).")
  }
}

/// `redo`: do the last undone command again.
struct RedoCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "redo", usage: "redo", abstract: "redo what undo took back",
    example: "redo", isUndoable: false)

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseArguments(arguments, hereDocument)
  }

  func run(in session: Session) throws(ShellError) {
    let action = try ShellError.catching { () throws(ContextError) in try session.context.redo() }
    session.errors.writeLine("Redid \(action).")
  }
}

/// `history`: the lines typed, numbered.
struct HistoryCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "history", usage: "history", abstract: "list the command history",
    example: "history", isUndoable: false, pagesOutput: true)

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseArguments(arguments, hereDocument)
  }

  func run(in session: Session) throws(ShellError) {
    let entries = session.historyEntries()
    let width = String(entries.count).count
    for (index, entry) in entries.enumerated() {
      let number = String(index + 1)
      let padding = String(repeating: " ", count: width - number.count)
      session.output.writeLine(session.displayed("\(padding)\(number)  \(entry)"))
    }
  }
}

/// `source`: run the commands of a file in this session.
struct SourceCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "source", usage: "source FILE",
    abstract: "run the commands of a .docsh file in this session",
    example: "source examples/tour.docsh", arguments: [.file], isUndoable: false)

  let path: String

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    guard arguments.count == 1 else { throw Self.usageError("name one file") }
    path = arguments[0]
  }

  func run(in session: Session) throws(ShellError) {
    try session.runFile(path)
  }
}

/// `help`: the commands, or one command in full.
struct HelpCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "help", usage: "help [COMMAND]",
    abstract: "list the commands, or show one command's usage and an example",
    example: "help mv", arguments: [.command], isUndoable: false, pagesOutput: true)

  let topic: String?

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    guard arguments.count <= 1 else { throw Self.usageError("takes one command name") }
    topic = arguments.first
  }

  func run(in session: Session) throws(ShellError) {
    guard let topic else {
      let rows = CommandRegistry.commands.map { command -> [TableRenderer.Cell] in
        let configuration = command.configuration
        let names = ([configuration.name] + configuration.aliases).joined(separator: ", ")
        return [
          TableRenderer.Cell(names, style: .bold), TableRenderer.Cell(configuration.abstract),
        ]
      }
      for line in TableRenderer(colors: session.settings.colors).render(rows: rows) {
        session.output.writeLine("  " + line)
      }
      session.output.writeLine("Type 'help COMMAND' for its usage and an example.")
      return
    }
    guard let command = CommandRegistry.command(named: topic) else {
      throw .unknownCommand(topic)
    }
    let configuration = command.configuration
    session.output.writeLine("usage: \(configuration.usage)")
    session.output.writeLine("  \(configuration.abstract)")
    if !configuration.discussion.isEmpty {
      for line in configuration.discussion.split(separator: "\n") {
        session.output.writeLine("  \(line)")
      }
    }
    if !configuration.aliases.isEmpty {
      session.output.writeLine("also: \(configuration.aliases.joined(separator: ", "))")
    }
    session.output.writeLine("example: \(configuration.example)")
  }
}

/// `exit` / `quit`: leave docsh.
struct ExitCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "exit", aliases: ["quit"], usage: "exit",
    abstract: "leave docsh (asks to save unsaved changes)",
    example: "exit", isUndoable: false)

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseArguments(arguments, hereDocument)
  }

  func run(in session: Session) throws(ShellError) {
    session.wantsToExit = true
  }
}

/// `check`: verify the store file on disk.
struct CheckCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "check", usage: "check",
    abstract: "verify the store file: format, unique ids and names, sizes against contents",
    discussion: """
      Reads the saved store as it is on disk (unsaved changes are not part of it) and
      reports every problem found; fails when there is any. docsh --check does the same
      from the command line.
      """,
    example: "check", isUndoable: false)

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseArguments(arguments, hereDocument)
  }

  func run(in session: Session) throws(ShellError) {
    let report = session.context.store.check()
    for line in CheckReportView(report: report).lines {
      session.output.writeLine(session.displayed(line))
    }
    guard report.isSound else {
      throw .input(
        "the store has \(report.problems.count) problem\(report.problems.count == 1 ? "" : "s")")
    }
  }
}
