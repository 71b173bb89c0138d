import DocsKit

/// `mv`: rename a category or a document, or move a document to another category.
struct MoveCommand: ShellCommand {
  static let noLinks = OptionSpec.flag("--no-links", help: "keep links to the document as they are")
  static let configuration = CommandConfiguration(
    name: "mv",
    abstract: "rename a category or document, or move a document to another category",
    discussion: """
      A DEST that names a category (/Archive, ../Archive, Archive/) moves the document
      there, keeping its name; CATEGORY/NAME moves and renames it; a plain NAME renames it
      in place. At the top, mv OLD NEW renames a category; its documents stay with it.
      Moving or renaming a document rewrites the [[links]] naming it in the documents that
      hold them, in the same undo step, and says how many, keeping each #heading and |shown
      text (code is never changed); renaming a category rewrites the [[Category/Name]]
      links into it. --no-links keeps them as they were.
      Several SOURCEs, or one with * ? [ ] (mv *.txt Archive), move every document they
      name into the category DEST, keeping their names.
      """,
    example: "mv Plan ../Archive/Plan-2026",
    arguments: DocumentTransfer.arguments(options: [noLinks]))

  let sources: [String]
  let destination: String
  let rewritesLinks: Bool

  init(_ arguments: ParsedArguments) {
    (sources, destination) = DocumentTransfer.split(arguments)
    rewritesLinks = !arguments.isSet(Self.noLinks)
  }

  func run(in session: Session) throws -> CommandResult {
    guard let source = DocumentTransfer.singleSource(sources) else {
      let target = try DocumentTransfer.category(destination, in: session, command: "mv")
      var links = 0
      var documents = 0
      var kept = 0
      for named in try session.documents(named: sources, once: true) {
        let rewrite = try session.context.moveDocument(
          named.document.id, to: target.id, renamingTo: nil, rewritingLinks: rewritesLinks)
        links += rewrite.links
        documents += rewrite.documents
        kept += rewrite.kept
      }
      return Self.rewriteMessage(links: links, documents: documents, kept: kept)
    }
    return try move(source, in: session)
  }

  private func move(_ source: String, in session: Session) throws -> CommandResult {
    let context = session.context
    switch try session.resolve(source) {
    case .top:
      throw ShellError.wrongKind(source, expected: "a category or document")
    case .category(let category):
      return try renameCategory(category, in: session)
    case .entry(let category, let name):
      guard let document = try context.document(named: name, in: category.id) else {
        throw ShellError.noSuchDocument(name, in: category.name.text)
      }
      let (target, newName) = try ShellPath(destination).documentDestination(
        in: context, from: session.currentCategory)
      let rewrite = try context.moveDocument(
        document.id, to: target.id, renamingTo: newName, rewritingLinks: rewritesLinks)
      return Self.rewriteMessage(
        links: rewrite.links, documents: rewrite.documents, kept: rewrite.kept)
    }
  }

  private func renameCategory(_ category: Category, in session: Session) throws -> CommandResult {
    var name = Substring(destination)
    if name.hasPrefix("/") { name = name.dropFirst() }
    if name.hasSuffix("/") { name = name.dropLast() }
    guard !name.contains("/") else {
      throw ShellError.wrongKind(destination, expected: "a category name (categories do not nest)")
    }
    let rewrite = try session.context.renameCategory(
      category.id, to: String(name), rewritingLinks: rewritesLinks)
    return Self.rewriteMessage(
      links: rewrite.links, documents: rewrite.documents, kept: rewrite.kept)
  }

  /// `Rewrote 3 links in 2 documents.`, and how many were kept because no link can hold
  /// the new name; nothing when neither happened.
  static func rewriteMessage(links: Int, documents: Int, kept: Int) -> CommandResult {
    var messages: [String] = []
    if links > 0 {
      let linkCount = links == 1 ? "1 link" : "\(links) links"
      let documentCount = documents == 1 ? "1 document" : "\(documents) documents"
      messages.append("Rewrote \(linkCount) in \(documentCount).")
    }
    if kept > 0 {
      let linkCount = kept == 1 ? "1 link" : "\(kept) links"
      messages.append(
        "Kept \(linkCount) as written: a link cannot hold a name with #, |, [ or ].")
    }
    return messages.isEmpty ? .nothing : .messages(messages)
  }
}

/// What `mv` and `cp` share: `SOURCE… DEST`, and where several documents go.
enum DocumentTransfer {
  /// `SOURCE… DEST`: one or more sources, then the destination.
  static func arguments(options: [OptionSpec]) -> ArgumentSpec {
    ArgumentSpec(
      options: options,
      positionals: [
        PositionalSpec("SOURCE", .oneOrMore, completing: .document),
        PositionalSpec("DEST", completing: .document),
      ],
      whenMissing: "give a source and a destination")
  }

  /// The sources and the destination of `arguments` (at least two positional words).
  static func split(_ arguments: ParsedArguments) -> (sources: [String], destination: String) {
    (Array(arguments.positionals.dropLast()), arguments.positionals.last ?? "")
  }

  /// The one source when there is one without a wildcard (which may rename); `nil` when the
  /// sources stand for a set of documents that goes into a category.
  static func singleSource(_ sources: [String]) -> String? {
    guard sources.count == 1, let source = sources.first, !ShellPath(source).hasWildcard else {
      return nil
    }
    return source
  }

  /// The category `destination` names, for several documents: a category path (`/Archive`,
  /// `Archive/`), or a plain name that is a category's (`mv *.txt Archive`).
  /// - Throws: ``ShellError/destinationNotCategory(_:command:)`` when it names none.
  static func category(
    _ destination: String, in session: Session, command: String
  ) throws -> Category {
    // A path that resolves to no category is answered below, with the error that says so.
    if case .category(let category) = try? session.resolve(destination) { return category }
    var name = Substring(destination)
    if name.hasPrefix("/") { name = name.dropFirst() }
    if name.hasSuffix("/") { name = name.dropLast() }
    if !name.contains("/"), let category = session.context.category(named: String(name)) {
      return category
    }
    throw ShellError.destinationNotCategory(destination, command: command)
  }
}
