import DocsKit

/// `ls`: the categories at the top, the documents in a category.
struct ListCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "ls",
    usage: "ls [-l] [-s name|size|date] [-r] [--json] [CATEGORY]",
    abstract: "list categories (at the top) or the documents of a category",
    discussion: """
      At the top: each category with its number of documents, total size and latest
      modification. In a category: each document's name, size and modification date.
      -l shows exact bytes and full timestamps; -s sorts by size (largest first) or date
      (newest first); -r reverses any order; --json prints JSON.
      """,
    example: "ls -l -s size Work",
    arguments: [.category],
    pagesOutput: true)

  enum Order: String {
    case name, size, date
  }

  var long = false
  var order = Order.name
  var reversed = false
  var json = false
  var path: String?

  init(arguments: [String], hereDocument: String?) throws(ShellError) {
    try Self.refuseHereDocument(hereDocument)
    let parsed = try ParsedArguments.parse(
      arguments, flags: ["l", "r", "json"], options: ["s", "sort"], for: Self.configuration)
    long = parsed.flags.contains("l")
    reversed = parsed.flags.contains("r")
    json = parsed.flags.contains("json")
    if let key = parsed.options["s"] ?? parsed.options["sort"] {
      guard let order = Order(rawValue: key == "modified" ? "date" : key) else {
        throw Self.usageError("cannot sort by \"\(key)\"; use name, size or date")
      }
      self.order = order
    }
    guard parsed.positionals.count <= 1 else {
      throw Self.usageError("lists one category at a time")
    }
    path = parsed.positionals.first
  }

  func run(in session: Session) throws(ShellError) {
    let target: ResolvedPath =
      try path.map { path throws(ShellError) in try session.resolve(path) }
      ?? session.currentCategory.map { .category($0) } ?? .top
    switch target {
    case .top:
      listCategories(in: session)
    case .category(let category):
      listDocuments(
        session.context.documents(in: category.id, sortedBy: sortKey, order: sortOrder), in: session
      )
    case .entry(let category, let name):
      guard let document = session.context.document(named: name, in: category.id) else {
        throw .noSuchDocument(name, in: category.name.text)
      }
      listDocuments([document], in: session)
    }
  }

  private var sortKey: DocumentSortKey {
    switch order {
    case .name: return .name
    case .size: return .size
    case .date: return .modified
    }
  }

  /// Names A to Z; sizes and dates largest and newest first, as GNU ls; `-r` flips.
  private var sortOrder: SortOrder {
    let natural: SortOrder = order == .name ? .ascending : .descending
    return reversed ? (natural == .ascending ? .descending : .ascending) : natural
  }

  private func listCategories(in session: Session) {
    var rows = session.context.categories().map { ($0, session.context.summary(of: $0.id)) }
    switch order {
    case .name: break
    case .size: rows.sort { $0.1.totalSize > $1.1.totalSize }
    case .date:
      rows.sort {
        ($0.1.latestModification?.millisecondsSince1970 ?? .min)
          > ($1.1.latestModification?.millisecondsSince1970 ?? .min)
      }
    }
    if reversed { rows.reverse() }
    if json {
      let values = rows.map { category, summary in
        JSONValue.object([
          ("name", .string(category.name.text)), ("documents", .integer(summary.documentCount)),
          ("size", .integer(summary.totalSize)), ("modified", .date(summary.latestModification)),
        ])
      }
      session.output.writeLine(JSONValue.array(values).rendered)
      return
    }
    let view = ListingView(session: session, long: long)
    for line in view.categoryTable(rows) { session.output.writeLine(line) }
  }

  private func listDocuments(_ documents: [Document], in session: Session) {
    if json {
      let values = documents.map { document in
        JSONValue.object([
          ("name", .string(document.name.text)), ("size", .integer(document.size)),
          ("modified", .date(document.modified)),
        ])
      }
      session.output.writeLine(JSONValue.array(values).rendered)
      return
    }
    let view = ListingView(session: session, long: long)
    for line in view.documentTable(documents) { session.output.writeLine(line) }
  }
}
