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
      """,
    example: "mv Plan ../Archive/Plan-2026",
    arguments: .pair(
      PositionalSpec("SOURCE", completing: .document),
      PositionalSpec("DEST", completing: .document), options: [noLinks],
      wrongCount: "give a source and a destination"))

  let (source, destination): (String, String)
  let rewritesLinks: Bool

  init(_ arguments: ParsedArguments) {
    (source, destination) = arguments.pair
    rewritesLinks = !arguments.isSet(Self.noLinks)
  }

  func run(in session: Session) throws -> CommandResult {
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
    return .nothing
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
