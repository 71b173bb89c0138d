import DocsKit

/// `ls`: the categories at the top, the documents in a category.
struct ListCommand: ShellCommand {
  static let long = OptionSpec.flag("-l")
  /// What `-s` sorts by: the words parsing, completion, usage and the error text share.
  enum SortWord: String, CaseIterable, ExpressibleByArgument {
    case name, size, date

    /// The key the context sorts documents by.
    var documentKey: DocumentSortKey {
      switch self {
      case .name: return .name
      case .size: return .size
      case .date: return .modified
      }
    }
  }

  static let sort = ValueOption<SortWord>("-s", "--sort")
  static let reverse = OptionSpec.flag("-r")
  static let byTime = OptionSpec.flag("-t")
  static let all = OptionSpec.flag("-a")
  static let configuration = CommandConfiguration(
    name: "ls",
    abstract: "list categories (at the top) or the documents of a category",
    discussion: """
      At the top: each category with its number of documents, total size and latest
      modification. In a category: each document's name, size and modification date.
      -l shows exact bytes and full timestamps; -s sorts by size (largest first) or date
      (newest first), -t by date as -s date; -r reverses any order; --json prints JSON.
      -a is taken for habit: a store has no hidden entries.
      """,
    example: "ls -l -s size Work",
    arguments: ArgumentSpec(
      options: [long, sort.spec, byTime, reverse, all, .json],
      positionals: [PositionalSpec("CATEGORY", .optional, completing: .category)],
      whenExtra: "lists one category at a time"),
    isUndoable: false,
    pagesOutput: true,
    runsWithoutCategoryList: true)

  let format: OutputFormat
  let key: DocumentSortKey
  let reversed: Bool
  let path: String?

  init(_ arguments: ParsedArguments) throws(ShellError) {
    format = arguments.isSet(Self.long) && !arguments.isSet(.json) ? .long : arguments.outputFormat
    reversed = arguments.isSet(Self.reverse)
    let word: SortWord?
    do {
      word = try arguments.value(of: Self.sort)
    } catch {
      guard case .invalidValue(let other, _, let allowed) = error else {
        throw Self.usageError(error.description)
      }
      throw Self.usageError("cannot sort by \"\(other)\"; use \(allowed)")
    }
    // Which of -t and -s came last is not known here, so they must agree.
    if let word, arguments.isSet(Self.byTime), word != .date {
      throw Self.usageError("-t sorts by date; it cannot go with -s \(word.rawValue)")
    }
    key = word?.documentKey ?? (arguments.isSet(Self.byTime) ? .modified : .name)
    path = arguments.positionals.first
  }

  func run(in session: Session) throws -> CommandResult {
    let target: ResolvedPath =
      try path.map { path throws(ShellError) in try session.resolve(path) }
      ?? session.currentCategory.map { .category($0) } ?? .top
    switch target {
    case .top:
      var listings = session.context.categoryListings(
        sortedBy: CategorySortKey(rawValue: key.rawValue) ?? .name, order: naturalOrder)
      // -r turns the whole list around, ties included, as GNU ls does.
      if reversed { listings.reverse() }
      return .categories(listings, format)
    case .category(let category):
      return .documents(
        try session.context.documents(in: category.id, sortedBy: key, order: order), format)
    case .entry(let category, let name):
      guard let document = try session.context.document(named: name, in: category.id) else {
        throw ShellError.noSuchDocument(name, in: category.name.text)
      }
      return .documents([document], format)
    }
  }

  /// Names A to Z; sizes and dates largest and newest first, as GNU ls.
  private var naturalOrder: SortOrder { key == .name ? .ascending : .descending }

  /// The natural order, flipped by `-r`.
  private var order: SortOrder {
    reversed ? (naturalOrder == .ascending ? .descending : .ascending) : naturalOrder
  }
}
