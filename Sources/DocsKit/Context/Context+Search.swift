/// What a content search looks for, and which lines it keeps.
public struct ContentPattern: Sendable {
  /// How a pattern's source is read.
  public enum Syntax: Sendable {
    /// A piece of text, matched literally.
    case text
    /// A regular expression in RE2's syntax (POSIX extended, as `grep -E`, with Perl's
    /// classes), matched against each line in linear time.
    case regularExpression
  }

  /// The pattern as the user wrote it.
  public var source: String
  /// How ``source`` is read.
  public var syntax: Syntax
  /// Whether case is ignored (Unicode's simple case folding, see ``CaseFolder``).
  public var ignoresCase: Bool
  /// Whether a match counts only when neither of its ends is next to a word character (a
  /// letter, a digit or `_`), as `grep -w`.
  public var matchesWholeWords: Bool
  /// Whether the lines kept are those that do not match, as `grep -v`.
  public var selectsNonMatchingLines: Bool

  /// A pattern of `source` read as `syntax`.
  public init(
    _ source: String, syntax: Syntax, ignoringCase: Bool, wholeWords: Bool = false,
    nonMatchingLines: Bool = false
  ) {
    self.source = source
    self.syntax = syntax
    ignoresCase = ignoringCase
    matchesWholeWords = wholeWords
    selectsNonMatchingLines = nonMatchingLines
  }

  /// A piece of text, matched literally.
  public static func text(
    _ text: String, ignoringCase: Bool, wholeWords: Bool = false, nonMatchingLines: Bool = false
  ) -> ContentPattern {
    ContentPattern(
      text, syntax: .text, ignoringCase: ignoringCase, wholeWords: wholeWords,
      nonMatchingLines: nonMatchingLines)
  }

  /// A regular expression (see ``Syntax/regularExpression``).
  public static func regularExpression(
    _ source: String, ignoringCase: Bool, wholeWords: Bool = false,
    nonMatchingLines: Bool = false
  ) -> ContentPattern {
    ContentPattern(
      source, syntax: .regularExpression, ignoringCase: ignoringCase, wholeWords: wholeWords,
      nonMatchingLines: nonMatchingLines)
  }
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

/// The lines of one document that matched a content search, held as their UTF-8 bytes (no
/// string per line: what `grep` prints hundreds of thousands of).
public struct MatchingLines: Sendable {
  /// The document the lines are in.
  public var document: Document
  let lines: LineBuffer

  /// How many lines matched.
  public var count: Int { lines.count }

  /// How many bytes the lines hold together, line breaks left out.
  public var byteCount: Int { lines.bytes.count }

  /// Calls `body` with each line's number (counting from 1) and its UTF-8 bytes (valid
  /// UTF-8, without its line break), in order.
  public func forEachLine(_ body: (Int, UnsafeRawBufferPointer) throws -> Void) rethrows {
    try lines.forEach(body)
  }

  /// The lines as one ``ContentMatch`` each.
  public var matches: [ContentMatch] {
    var matches: [ContentMatch] = []
    matches.reserveCapacity(count)
    forEachLine { number, bytes in
      matches.append(
        ContentMatch(
          document: document, lineNumber: number,
          line: String(decoding: bytes, as: UTF8.self)[...]))
    }
    return matches
  }
}

/// A document that matched a content search, with how many of its lines match.
public struct ContentMatchCount: Hashable, Sendable {
  /// The document.
  public var document: Document
  /// How many of its lines match: 1 or more.
  public var lineCount: Int
}

// Which documents are searched is decided here; how their lines are matched is
// ContentSearcher's business, and the store's for the contents it holds
// (Store/ContentSearch.swift, Store/StoredContentSearch.swift).

extension Context {
  /// The lines matching `pattern` in the documents of the category `id` (of every category
  /// when `nil`), sorted by category, document name and line.
  ///
  /// Lines are split at `\n` (a `\r` before it dropped; the piece after a final `\n` is a
  /// line) and compared as UTF-8, without normalization; ignoring case compares scalars
  /// folded as ``CaseFolder`` describes. Regular expressions run on RE2, in time linear in
  /// the text (see ``ContentPattern/Syntax/regularExpression``).
  /// - Throws: ``ContextError/invalidPattern(_:reason:)`` for a regular expression that does
  ///   not compile, a store error when a content cannot be read, or
  ///   ``ContextError/interrupted`` when the context's interruption asks it to stop (checked
  ///   before each document).
  public func searchContents(
    for pattern: ContentPattern, in id: ObjectID? = nil, taggedWith tags: [Tag] = []
  ) throws(ContextError) -> [ContentMatch] {
    try matchingLines(for: pattern, in: id, taggedWith: tags).flatMap(\.matches)
  }

