import DocsKit

/// `tag`: put tags on documents.
struct TagCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "tag",
    abstract: "put tags on a document (a name with * ? [ ] tags every document it matches)",
    discussion: """
      A tag is a word of letters, digits, -, _ and / (project/docsh); a leading # is
      dropped. Tags compare ignoring case and accents, and show as first written: tagging
      with swift where another document holds Swift gives Swift. Tagging does not change a
      document's modification date. One undo step takes back the whole command.
      """,
    example: "tag Work/Plan project/docsh urgent",
    arguments: TagChange.arguments)

  let change: TagChange

  init(_ arguments: ParsedArguments) throws(ShellError) {
    change = try TagChange(arguments)
  }

  func run(in session: Session) throws -> CommandResult {
    try session.context.tag(change.documents(in: session).map(\.id), with: change.tags)
    return .nothing
  }
}

/// `untag`: take tags off documents.
struct UntagCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "untag",
    abstract: "take tags off a document (a name with * ? [ ] untags every document it matches)",
    discussion: """
      A tag the document does not hold is no error. A tag no document holds any more is
      gone from 'tags'. One undo step takes back the whole command.
      """,
    example: "untag Work/Plan urgent",
    arguments: TagChange.arguments)

  let change: TagChange

  init(_ arguments: ParsedArguments) throws(ShellError) {
    change = try TagChange(arguments)
  }

  func run(in session: Session) throws -> CommandResult {
    try session.context.untag(change.documents(in: session).map(\.id), removing: change.tags)
    return .nothing
  }
}

/// `tags`: every tag with its number of documents.
struct TagsCommand: ShellCommand {
  static let configuration = CommandConfiguration(
    name: "tags",
    abstract: "list every tag with the number of documents holding it",
    discussion: """
      Sorted by tag, ignoring case and accents; --json prints [{"tag", "documents"}].
      'find --tag TAG' lists a tag's documents.
      """,
    example: "tags",
    arguments: ArgumentSpec(options: [.json]),
    isUndoable: false,
    pagesOutput: true,
    runsWithoutCategoryList: true)

  let format: OutputFormat

  init(_ arguments: ParsedArguments) {
    format = arguments.outputFormat
  }

  func run(in session: Session) throws -> CommandResult {
    .tagCounts(try session.context.tags(), format)
  }
}

/// The arguments `tag` and `untag` share: a document (or a pattern of names) and tags.
struct TagChange: Sendable {
  static let arguments = ArgumentSpec(
    positionals: [
      PositionalSpec("NAME", completing: .document),
      PositionalSpec("TAG", .oneOrMore, completing: .tag),
    ],
    whenMissing: "name a document and give one or more tags")

  /// The document's path as typed, maybe a pattern.
  let path: String
  /// The tags, validated.
  let tags: [Tag]

  init(_ arguments: ParsedArguments) throws(ShellError) {
    path = arguments.positionals[0]
    var tags: [Tag] = []
    for text in arguments.positionals.dropFirst() {
      do {
        tags.append(try Tag(text))
      } catch {
        throw .invalidTag(error)
      }
    }
    self.tags = tags
  }

  /// The documents the path names: one, or those whose names match its pattern.
  /// - Throws: ``ShellError`` when it names no document.
  func documents(in session: Session) throws -> [Document] {
    try session.documents(named: [path], once: true).map(\.document)
  }
}
