import DocsKit

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
