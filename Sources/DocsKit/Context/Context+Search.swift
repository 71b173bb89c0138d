/// What a content search looks for.
public enum ContentPattern: Sendable {
  /// A piece of text, matched literally.
  case text(String, ignoringCase: Bool)
  /// A regular expression (Swift `Regex` syntax), matched against each line.
  case regularExpression(String, ignoringCase: Bool)
}

/// One line of a document that matched a content search.
public struct ContentMatch: Hashable, Sendable {
  /// The document the line is in.
  public var document: Document
  /// The line's number, counting from 1.
  public var lineNumber: Int
  /// The line, without its newline.
  public var line: Substring
}

extension Context {
  /// The lines matching `pattern` in the documents of the category `id` (of every category
  /// when `nil`), sorted by category, document name and line.
  /// - Throws: ``ContextError/invalidPattern(_:reason:)`` for a regular expression that does
  ///   not compile, or a store error when a content cannot be read.
  public func searchContents(
    for pattern: ContentPattern, in id: ObjectID? = nil
  ) throws(ContextError) -> [ContentMatch] {
    let matchesLine = try lineMatcher(for: pattern)
    let candidates: [Document]
    if let id {
      candidates = documents(in: id)
    } else {
      candidates = documentRecords.values.map(\.document).sorted(by: categoryThenName)
    }
    var matches: [ContentMatch] = []
    for document in candidates {
      let content = try self.content(of: document.id)
      var lineNumber = 0
      // "\r\n" is one Character in Swift, so splitting at "\n" alone would leave files
      // with Windows line ends as one long line.
      for line in content.split(
        omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
      {
        lineNumber += 1
        if matchesLine(line) {
          matches.append(ContentMatch(document: document, lineNumber: lineNumber, line: line))
        }
      }
    }
    return matches
  }

  private func lineMatcher(
    for pattern: ContentPattern
  ) throws(ContextError) -> (Substring) -> Bool {
    switch pattern {
    case .text(let text, ignoringCase: false):
      return { $0.contains(text) }
    case .text(let text, ignoringCase: true):
      let needle = text.lowercased()
      return { $0.lowercased().contains(needle) }
    case .regularExpression(let source, let ignoringCase):
      let regex: Regex<AnyRegexOutput>
      do {
        regex = try Regex(source)
      } catch {
        throw .invalidPattern(source, reason: "\(error)")
      }
      let matcher = ignoringCase ? regex.ignoresCase() : regex
      return { (try? matcher.firstMatch(in: $0)) != nil }
    }
  }
}
