import DocsKit

#if canImport(Glibc)
  import Glibc
#endif

/// Tab completion: command names for the first word, then what each command takes —
/// categories, documents and paths, files for `source`, commands for `help`.
struct Completer {
  let session: Session

  /// The replacements for the word before the cursor, escaped for the line editor.
  func complete(lineBeforeCursor: String, word: String) -> [String] {
    let context = CompletionContext(lineBeforeCursor: lineBeforeCursor, wordBeingCompleted: word)
    guard !context.isInComment else { return [] }
    // `[[` in the word (quoted or not), not closed yet: a link's target, whatever the command.
    if let link = linkTargets(context.partialWord) {
      return context.replacements(for: link, closingQuote: false)
    }
    return context.replacements(
      for: candidates(after: context.precedingWords, partial: context.partialWord))
  }

  /// The full words that could stand where `partial` is typed, unescaped: command names
  /// first; then what the command's declaration says — its options after a `-`, the values
  /// an option allows after it, and what each positional argument names.
  func candidates(after words: [String], partial: String) -> [String] {
    guard let commandName = words.first else {
      return matching(CommandRegistry.allNames, partial)
    }
    guard let command = CommandRegistry.command(named: commandName) else { return [] }
    let arguments = command.configuration.arguments
    let typed = Array(words.dropFirst())
    if let last = typed.last, arguments.placement != .none,
      let option = arguments.option(takingTheWordAfter: last)
    {
      if option.allowedValues.isEmpty, option.valueKind == .tag { return tagNames(partial) }
      if option.allowedValues.isEmpty, option.valueKind == .template {
        return templateNames(partial)
      }
      return matching(option.allowedValues, partial)
    }
    let position = arguments.positionalCount(in: typed)
    if partial.hasPrefix("-") && arguments.placement != .none
      && !(arguments.placement != .anywhere && position > 0)
    {
      return matching(arguments.optionNames, partial)
    }
    switch arguments.kind(ofPositionalAt: position) {
    case .command?: return matching(CommandRegistry.allNames, partial)
    case .category?: return categoryPaths(partial)
    case .document?: return documentPaths(partial)
    case .file?: return filePaths(partial)
    case .tag?: return tagNames(partial)
    case .template?: return templateNames(partial)
    case .text?, nil: return []
    }
  }

  /// The names of the templates (the documents of the templates category) starting with
  /// `partial`.
  private func templateNames(_ partial: String) -> [String] {
    guard let category = session.context.category(named: session.noteSettings.templatesCategory)
    else { return [] }
    return matching(
      ((try? session.context.documents(in: category.id)) ?? []).map(\.name.text), partial)
  }

  /// The full words completing a link being typed at the end of `word` (after its last
  /// `[[`, with no `]]` after it), each closed with `]]`: the names of documents, bare where
  /// the name reaches that document from the current category (its own, or the only one of
  /// that name), `Category/Name` where it does not; after a `/`, that category's documents.
  /// `nil` when the word holds no open link.
  func linkTargets(_ word: String) -> [String]? {
    let bytes = Array(word.utf8)
    guard
      let open = bytes.indices.dropLast().last(where: {
        bytes[$0] == UInt8(ascii: "[") && bytes[$0 + 1] == UInt8(ascii: "[")
      })
    else { return nil }
    let head = String(decoding: bytes[...(open + 1)], as: UTF8.self)
    var typed = String(decoding: bytes[(open + 2)...], as: UTF8.self)
    guard !typed.contains("]") else { return nil }
    var absolute = ""
    if typed.hasPrefix("/") {
      absolute = "/"
      typed.removeFirst()
    }
    // A heading or shown text is the user's to type.
    guard !typed.contains("#"), !typed.contains("|") else { return [] }
    let context = session.context
    var paths: [String] = []
    if let slash = typed.firstIndex(of: "/") {
      guard let category = context.category(named: String(typed[..<slash])) else { return [] }
      let documents = (try? context.documents(in: category.id)) ?? []
      paths = documents.map { category.name.text + "/" + $0.name.text }
    } else {
      let documents = (try? context.documents(nameContaining: typed)) ?? []
      var sharing: [NameKey: Int] = [:]
      for document in documents { sharing[document.name.key, default: 0] += 1 }
      let current = session.currentCategory?.id
      for document in documents {
        // Its own category's, or the only one of its name (then the current category has
        // none of its own).
        let reaches =
          absolute.isEmpty
          && (document.categoryID == current || sharing[document.name.key] == 1)
        if reaches {
          paths.append(document.name.text)
        } else if let category = context.category(withID: document.categoryID) {
          paths.append(category.name.text + "/" + document.name.text)
        }
      }
    }
    if typed.contains("/") {
      return matching(paths.map { head + absolute + $0 + "]]" }, head + absolute + typed)
    }
    // By the name typed, though an ambiguous one is offered with its category.
    let prefix = typed.lowercased()
    return
      paths
      .filter { ($0.split(separator: "/").last ?? "").lowercased().hasPrefix(prefix) }
      .sorted().map { head + absolute + $0 + "]]" }
  }

