import DocsKit

/// `save`: commit the changes to the store.
struct SaveCommand: FlagsCommand {
  static let mine = OptionSpec.flag("--mine")

  static let configuration = CommandConfiguration(
    name: "save", abstract: "commit the changes to the store",
    discussion: """
      When another session saved since this one loaded, save merges: changes to different
      objects or properties combine, and a content both changed merges by line as git
      merges text (when both only appended lines, both are kept, yours first). Real
      conflicts (both changed the same property, for a content the same or neighbouring
      lines; one deleted what the other changed; both used one name) are listed and nothing
      is written. Then 'save --mine' keeps your values for them, or 'revert' takes the
      other session's.
      """,
    example: "save",
    arguments: ArgumentSpec(options: [mine], whenExtra: "takes no names"),
    isUndoable: false)

  let arguments: ParsedArguments

  func run(in session: Session) throws -> CommandResult {
    // Counted only for the message a person reads.
    let count = session.settings.isInteractive ? session.context.changes().count : 0
    try session.save(keepingMine: arguments.isSet(Self.mine))
    guard session.settings.isInteractive else { return .nothing }
    return .messages([Self.report(saved: count, in: session)])
  }

  /// `Saved 3 changes (generation 12).`, or `Nothing to save (…)`: what `save` and the
  /// answer to leaving's question say.
  static func report(saved count: Int, in session: Session) -> String {
    let what = count == 0 ? "Nothing to save" : "Saved \(count) change\(count == 1 ? "" : "s")"
    return "\(what) (generation \(session.context.generation))."
  }
}
