import DocsKit

/// `new`: create a document.
struct NewDocumentCommand: ShellCommand {
  /// `--from TEMPLATE`: the content is the template's, its placeholders filled.
  static let from = ValueOption<String>(
    "--from", valueName: "TEMPLATE", help: "fill the template TEMPLATE", completing: .template)

  static let configuration = CommandConfiguration(
    name: "new",
    abstract: "create a document from TEXT, a here-document, a template or the editor",
    discussion: """
      The content is the TEXT words joined by single spaces, stored exactly (no newline
      added); or a here-document (new NAME <<END … END, each line ending in a newline); or,
      interactively with no TEXT, the editor ($VISUAL, else $EDITOR) or typed lines ended
      by a line holding a single '.'. In a script, 'new NAME' alone makes an empty document.
      --from TEMPLATE takes the content of the document TEMPLATE of the templates category
      (DOCSH_TEMPLATES, else Templates; CATEGORY/NAME names any document) with {{date}}
      (2026-12-06), {{time}} (14:53), {{title}} (NAME) and {{category}} filled in, in local
      time; no TEXT then.
      """,
    example: "new --from Meeting Standup-2026-12-06",
    arguments: ContentInput.arguments(naming: "create", options: [from.spec]))

  let target: ContentTarget
  let template: String?

  init(_ arguments: ParsedArguments) throws(ShellError) {
    target = ContentTarget(arguments)
    template = arguments.value(of: Self.from)
    if template != nil && target.input.isGiven {
      throw Self.usageError("give either --from TEMPLATE or the text, not both")
    }
  }

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
    let content: String
    if let template {
      content = try session.filledTemplate(
        try session.template(named: template), title: name, category: category.name.text)
    } else {
      content = try target.input.text(in: session) ?? ""
    }
    try session.context.createDocument(named: name, in: category.id, content: content)
    return .nothing
  }
}

extension Session {
  /// The content of `template` with its placeholders filled for a document `title` of
  /// `category`, at the session's clock in the user's time zone.
  /// - Throws: what reading the template's content throws.
  func filledTemplate(
    _ template: Document, title: String, category: String, date: String? = nil
  ) throws -> String {
    let now = collaborators.clock().millisecondsSince1970
    let values = TemplateValues(
      date: date ?? settings.dates.isoDay(now), time: settings.dates.hoursAndMinutes(now),
      title: title, category: category)
    return values.fill(try context.content(of: template.id))
  }
}