  /// The tags of the store starting with `partial`, ignoring case and accents.
  private func tagNames(_ partial: String) -> [String] {
    let prefix = TagKey(partial).folded
    let tags = (try? session.context.tags()) ?? []
    return tags.map(\.tag).filter { $0.key.folded.hasPrefix(prefix) }.map(\.text)
  }

  private func categoryPaths(_ partial: String) -> [String] {
    // `~/` is the top, as `/` is (for paths in the store, not files).
    if partial.hasPrefix("~/") { return categoryPaths("/" + partial.dropFirst(2)).map { "~" + $0 } }
    let prefix = partial.hasPrefix("/") ? "/" : ""
    let names = session.context.categories().map { prefix + $0.name.text + "/" }
    return matching(names + (prefix.isEmpty && partial.hasPrefix(".") ? ["../"] : []), partial)
  }

  private func documentPaths(_ partial: String) -> [String] {
    if partial.hasPrefix("~/") { return documentPaths("/" + partial.dropFirst(2)).map { "~" + $0 } }
    if let slash = partial.lastIndex(of: "/") {
      let head = String(partial[...slash])
      switch try? session.resolve(head) {
      case .category(let category)?:
        let names = ((try? session.context.documents(in: category.id)) ?? []).map {
          head + $0.name.text
        }
        return matching(names, partial)
      case .top?:
        // `/Wo`, `../Wo`: the categories on the way to a document.
        let names = session.context.categories().map { head + $0.name.text + "/" }
        return matching(names, partial)
      default:
        return []
      }
    }
    var names: [String] = []
    if let current = session.currentCategory {
      names = ((try? session.context.documents(in: current.id)) ?? []).map(\.name.text)
    } else {
      names = session.context.categories().map { $0.name.text + "/" }
    }
    return matching(names, partial)
  }

  private func filePaths(_ partial: String) -> [String] {
    let slash = partial.lastIndex(of: "/")
    let head = slash.map { String(partial[...$0]) } ?? ""
    let folder = head.isEmpty ? "." : head
    guard let directory = opendir(folder) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      }
      guard name != ".", name != ".." else { continue }
      let isFolder = entry.pointee.d_type == UInt8(DT_DIR)
      names.append(head + name + (isFolder ? "/" : ""))
    }
    return matching(names, partial)
  }

  /// The names starting with `partial`; ignoring case only when none matches exactly.
  private func matching(_ names: [String], _ partial: String) -> [String] {
    let exact = names.filter { $0.hasPrefix(partial) }
    if !exact.isEmpty || partial.isEmpty { return exact.sorted() }
    let folded = partial.lowercased()
    return names.filter { $0.lowercased().hasPrefix(folded) }.sorted()
  }
}
