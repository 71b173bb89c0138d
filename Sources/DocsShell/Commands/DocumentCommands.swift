import DocsKit

/// `new`: create a document.
struct NewDocumentCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "new",
    usage: "new NAME [TEXT…]",
    abstract: "create a document from TEXT, a here-document, or the editor",
    discussion: """
      The content is the TEXT words joined by single spaces, stored exactly (no newline
      added); or a here-document (new NAME <<END … END, each line ending in a newline); or,
      interactively with no TEXT, the editor ($VISUAL, else $EDITOR) or typed lines ended
      by a line holding a single '.'. In a script, 'new NAME' alone makes an empty document.
      """,
    example: "new Plan Ship the release on Friday",
    arguments: [.document, .text])

  let path: String
  let input: ContentInput

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    (path, input) = try ContentInput.nameAndText(
      arguments, hereDocument, or: Self.usageError("name the document to create"))
  }

  func run(in session: Session) throws(ShellError) {
    let (category, name) = try ShellPath(path).entry(
      in: session.context, from: session.currentCategory)
    // Check the name before asking for text, so nobody types into a name that is taken.
    if let existing = session.context.document(named: name, in: category.id) {
      throw .context(
        .duplicateDocumentName(name, existing: existing.name.text, in: category.name.text))
    }
    let content = try input.text(in: session) ?? ""
    _ = try ShellError.catching { () throws(ContextError) in
      try session.context.createDocument(named: name, in: category.id, content: content)
    }
  }
}

/// `write`: replace a document's content.
struct WriteDocumentCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "write",
    usage: "write NAME [TEXT…]",
    abstract: "replace a document's content (TEXT, here-document or editor)",
    example: "write Plan <<END",
    arguments: [.document, .text])

  let path: String
  let input: ContentInput

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    (path, input) = try ContentInput.nameAndText(
      arguments, hereDocument, or: Self.usageError("name the document to write"))
  }

  func run(in session: Session) throws(ShellError) {
    let document = try ShellPath(path).document(in: session.context, from: session.currentCategory)
    guard let content = try input.text(in: session) else {
      throw Self.usageError("give the new text as words or a here-document")
    }
    _ = try ShellError.catching { () throws(ContextError) in
      try session.context.setContent(content, of: document.id)
    }
  }
}

/// `append`: add lines at the end of a document.
struct AppendCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "append",
    usage: "append NAME [TEXT…]",
    abstract: "add TEXT (or a here-document) as new lines at the end of a document",
    discussion: """
      The text starts on a new line: a newline is added first when the content does not
      end with one, and the TEXT words end with one.
      """,
    example: "append Journal Walked to the lake",
    arguments: [.document, .text])

  let path: String
  let input: ContentInput

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    (path, input) = try ContentInput.nameAndText(
      arguments, hereDocument, or: Self.usageError("name the document to append to"))
  }

  func run(in session: Session) throws(ShellError) {
    let document = try ShellPath(path).document(in: session.context, from: session.currentCategory)
    guard var addition = try input.text(in: session) else {
      throw Self.usageError("give the text to append as words or a here-document")
    }
    if !addition.hasSuffix("\n") { addition += "\n" }
    try ShellError.catching { () throws(ContextError) in
      let content = try session.context.content(of: document.id)
      let separator = content.isEmpty || content.hasSuffix("\n") ? "" : "\n"
      try session.context.setContent(content + separator + addition, of: document.id)
    }
  }
}

/// `edit`: change a document in the editor.
struct EditCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "edit",
    usage: "edit NAME",
    abstract: "open a document in the editor ($VISUAL, else $EDITOR)",
    example: "edit Plan",
    arguments: [.document])

  let path: String

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    guard arguments.count == 1 else { throw Self.usageError("name one document") }
    path = arguments[0]
  }

  func run(in session: Session) throws(ShellError) {
    let document = try ShellPath(path).document(in: session.context, from: session.currentCategory)
    guard let editor = ExternalEditor.fromEnvironment(session.settings.environment) else {
      throw .input("edit: no editor is set; set $VISUAL or $EDITOR, or use write")
    }
    let old = try ShellError.catching { () throws(ContextError) in
      try session.context.content(of: document.id)
    }
    let new = try editor.edit(old)
    guard new != old else {
      session.errors.writeLine("edit: no changes")
      return
    }
    _ = try ShellError.catching { () throws(ContextError) in
      try session.context.setContent(new, of: document.id)
    }
  }
}

