import DocsKit

/// `save`: commit the changes to the store.
struct SaveCommand: FlagsCommand {
  static let mine = OptionSpec.flag("--mine")
  static let theirs = OptionSpec.flag("--theirs")
  static let theirsWhole = OptionSpec.flag("--theirs-whole")
  static let both = OptionSpec.flag("--both")
  static let diff = OptionSpec.flag("--diff")

  /// The flags that settle conflicts, with the resolution each stands for.
  static let resolutions: [(OptionSpec, ConflictResolution)] = [
    (mine, .mine), (theirs, .theirs), (theirsWhole, .theirsWhole), (both, .both),
  ]

  static let configuration = CommandConfiguration(
    name: "save", abstract: "commit the changes to the store",
    discussion: """
      When another session saved since this one loaded, save merges: changes to different
      objects or properties combine, and a content both changed merges by line as git
      merges text (when both only appended lines, both are kept, yours first). Real
      conflicts (both changed the same property, for a content the same or neighbouring
      lines; one deleted what the other changed; both used one name) are listed, each
      document and property, and nothing is written. Then: 'save --diff' shows their
      version against yours and writes nothing; 'save --mine' keeps your values for the
      conflicting properties; 'save --theirs' takes theirs for those properties only;
      'save --theirs-whole' takes their whole version of each conflicting document;
      'save --both' keeps yours and adds theirs beside it as 'NAME (conflict DATE)', as
      sync does. Every other unsaved change is kept and saved in each case.
      """,
    example: "save --both",
    arguments: ArgumentSpec(
      options: [mine, theirs, theirsWhole, both, diff], whenExtra: "takes no names"),
    isUndoable: false)

  let arguments: ParsedArguments

  func run(in session: Session) throws -> CommandResult {
    let chosen = Self.resolutions.filter { arguments.isSet($0.0) }
    let showing = arguments.isSet(Self.diff)
    guard chosen.count + (showing ? 1 : 0) <= 1 else {
      throw Self.usageError("takes one of --diff, --mine, --theirs, --theirs-whole and --both")
    }
    if showing { return .conflictVersions(try session.context.conflictVersions()) }
    // Counted only for the message a person reads.
    let count = session.settings.isInteractive ? try session.context.changes().count : 0
    try session.save(resolving: chosen.first?.1)
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
