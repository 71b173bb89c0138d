import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// What a path typed in the shell names: the top, a category, or a document's place (which
/// may not hold a document yet).
enum ResolvedPath: Equatable {
  /// `/`: the list of categories.
  case top
  /// A category.
  case category(Category)
  /// A document's place: a category and a name in it.
  case entry(Category, name: String)
}

/// A path as typed: `NAME`, `CATEGORY/NAME`, `/CATEGORY/NAME`, `..`, `/`, `Archive/`; a
/// leading `~` is the top, as `/` (`~`, `~/Work/Plan`), so that a shell's habit finds home.
struct ShellPath {
  /// The text typed, a leading `~` read as `/`.
  let text: String

  init(_ text: String) {
    if text == "~" || text.hasPrefix("~/") {
      self.text = "/" + text.dropFirst(text == "~" ? 1 : 2)
    } else {
      self.text = text
    }
  }

  /// Whether the path ends in `/`, which insists on a category.
  var insistsOnCategory: Bool { text.hasSuffix("/") && text != "/" }

  /// Resolves the path from the current category (`nil` at the top).
  /// - Throws: ``ShellError`` when a category on the way does not exist or the path is
  ///   deeper than a document.
  func resolve(in context: Context, from current: Category?) throws(ShellError) -> ResolvedPath {
    // The common case, a plain name in the current category, needs no lookup.
    if let current, text != ".", text != "..", !text.isEmpty, !text.utf8.contains(UInt8(ascii: "/"))
    {
      return .entry(current, name: text)
    }
    var parts: [String] = []
    // `Archive/` names the category Archive from anywhere: categories do not nest.
    let namesCategory =
      insistsOnCategory && !text.dropLast().contains("/") && text != "../" && text != "./"
    if !text.hasPrefix("/"), !namesCategory, let current { parts.append(current.name.text) }
    for component in text.split(separator: "/", omittingEmptySubsequences: true) {
      switch component {
      case ".": continue
      case "..": if !parts.isEmpty { parts.removeLast() }
      default:
        guard parts.count < 2 else { throw .pathTooDeep(text) }
        parts.append(String(component))
      }
    }
    guard let categoryName = parts.first else { return .top }
    guard let category = context.category(named: categoryName) else {
      throw .noSuchCategory(categoryName)
    }
    if parts.count == 2 { return .entry(category, name: parts[1]) }
    return .category(category)
  }

  /// Resolves a path that must name a category.
  func category(in context: Context, from current: Category?) throws(ShellError) -> Category {
    switch try resolve(in: context, from: current) {
    case .category(let category): return category
    case .top: throw .wrongKind(text, expected: "a category")
    case .entry(let category, let name):
      if try Self.document(named: name, in: category, of: context) != nil {
        throw .wrongKind(text, expected: "a category")
      }
      throw .noSuchCategory(current == nil || text.hasPrefix("/") ? text : name)
    }
  }

  /// Resolves a path that names a document's place: `NAME` in the current category, or
  /// `CATEGORY/NAME` anywhere.
  func entry(
    in context: Context, from current: Category?
  ) throws(ShellError) -> (category: Category, name: String) {
    // An empty name is refused as the model refuses a blank one, in its words.
    if text.isEmpty { throw .invalidName(.empty) }
    if current == nil && !text.contains("/") && text != ".." && text != "." {
      if context.category(named: text) != nil { throw .wrongKind(text, expected: "a document") }
      throw .notInCategory(text)
    }
    switch try resolve(in: context, from: current) {
    case .entry(let category, let name) where !insistsOnCategory:
      return (category, name)
    default:
      throw .wrongKind(text, expected: "a document")
    }
  }

  /// Resolves a path that must name an existing document.
  func document(in context: Context, from current: Category?) throws(ShellError) -> Document {
    let (category, name) = try entry(in: context, from: current)
    guard let document = try Self.document(named: name, in: category, of: context) else {
      throw .noSuchDocument(name, in: category.name.text)
    }
    return document
  }

