import DocsKit

/// `rm`: delete documents; with `-r`, categories too.
struct RemoveCommand: ShellCommand {
  static let recursive = OptionSpec.flag("-r", "-R", "--recursive")
  static let configuration = CommandConfiguration(
    name: "rm",
    abstract: "delete documents (with -r, categories and their documents)",
    discussion: """
      With -r, a category named is deleted with all of its documents, as rmdir does: one
      that holds documents only after you confirm, unless -f. Documents named beside it are
      deleted too. A name with * ? [ ] deletes every document it matches (none
      matching is an error, and nothing is deleted). A document other documents link to ([[Name]]) is deleted only after rm
      says which and you confirm, unless -f. 'undo' brings everything back.
      """,
    example: "rm Draft Work/Old",
    arguments: ArgumentSpec(
      options: [recursive, .force],
      positionals: [PositionalSpec("NAME", .oneOrMore, completing: .document)],
      whenMissing: "name the document to delete"))

  let paths: [String]
  let isRecursive: Bool
  let isForced: Bool

  init(_ arguments: ParsedArguments) {
    paths = arguments.positionals
    isRecursive = arguments.isSet(Self.recursive)
    isForced = arguments.isSet(OptionSpec.force)
  }

  func run(in session: Session) throws -> CommandResult {
    var documents: [Document] = []
    var categoryPaths: [String] = []
    for path in paths {
      if case .category(let category)? = try? session.resolve(path),
        session.currentCategory == nil || path.hasPrefix("/") || ShellPath(path).insistsOnCategory
      {
        guard isRecursive else {
          throw ShellError.wrongKind(
            category.name.text, expected: "a document (use rm -r or rmdir for categories)")
        }
        categoryPaths.append(path)
        continue
      }
      // At the top a plain name can only be a category.
      if isRecursive && session.currentCategory == nil && !path.contains("/") {
        throw ShellError.noSuchCategory(path)
      }
      for named in try session.documents(named: [path])
      where !documents.contains(where: { $0.id == named.document.id }) {
        documents.append(named.document)
      }
    }
    if !isForced { documents = try confirmedDespiteLinks(documents, in: session) }
    return try CategoryDeletion(paths: categoryPaths, force: isForced, command: "rm")
      .perform(in: session, documents: documents)
  }

  /// `documents` without those linked to from other documents (not deleted with them) that
  /// the answer keeps: rm says who links to each before it asks.
  private func confirmedDespiteLinks(
    _ documents: [Document], in session: Session
  ) throws -> [Document] {
    let deleted = Set(documents.map(\.id))
    var kept: [Document] = []
    for document in documents {
      let sources = try session.context.backlinks(to: document.id).map(\.source)
        .filter { !deleted.contains($0.id) }
      var paths: [String] = []
      for source in sources where !paths.contains(session.located(source).path) {
        paths.append(session.located(source).path)
      }
      guard !paths.isEmpty else {
        kept.append(document)
        continue
      }
      let path = session.located(document).path
      let count = paths.count == 1 ? "1 document links" : "\(paths.count) documents link"
      session.tell("\(count) to \(path): \(paths.joined(separator: ", "))")
      if try session.confirm("Delete \"\(path)\" and leave those links missing?") {
        kept.append(document)
      } else {
        session.tell("rm: kept \"\(path)\"")
      }
    }
    return kept
  }
}
