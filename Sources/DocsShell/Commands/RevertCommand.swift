import DocsKit

/// `revert`: discard every unsaved change and load the store again.
struct RevertCommand: FlagsCommand {
  static let configuration = CommandConfiguration(
    name: "revert",
    abstract: "discard every unsaved change and reload the store (asks first)",
    discussion: """
      Loads the store as it is on disk now, with what other sessions saved. With unsaved
      changes it asks first (Discard 3 unsaved changes? [y/N]); -f does not ask. The undo
      history goes with the changes: revert itself cannot be undone.
      """,
    example: "revert",
    arguments: ArgumentSpec(options: [.force], whenExtra: "takes no names"),
    isUndoable: false)

  let arguments: ParsedArguments

  func run(in session: Session) throws -> CommandResult {
    let count = try session.context.changes().count
    if count > 0 && !arguments.isSet(OptionSpec.force) {
      let what = count == 1 ? "1 unsaved change" : "\(count) unsaved changes"
      guard try session.confirm("Discard \(what)?") else { throw ShellError.declined }
    }
    try session.context.reload()
    return .nothing
  }
}
