import DocsKit

/// `append`: add lines at the end of a document.
struct AppendCommand: ContentCommand {
  static let configuration = CommandConfiguration(
    name: "append",
    abstract: "add TEXT (or a here-document) as new lines at the end of a document",
    discussion: """
      The text starts on a new line: a newline is added first when the content does not
      end with one, and the TEXT words end with one.
      """,
    example: "append Journal Walked to the lake",
    arguments: ContentInput.arguments(naming: "append to"))

  let target: ContentTarget

  func run(in session: Session) throws -> CommandResult {
    var (document, addition) = try target.documentAndText(
      in: session, or: Self.usageError("give the text to append as words or a here-document"))
    if !addition.hasSuffix("\n") { addition += "\n" }
    let content = try session.context.content(of: document.id)
    let separator = content.isEmpty || content.hasSuffix("\n") ? "" : "\n"
    try session.context.setContent(content + separator + addition, of: document.id)
    return .nothing
  }
}
