import DocsKit

/// `new`: create a document.
struct NewDocumentCommand: ContentCommand {
  static let configuration = CommandConfiguration(
    name: "new",
    abstract: "create a document from TEXT, a here-document, or the editor",
    discussion: """
      The content is the TEXT words joined by single spaces, stored exactly (no newline
      added); or a here-document (new NAME <<END … END, each line ending in a newline); or,
      interactively with no TEXT, the editor ($VISUAL, else $EDITOR) or typed lines ended
      by a line holding a single '.'. In a script, 'new NAME' alone makes an empty document.
      """,
    example: "new Plan Ship the release on Friday",
    arguments: ContentInput.arguments(naming: "create"))

  let target: ContentTarget

  func run(in session: Session) throws -> CommandResult {
    let (category, name) = try ShellPath(target.path).entry(
      in: session.context, from: session.currentCategory)
    // Check the name before asking for text, so nobody types into a name that is taken
    // (text given on the line is checked by the model as the document is made).
    if !target.input.isGiven,
      let existing = try session.context.document(named: name, in: category.id)
    {
      throw ContextError.duplicateDocumentName(
        name, existing: existing.name.text, in: category.name.text)
    }
    let content = try target.input.text(in: session) ?? ""
    try session.context.createDocument(named: name, in: category.id, content: content)
    return .nothing
  }
}
