import DocsKit

/// `write`: replace a document's content.
struct WriteDocumentCommand: ContentCommand {
  static let configuration = CommandConfiguration(
    name: "write",
    abstract: "replace a document's content (TEXT, here-document or editor)",
    example: "write Plan <<END",
    arguments: ContentInput.arguments(naming: "write"))

  let target: ContentTarget

  func run(in session: Session) throws -> CommandResult {
    let (document, content) = try target.documentAndText(
      in: session, or: Self.usageError("give the new text as words or a here-document"))
    try session.context.setContent(content, of: document.id)
    return .nothing
  }
}
