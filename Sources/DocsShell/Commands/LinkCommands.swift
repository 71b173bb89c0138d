import DocsKit

/// `links`: the links a document's content holds.
struct LinksCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "links",
    abstract: "list the [[links]] in a document, each with the document it names or missing",
    discussion: """
      [[Name]] names a document of the linking document's own category, [[Category/Name]]
      one of that category; [[Name|shown text]] shows other text. Names ignore case.
      Prints LINE: [[TARGET]] -> CATEGORY/NAME, or (missing); --json prints
      [{"line", "target", "text", "category", "name"}], category and name null when missing.
      """,
    example: "links Work/Plan",
    arguments: ArgumentSpec(
      options: [.json], positionals: [PositionalSpec("NAME", completing: .document)],
      whenMissing: "name a document"),
    isUndoable: false,
    pagesOutput: true)

  let path: String
  let format: OutputFormat

  init(_ arguments: ParsedArguments) {
    path = arguments.positionals[0]
    format = arguments.outputFormat
  }

  func run(in session: Session) throws -> CommandResult {
    let document = try session.document(named: path)
    let links = try session.context.links(of: document.id).map { resolved in
      LocatedLink(link: resolved.link, target: resolved.target.map(session.located))
    }
    return .links(links, format)
  }
}

/// `backlinks`: the documents linking to a document.
struct BacklinksCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "backlinks",
    abstract: "list every document linking to a document, with the line of each link",
    discussion: """
      Prints CATEGORY/NAME:LINE: text for each link naming the document, as [[Name]] from
      its category or [[Category/Name]] from anywhere; --json prints
      [{"category", "name", "line", "text"}].
      """,
    example: "backlinks Work/Plan",
    arguments: ArgumentSpec(
      options: [.json], positionals: [PositionalSpec("NAME", completing: .document)],
      whenMissing: "name a document"),
    isUndoable: false,
    pagesOutput: true)

  let path: String
  let format: OutputFormat

  init(_ arguments: ParsedArguments) {
    path = arguments.positionals[0]
    format = arguments.outputFormat
  }

  func run(in session: Session) throws -> CommandResult {
    let document = try session.document(named: path)
    let backlinks = try session.context.backlinks(to: document.id).map { backlink in
      LocatedBacklink(source: session.located(backlink.source), backlink: backlink)
    }
    return .backlinks(backlinks, format)
  }
}
