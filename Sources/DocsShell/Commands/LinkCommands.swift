import DocsKit

/// `links`: the links a document's content holds.
struct LinksCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "links",
    abstract: "list the [[links]] in a document, each with the document it names or missing",
    discussion: """
      Links are Obsidian's: [[Name]], [[Category/Name]] (or [[/Category/Name]]), then
      #Heading or #^block for a part of it, [[#Heading]] for the document itself, |shown
      text after any of them; ![[Name]] embeds are links too. Nothing in code (`code`, fenced
      blocks) is a link. [[Name]] names the document of that name in the linking document's
      category, else the only one of that name anywhere. Names ignore case. Prints
      LINE: [[TARGET]] -> CATEGORY/NAME, (missing) or (ambiguous: candidates); --json prints
      [{"line", "target", "text", "category", "name", "candidates"}], category and name null
      when it resolves to none.
      """,
    example: "links Work/Plan",
    arguments: DocumentQuery.arguments(whenMissing: "name a document"),
    isUndoable: false,
    pagesOutput: true)

  let query: DocumentQuery

  init(_ arguments: ParsedArguments) {
    query = DocumentQuery(arguments)
  }

  func run(in session: Session) throws -> CommandResult {
    let document = try session.document(named: query.path)
    let links = try session.context.links(of: document.id).map { resolved in
      LocatedLink(
        link: resolved.link, target: resolved.target.map(session.located),
        candidates: resolved.candidates.map(session.located))
    }
    return .links(links, query.format)
  }
}

/// `backlinks`: the documents linking to a document.
struct BacklinksCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "backlinks",
    abstract: "list every document linking to a document, with the line of each link",
    discussion: """
      Prints CATEGORY/NAME:LINE: text for each link naming the document: [[Category/Name]]
      from anywhere, [[Name]] from its category or, when no other document has its name,
      from anywhere, [[#Heading]] in itself; --json prints
      [{"category", "name", "line", "text"}].
      """,
    example: "backlinks Work/Plan",
    arguments: DocumentQuery.arguments(whenMissing: "name a document"),
    isUndoable: false,
    pagesOutput: true)

  let query: DocumentQuery

  init(_ arguments: ParsedArguments) {
    query = DocumentQuery(arguments)
  }

  func run(in session: Session) throws -> CommandResult {
    let document = try session.document(named: query.path)
    let backlinks = try session.context.backlinks(to: document.id).map { backlink in
      LocatedBacklink(source: session.located(backlink.source), backlink: backlink)
    }
    return .backlinks(backlinks, query.format)
  }
}
