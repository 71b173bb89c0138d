import DocsKit

/// `edit`: change a document in the editor.
struct EditCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "edit",
    abstract: "open a document in the editor ($VISUAL, else $EDITOR)",
    example: "edit Plan",
    arguments: ArgumentSpec(
      positionals: [PositionalSpec("NAME", completing: .document)], placement: .none,
      whenMissing: "name one document", whenExtra: "name one document"))

  let path: String

  init(_ arguments: ParsedArguments) {
    path = arguments.positionals[0]
  }

  func run(in session: Session) throws -> CommandResult {
    let document = try session.document(named: path)
    guard let editor = ExternalEditor.fromEnvironment(session.settings.environment) else {
      throw ShellError.editor(.notSet)
    }
    return try session.edit(document, with: editor)
  }
}

extension Session {
  /// Opens `document` in `editor` and keeps what it leaves, as `edit` does.
  /// - Throws: ``ShellError/editor(_:)`` when the editor fails; what the model throws.
  func edit(_ document: Document, with editor: ExternalEditor) throws -> CommandResult {
    let old = try context.content(of: document.id)
    let new: String
    do {
      new = try editor.edit(old)
    } catch {
      throw ShellError.editor(error)
    }
    guard new != old else { return .messages(["edit: no changes"]) }
    try context.setContent(new, of: document.id)
    return .nothing
  }
}
