import DocsKit

/// `search`: ranked full-text search over names and contents.
struct SearchCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "search",
    abstract: "find documents by the words in their names and contents, best first",
    discussion: """
      Plain words, as a question is typed, find documents holding any of them: those
      holding more of the words, and rarer ones, rank higher, a word in a name counting
      more than one in a content; punctuation only separates words. Each word also finds
      its English forms (plans finds planning), documents holding a word as typed ranking
      first. Case and accents are ignored (cafe finds Café). Once a query uses "a phrase"
      (its words in order), plan* (any word starting with plan) or a OR b (either one),
      every word and group must match. -word or NOT word leaves documents holding it out.
      --tag TAG keeps only documents holding the tag (repeatable: all of them).
      At the top it searches every category, in a
      category only that one. -n sets how many results (default 20, 0 for all); --json
      prints [{"category", "name", "score", "snippet"}], best first. Options come before
      the query: write -- first to begin it with -word.
      """,
    example: "search -n 5 \"release plan\" OR roadmap -draft",
    arguments: ArgumentSpec(
      options: [.count, ValueOption<String>.tag.spec, .json],
      positionals: [PositionalSpec("QUERY", .words, completing: .text)],
      placement: .beforePositionals, whenMissing: "give the words to search for"),
    isUndoable: false,
    pagesOutput: true)

  let query: SearchQuery
  let limit: Int?
  let tags: [Tag]
  let format: OutputFormat

  init(_ arguments: ParsedArguments) throws(ShellError) {
    // The shell took the quotes off: a word holding a blank was typed as a phrase.
    let text = arguments.positionals.map { word in
      word.contains(where: { $0 == " " || $0 == "\t" }) && !word.contains("\"")
        ? "\"" + word + "\"" : word
    }.joined(separator: " ")
    do {
      query = try SearchQuery(text)
    } catch {
      throw ShellError.invalidSearch(error)
    }
    limit = try arguments.count(of: "results", default: 20, for: Self.configuration)
    tags = try arguments.tags()
    format = arguments.outputFormat
  }

  func run(in session: Session) throws -> CommandResult {
    let hits = try session.context.search(
      query, in: session.currentCategory?.id, limit: limit, taggedWith: tags)
    return .searchHits(
      hits.map { LocatedHit(document: session.located($0.document), hit: $0) }, format)
  }
}