/// `cat`: print contents.
struct CatCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "cat",
    usage: "cat NAME…",
    abstract: "print the content of documents",
    discussion: """
      To a terminal, control characters show escaped; to a pipe or file the content is
      written byte for byte.
      """,
    example: "cat Plan Work/Notes",
    arguments: [.document],
    isUndoable: false,
    pagesOutput: true)

  let paths: [String]

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    let parsed = try ParsedArguments.parse(arguments, for: Self.configuration)
    guard !parsed.positionals.isEmpty else { throw Self.usageError("name a document") }
    paths = parsed.positionals
  }

  func run(in session: Session) throws(ShellError) {
    var documents: [Document] = []
    for path in paths {
      documents.append(
        try ShellPath(path).document(in: session.context, from: session.currentCategory))
    }
    for document in documents {
      let content = try ShellError.catching { () throws(ContextError) in
        try session.context.content(of: document.id)
      }
      session.output.write(session.displayed(content, isContent: true))
      // On a terminal, keep the prompt off the last line of the text.
      if session.output.isTerminal && !content.isEmpty && !content.hasSuffix("\n") {
        session.output.write("\n")
      }
    }
  }
}

/// `info`: a document's metadata.
struct InfoCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "info",
    usage: "info [--json] NAME",
    abstract: "show a document's name, category, exact size and modification date",
    example: "info --json Plan",
    arguments: [.document],
    isUndoable: false)

  let path: String
  let json: Bool

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    let parsed = try ParsedArguments.parse(arguments, flags: ["json"], for: Self.configuration)
    guard parsed.positionals.count == 1 else { throw Self.usageError("name one document") }
    path = parsed.positionals[0]
    json = parsed.flags.contains("json")
  }

  func run(in session: Session) throws(ShellError) {
    let document = try ShellPath(path).document(in: session.context, from: session.currentCategory)
    let category = session.context.category(withID: document.categoryID)?.name.text ?? "?"
    if json {
      session.output.writeLine(
        JSONValue.object([
          ("id", .string(document.id.description)), ("name", .string(document.name.text)),
          ("category", .string(category)), ("size", .integer(document.size)),
          ("modified", .date(document.modified)),
        ]).rendered)
      return
    }
    let rows: [[TableRenderer.Cell]] = [
      ["name:", TableRenderer.Cell(document.name.text)],
      ["category:", TableRenderer.Cell(category, style: .category)],
      [
        "size:",
        TableRenderer.Cell(
          SizeFormatting.exactBytes(document.size) + (document.size == 1 ? " byte" : " bytes")),
      ],
      [
        "modified:",
        TableRenderer.Cell(session.settings.dates.full(document.modified.millisecondsSince1970)),
      ],
      ["id:", TableRenderer.Cell(document.id.description, style: .dim)],
    ]
    for line in TableRenderer(colors: session.settings.colors).render(rows: rows) {
      session.output.writeLine(line)
    }
  }
}

/// `rm`: delete documents.
struct RemoveCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "rm",
    usage: "rm NAME…",
    abstract: "delete documents",
    example: "rm Draft Work/Old",
    arguments: [.document])

  let paths: [String]

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    let parsed = try ParsedArguments.parse(arguments, for: Self.configuration)
    guard !parsed.positionals.isEmpty else { throw Self.usageError("name the document to delete") }
    paths = parsed.positionals
  }

  func run(in session: Session) throws(ShellError) {
    var documents: [Document] = []
    for path in paths {
      if case .category(let category)? = try? session.resolve(path),
        session.currentCategory == nil || path.hasPrefix("/")
      {
        throw .wrongKind(category.name.text, expected: "a document (use rmdir for categories)")
      }
      let document = try ShellPath(path).document(
        in: session.context, from: session.currentCategory)
      if !documents.contains(where: { $0.id == document.id }) { documents.append(document) }
    }
    for document in documents {
      try ShellError.catching { () throws(ContextError) in
        try session.context.deleteDocument(document.id)
      }
    }
  }
}
