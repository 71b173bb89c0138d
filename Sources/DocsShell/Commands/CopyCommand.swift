import DocsKit

/// `cp`: copy a document.
struct CopyCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "cp",
    abstract: "copy a document, within its category or to another",
    discussion: """
      DEST is read as by mv: a category (/Archive, ../Archive, Archive/) gets a copy with
      the same name; CATEGORY/NAME or a plain NAME names the copy. The copy is a new
      document (its own id) with the same content, size and tags, dated now; -p keeps the
      source's modification date. A name that is taken is an error. Several SOURCEs, or one
      with * ? [ ], copy every document they name into the category DEST.
      """,
    example: "cp Plan ../Archive/Plan-2026",
    arguments: DocumentTransfer.arguments(options: [preserveDate]))

  /// `-p`: the copy keeps the source's modification date.
  static let preserveDate = OptionSpec.flag("-p", "--preserve")

  let sources: [String]
  let destination: String
  let keepsDate: Bool

  init(_ arguments: ParsedArguments) {
    (sources, destination) = DocumentTransfer.split(arguments)
    keepsDate = arguments.isSet(Self.preserveDate)
  }

  func run(in session: Session) throws -> CommandResult {
    guard let source = DocumentTransfer.singleSource(sources) else {
      let target = try DocumentTransfer.category(destination, in: session, command: "cp")
      for named in try session.documents(named: sources, once: true) {
        try copy(named.document, to: target, named: nil, in: session)
      }
      return .nothing
    }
    if case .category(let category) = try session.resolve(source),
      session.currentCategory == nil || source.hasPrefix("/") || ShellPath(source).insistsOnCategory
    {
      throw ShellError.wrongKind(category.name.text, expected: "a document (cp copies documents)")
    }
    let document = try ShellPath(source).document(
      in: session.context, from: session.currentCategory)
    let (category, name) = try ShellPath(destination).documentDestination(
      in: session.context, from: session.currentCategory)
    try copy(document, to: category, named: name, in: session)
    return .nothing
  }

  /// Copies `document` into `category` as `name` (`nil`: its own), with its tags.
  private func copy(
    _ document: Document, to category: Category, named name: String?, in session: Session
  ) throws {
    let content = try session.context.content(of: document.id)
    let copy = try session.context.createDocument(
      named: name ?? document.name.text, in: category.id, content: content,
      modified: keepsDate ? document.modified : nil)
    // The copy holds the source's tags too (the same words about the same text).
    if !document.tags.isEmpty { try session.context.tag([copy.id], with: document.tags) }
  }
}