  /// The lines matching `pattern`, as ``searchContents(for:in:taggedWith:)`` finds them, one
  /// value per document: their bytes together, no string or value per line.
  /// - Throws: as ``searchContents(for:in:taggedWith:)``.
  public func matchingLines(
    for pattern: ContentPattern, in id: ObjectID? = nil, taggedWith tags: [Tag] = []
  ) throws(ContextError) -> [MatchingLines] {
    var found = try matchingDocuments(for: pattern, in: id, mode: .lines, taggedWith: tags)
    // Moved out one by one rather than copied (a copy retains each of its arrays).
    found.reverse()
    var matches: [MatchingLines] = []
    matches.reserveCapacity(found.count)
    while let (document, hits) = found.popLast() {
      matches.append(MatchingLines(document: document, lines: hits.lines))
    }
    return matches
  }

  /// The documents of the category `id` (of every category when `nil`) with a line
  /// matching `pattern`, each once, sorted by category and name (`grep -l`). Each document
  /// is read only up to its first matching line.
  /// - Throws: as ``searchContents(for:in:taggedWith:)``.
  public func documents(
    withContentMatching pattern: ContentPattern, in id: ObjectID? = nil,
    taggedWith tags: [Tag] = []
  ) throws(ContextError) -> [Document] {
    try matchingDocuments(for: pattern, in: id, mode: .documents, taggedWith: tags)
      .map(\.document)
  }

  /// The documents of the category `id` (of every category when `nil`) with a line
  /// matching `pattern`, each with how many of its lines match, sorted by category and name
  /// (`grep -c`).
  /// - Throws: as ``searchContents(for:in:taggedWith:)``.
  public func countMatchingLines(
    for pattern: ContentPattern, in id: ObjectID? = nil, taggedWith tags: [Tag] = []
  ) throws(ContextError) -> [ContentMatchCount] {
    try matchingDocuments(for: pattern, in: id, mode: .counts, taggedWith: tags).map {
      ContentMatchCount(document: $0.document, lineCount: $0.hits.lineCount)
    }
  }

  /// The documents in scope that match, with what the engine found in each, sorted by
  /// category and name.
  private func matchingDocuments(
    for pattern: ContentPattern, in id: ObjectID?, mode: ContentSearchMode, taggedWith tags: [Tag]
  ) throws(ContextError) -> [(document: Document, hits: DocumentHits)] {
    let searcher = try ContentSearcher(pattern: pattern, mode: mode)
    // Which documents: loaded ones from memory, those of categories not loaded from the
    // store, without loading them into the graph; with tags, only those holding them all.
    var candidates = try contentSearchCandidates(in: id)
    if !tags.isEmpty {
      let keys = tags.map(\.key)
      candidates = candidates.filter { $0.document.holdsAll(keys) }
    }
    // Contents in memory are searched as they are; those still in the file are handed over
    // by the store in one sequential pass, as it spells them.
    var found: [(document: Document, hits: DocumentHits)] = []
    var faults: [(document: Document, location: StoredLocation)] = []
    faults.reserveCapacity(candidates.count)
    for candidate in candidates {
      try checkForInterruption(.contentSearch)
      switch candidate.content {
      case .fault(let location): faults.append((candidate.document, location))
      case .text(let text):
        do {
          if let hits = try store.searchContent(text, with: searcher) {
            found.append((candidate.document, hits))
          }
        } catch {
          throw .store(error)
        }
      }
    }
    do {
      try store.searchContents(
        at: faults.map(\.location), with: searcher,
        checkingBeforeEach: { () throws(ContextError) in
          try checkForInterruption(.contentSearch)
        },
        found: { position, hits in found.append((faults[position].document, hits)) })
    } catch {
      throw error.unwrapped(ContextError.store)
    }
    return sortedByCategoryAndName(found)
  }

  /// `found` sorted as listings sort documents: by category name, then document name. The
  /// categories are put in order once, so that comparing two documents compares numbers
  /// before names.
  private func sortedByCategoryAndName(
    _ found: [(document: Document, hits: DocumentHits)]
  ) -> [(document: Document, hits: DocumentHits)] {
    let categories = Set(found.map(\.document.categoryID)).sorted { left, right in
      guard let leftName = categoryRecords[left]?.category.name,
        let rightName = categoryRecords[right]?.category.name
      else { return left < right }
      return Context.nameOrder(leftName, rightName)
    }
    let rank = Dictionary(
      uniqueKeysWithValues: categories.enumerated().map { ($0.element, $0.offset) })
    // Offsets are sorted, not the matches themselves, which are large to move; and the
    // names are read once (reading one through `found[i]` copies its whole element).
    let ranks = found.map { rank[$0.document.categoryID] ?? 0 }
    let names = found.map(\.document.name)
    let order = found.indices.sorted { left, right in
      ranks[left] != ranks[right]
        ? ranks[left] < ranks[right] : Context.nameOrder(names[left], names[right])
    }
    // Documents usually come in order already (the store keeps them so).
    if order.elementsEqual(found.indices) { return found }
    return order.map { found[$0] }
  }
}