  /// The document `name` of `category`, if there is one.
  /// - Throws: ``ShellError/context(_:)`` when the store cannot read the category.
  private static func document(
    named name: String, in category: Category, of context: Context
  ) throws(ShellError) -> Document? {
    do {
      return try context.document(named: name, in: category.id)
    } catch {
      throw .context(error)
    }
  }

  /// Where a document goes for `mv` and `cp`: a category that keeps its name (`/Archive`,
  /// `../Archive`, `Archive/`), or a category and a new name (`CATEGORY/NAME`, `NAME`).
  func documentDestination(
    in context: Context, from current: Category?
  ) throws(ShellError) -> (category: Category, name: String?) {
    switch try resolve(in: context, from: current) {
    case .top:
      throw .wrongKind(text, expected: "a category or document name")
    case .category(let category):
      return (category, nil)
    case .entry(let category, let name):
      if insistsOnCategory { throw .noSuchCategory(name) }
      return (category, name)
    }
  }
}

// MARK: - Wildcards

/// A document a typed name stands for, with the name to show for it: the path as typed, or,
/// for a wildcard, the typed path with the document's name in place of the pattern.
struct NamedDocument: Sendable {
  /// What output calls it (`head`'s `==> NAME <==`, `wc`'s last column).
  let shownName: String
  /// The document.
  let document: Document
}

extension ShellPath {
  /// Whether the name part (after the last `/`) holds a wildcard of bash's globbing: `*`,
  /// `?` or `[`.
  var hasWildcard: Bool {
    let name = text.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
    return name.contains { $0 == "*" || $0 == "?" || $0 == "[" }
  }

  /// The documents the path names, as bash expands a pattern: the one it names, or, when
  /// its name holds a wildcard (`*`, `?`, `[…]`), every document of its category whose name
  /// matches, in the category's order. A document whose name is the pattern itself, as
  /// typed, is that document alone (names may hold `*`).
  /// - Throws: ``ShellError/nothingMatches(_:in:)`` when a pattern matches no document;
  ///   what ``document(in:from:)`` throws for a plain name.
  func documents(in context: Context, from current: Category?) throws -> [NamedDocument] {
    guard hasWildcard else {
      return [NamedDocument(shownName: text, document: try document(in: context, from: current))]
    }
    let (category, pattern) = try entry(in: context, from: current)
    if let exact = try context.document(named: pattern, in: category.id) {
      return [NamedDocument(shownName: text, document: exact)]
    }
    let prefix = text.lastIndex(of: "/").map { text[...$0] } ?? ""
    let matched = try context.documents(in: category.id).filter {
      fnmatch(pattern, $0.name.text, 0) == 0
    }
    guard !matched.isEmpty else { throw ShellError.nothingMatches(pattern, in: category.name.text) }
    return matched.map { NamedDocument(shownName: prefix + $0.name.text, document: $0) }
  }
}

extension Session {
  /// The documents `paths` name, each expanded as ``ShellPath/documents(in:from:)`` does,
  /// in order: a document named twice comes twice, as coreutils' `cat a a` prints it twice,
  /// unless `once` (for commands that change documents: `mv`, `cp`, `tag`).
  /// - Throws: what expanding a path throws, for the first that fails.
  func documents(named paths: [String], once: Bool = false) throws -> [NamedDocument] {
    var named: [NamedDocument] = []
    var seen: Set<ObjectID> = []
    for path in paths {
      for found in try ShellPath(path).documents(in: context, from: currentCategory)
      where !once || seen.insert(found.document.id).inserted {
        named.append(found)
      }
    }
    return named
  }

  /// The one document `path` names; a wildcard must match exactly one.
  /// - Throws: ``ShellError/matchesSeveral(_:count:)`` when a pattern matches more than one;
  ///   what ``ShellPath/documents(in:from:)`` throws.
  func document(named path: String) throws -> Document {
    let found = try ShellPath(path).documents(in: context, from: currentCategory)
    guard found.count == 1, let first = found.first else {
      throw ShellError.matchesSeveral(path, count: found.count)
    }
    return first.document
  }
}
