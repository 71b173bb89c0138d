#if canImport(Glibc)
  import Glibc
#endif

// Matching, ranking and snippets in Swift, token for token as the FTS5 index does it: for
// documents changed since the last save (the index holds their old text), for stores with
// no index, and for the snippets of every hit (the index keeps no text to cut them from).

// MARK: - Results

/// One document found by a ranked search.
public struct SearchHit: Hashable, Sendable {
  /// The document.
  public var document: Document
  /// How well it matches, between 0 and 1; higher is better.
  public var score: Double
  /// The ranges of the searched words in the document's name.
  public var nameHighlights: [Range<String.Index>]
  /// A one-line piece of the content around the best match.
  public var snippet: SearchSnippet
}

/// A one-line piece of a document's content, with the words that matched marked.
public struct SearchSnippet: Hashable, Sendable {
  /// The text: line breaks and tabs turned to spaces, `…` where it was cut.
  public var text: String
  /// The ranges of `text` that matched a searched word.
  public var highlights: [Range<String.Index>]
}

// MARK: - Tokenizing

/// Turns text into the folded tokens the index holds.
protocol SearchTokenizing: AnyObject {
  /// The tokens of `text`, in order.
  func tokens(of text: String) -> [FoldedToken]
}

/// The index's own `docsh` tokenizer, FTS5's, on a private in-memory database: what a store's
/// ranked search tokenizes a query's words and unsaved documents with, so that they match as
/// the saved ones do. A store makes it (``DocumentStore/makeSearchTokenizer()``).
public final class IndexTokenizer: SearchTokenizing {
  private let database: SQLiteDatabase
  private let tokenizer: FTSTokenizer
  private let fallback = ApproximateTokenizer()

  /// The tokenizer of `library`'s FTS5.
  /// - Throws: ``SearchUnavailable`` when SQLite cannot make one.
  init(library: any SQLiteLibrary) throws(SearchUnavailable) {
    do {
      database = try SQLiteDatabase(path: ":memory:", create: true, library: library)
      tokenizer = try library.makeTokenizer(database.connection)
    } catch {
      throw SearchUnavailable(reason: error.description)
    }
  }

  func tokens(of text: String) -> [FoldedToken] {
    // Made, the tokenizer fails only when SQLite cannot allocate the memory it works in (no
    // callback of ours fails). A search must not stop at that, nor crash: those tokens are
    // then approximated, accents kept and without stems.
    tokenizer.tokens(of: text) ?? fallback.tokens(of: text)
  }
}

/// Why a store cannot search: SQLite could not make the index's tokenizer.
public struct SearchUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
  /// What SQLite said.
  public var reason: String

  public var description: String { "the search tokenizer is not available: \(reason)" }
}

/// A stand-in for when SQLite's tokenizer fails on a text: letters, digits and private-use
/// characters make tokens, folded to lower case; accents are kept.
final class ApproximateTokenizer: SearchTokenizing {
  func tokens(of text: String) -> [FoldedToken] {
    var tokens: [FoldedToken] = []
    var current = ""
    var start = 0
    var offset = 0
    func flush() {
      if !current.isEmpty { tokens.append(FoldedToken(text: current, range: start..<offset)) }
      current = ""
    }
    for scalar in text.unicodeScalars {
      let width = UTF8.width(scalar)
      switch scalar.properties.generalCategory {
      case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
        .decimalNumber, .letterNumber, .otherNumber, .privateUse:
        if current.isEmpty { start = offset }
        current += scalar.properties.lowercaseMapping
      case .nonspacingMark, .spacingMark,
        .enclosingMark where !current.isEmpty:
        break
      default:
        flush()
      }
      offset += width
    }
    flush()
    return tokens
  }
}

// MARK: - A query ready to match

/// A ``SearchQuery`` turned into phrases of folded tokens.
struct CompiledQuery: Sendable {
  struct Phrase: Hashable, Sendable {
    var tokens: [String]
    var isPrefix: Bool
    /// Whether `tokens` (one) is a stem: it matches tokens whose stem it is.
    var isStem = false
  }

  /// Every phrase of the query, positive ones first.
  var phrases: [Phrase]
  /// Groups of indexes into `phrases`: each group must match.
  var required: [[Int]]
  /// Indexes of the excluded phrases.
  var excluded: [Int]

  /// The number of phrases that can match (not excluded).
  var positiveCount: Int { phrases.count - excluded.count }

  /// How matches are scored (IDFs not yet known).
  var ranking: RankingPlan
  /// For each ranking group, the phrases whose documents, summed, give its IDF.
  var countingPhrases: [[Int]]

  /// `query` in phrases of `tokenizer`'s tokens: the wanted phrases and how they rank (plain
  /// words, or groups of alternatives), then the excluded ones.
  /// - Throws: ``SearchQueryError/nothingSearchable(_:)`` for a term with no token.
  init(_ query: SearchQuery, tokenizer: any SearchTokenizing) throws(SearchQueryError) {
    var builder = Builder(tokenizer: tokenizer)
    if query.matchesAnyWord {
      try builder.addPlainWords(query.required.joined())
    } else {
      try builder.addGroups(query.required)
    }
    try builder.addExclusions(query.excluded)
    phrases = builder.phrases
    required = builder.required
    excluded = builder.excluded
    ranking = RankingPlan(
      groups: builder.groups, weights: builder.weights, queryCounts: builder.queryCounts)
    countingPhrases = builder.counting.map { group in group.compactMap { builder.indexes[$0] } }
  }

  /// The phrases, groups and weights of a query as they are found, term after term.
  private struct Builder {
    let tokenizer: any SearchTokenizing
    var phrases: [Phrase] = []
    var indexes: [Phrase: Int] = [:]
    var required: [[Int]] = []
    var excluded: [Int] = []
    // Ranking: the group (word) of each phrase, its weight, and each group's counting phrase.
    var groups: [Int] = []
    var weights: [Double] = []
    /// For each phrase, whether it is a word as typed (or a phrase, a prefix): it weighs 1.
    var typedForms: [Bool] = []
    var counting: [[Phrase]] = []
    var queryCounts: [Int] = []
    var groupOfStem: [String: Int] = [:]

    init(tokenizer: any SearchTokenizing) {
      self.tokenizer = tokenizer
    }

    /// The index of `term`'s phrase, added when new.
    mutating func index(of term: SearchQuery.Term) throws(SearchQueryError) -> Int {
      let tokens = tokenizer.tokens(of: term.text).map(\.text)
      guard !tokens.isEmpty else { throw .nothingSearchable(term.text) }
      let phrase = Phrase(tokens: tokens, isPrefix: term.isPrefix)
      if let known = indexes[phrase] { return known }
      phrases.append(phrase)
      indexes[phrase] = phrases.count - 1
      return phrases.count - 1
    }

    /// Groups of alternatives, each of which must match. A plain word among them is a word
    /// as in a query of plain words (its forms, one ranking group with every word sharing
    /// its stem), so that `a OR b` ranks as `a b` does; a phrase or a prefix matches as
    /// typed and ranks as a group of its own.
    mutating func addGroups(_ terms: [[SearchQuery.Term]]) throws(SearchQueryError) {
      for group in terms {
        var indexesOfGroup: [Int] = []
        for term in group {
          let tokens = tokenizer.tokens(of: term.text)
          if !term.isPhrase && !term.isPrefix && tokens.count == 1 {
            indexesOfGroup += addWord(tokens[0])
          } else {
            indexesOfGroup.append(try addPhrase(term, tokens: tokens))
          }
        }
        // A word typed twice in a group is one alternative.
        var seen = Set<Int>()
        required.append(indexesOfGroup.filter { seen.insert($0).inserted })
      }
    }

    /// A phrase or prefix (or a plain word of several tokens, as `e-mail` in an `OR`
    /// query): matched as typed, a ranking group of its own.
    private mutating func addPhrase(_ term: SearchQuery.Term, tokens: [FoldedToken])
      throws(SearchQueryError) -> Int
    {
      guard !tokens.isEmpty else { throw .nothingSearchable(term.text) }
      let phrase = Phrase(tokens: tokens.map(\.text), isPrefix: term.isPrefix)
      if let known = indexes[phrase] {
        if groups[known] >= 0 {
          queryCounts[groups[known]] += 1
          // Quoted, another form of a word typed beside it is typed too.
          typedForms[known] = true
          weights[known] = 1
        }
        return known
      }
      let group = counting.count
      counting.append([phrase])
      queryCounts.append(1)
      return add(phrase, group: group, weight: 1, isTypedForm: true)
    }

    /// Plain words, any of which matches. Each word also matches by its English stem: `plans`
    /// finds plan, planning and planned (the index marks the stem beside each token it differs
    /// from; a token that is its own stem stands for itself). The form as typed weighs more.
    /// Words sharing a stem are one word for ranking; its document count sums those of its
    /// stem as a token and marked (the form as typed holds the marked stem too), counting
    /// twice a document holding both.
    mutating func addPlainWords(_ terms: some Sequence<SearchQuery.Term>) throws(SearchQueryError) {
      var typed: [String] = []
      for term in terms {
        typed.append(term.text)
        for token in tokenizer.tokens(of: term.text) { _ = addWord(token) }
      }
      guard !phrases.isEmpty else { throw .nothingSearchable(typed.joined(separator: " ")) }
      required = [Array(phrases.indices)]
    }

    /// The phrases of one plain word, in the ranking group of its stem (a word typed again,
    /// or another form of one typed, counts once more for that group): the form as typed;
    /// the stem as a token; tokens whose stem it is. (Typed as its own stem, the token
    /// itself is the exact form.) Returns the indexes of its phrases.
    private mutating func addWord(_ token: FoldedToken) -> [Int] {
      let stem = token.stem ?? token.text
      let group: Int
      if let known = groupOfStem[stem] {
        group = known
        queryCounts[group] += 1
      } else {
        group = counting.count
        groupOfStem[stem] = group
        counting.append([])
        queryCounts.append(1)
      }
      // As the tokenizer marks stems: of ASCII tokens of three bytes or more.
      let stemmable =
        token.stem != nil || (stem.utf8.count >= 3 && stem.utf8.allSatisfy { $0 < 0x80 })
      var found = [
        add(
          Phrase(tokens: [token.text], isPrefix: false), group: group,
          weight: token.stem == nil ? 1 : 1 - RankingPlan.otherFormWeight, isTypedForm: true)
      ]
      if token.stem != nil {
        found.append(
          add(
            Phrase(tokens: [stem], isPrefix: false), group: group,
            weight: RankingPlan.otherFormWeight, isTypedForm: false))
      }
      if stemmable {
        found.append(
          add(
            Phrase(tokens: [stem], isPrefix: false, isStem: true), group: group,
            weight: RankingPlan.otherFormWeight, isTypedForm: false))
      }
      if counting[group].isEmpty {
        counting[group] =
          [Phrase(tokens: [stem], isPrefix: false)]
          + (stemmable ? [Phrase(tokens: [stem], isPrefix: false, isStem: true)] : [])
      }
      return found
    }

    /// The index of `phrase`, added to `group` when new; a phrase already there (a word
    /// typed twice, or the stem of one form typed as another) stays as it was.
    private mutating func add(_ phrase: Phrase, group: Int, weight: Double, isTypedForm: Bool)
      -> Int
    {
      if let known = indexes[phrase] {
        // A word's stem typed as a word of its own is a typed form too.
        if isTypedForm && groups[known] == group && !typedForms[known] {
          typedForms[known] = true
          weights[known] = 1
        }
        return known
      }
      phrases.append(phrase)
      indexes[phrase] = phrases.count - 1
      groups.append(group)
      weights.append(weight)
      typedForms.append(isTypedForm)
      return phrases.count - 1
    }

    /// The excluded terms, after every wanted one; they count for no group.
    mutating func addExclusions(_ terms: [SearchQuery.Term]) throws(SearchQueryError) {
      let positive = phrases.count
      for term in terms {
        let found = try index(of: term)
        if found < positive {
          // Both wanted and excluded: nothing can match; keep it excluded.
          excluded.append(found)
        } else if !excluded.contains(found) {
          excluded.append(found)
        }
      }
      while groups.count < phrases.count {
        groups.append(-1)
        weights.append(0)
        typedForms.append(false)
      }
    }
  }

  // MARK: Matching in Swift

  /// Where each phrase occurs in `tokens`: the index of its first token, per phrase.
  func occurrences(in tokens: [FoldedToken]) -> [[Int]] {
    var found = Array(repeating: [Int](), count: phrases.count)
    guard !tokens.isEmpty else { return found }
    for (index, phrase) in phrases.enumerated() {
      let count = phrase.tokens.count
      guard count <= tokens.count else { continue }
      for start in 0...(tokens.count - count) {
        var matches = true
        for offset in 0..<count {
          let wanted = phrase.tokens[offset]
          guard !phrase.isStem else {
            matches = tokens[start + offset].stem == wanted
            break
          }
          let token = tokens[start + offset].text
          let isLast = offset == count - 1
          if isLast && phrase.isPrefix ? !token.utf8.starts(with: wanted.utf8) : token != wanted {
            matches = false
            break
          }
        }
        if matches { found[index].append(start) }
      }
    }
    return found
  }

  /// Whether a document whose columns hold these occurrences matches the query.
  func matches(_ perPhraseCounts: [Int]) -> Bool {
    for index in excluded where perPhraseCounts[index] > 0 { return false }
    return required.allSatisfy { group in group.contains { perPhraseCounts[$0] > 0 } }
  }
}

// MARK: - Ranking

/// What bm25 needs to know of the whole collection.
public struct SearchStatistics: Sendable {
  /// How many documents the collection has.
  var documentCount: Int
  /// How many tokens all of their names hold.
  var nameTokenCount: Int
  /// How many tokens all of their contents hold.
  var contentTokenCount: Int
  /// For each ranking group of the query, how many documents hold its counting phrase.
  var groupDocumentCounts: [Int]

  /// The mean lengths of a name and a content in tokens.
  var averageLengths: ColumnLengths.Averages {
    let documents = Double(max(documentCount, 1))
    return ColumnLengths.Averages(
      name: Double(nameTokenCount) / documents, content: Double(contentTokenCount) / documents)
  }
}

/// The score a hit shows.
enum Ranking {
  /// The score a hit shows: the bm25 squeezed into 0…1.
  static func score(bm25: Double) -> Double {
    bm25 / (bm25 + 1)
  }
}

// MARK: - Snippets

enum Snippets {
  /// How many tokens a snippet holds at most.
  static let width = 16

  /// A one-line snippet of `text` around the best cluster of matches, and the ranges of the
  /// matched words (`matched` are indexes into `tokens`).
  static func make(from text: String, tokens: [FoldedToken], matched: Set<Int>) -> SearchSnippet {
    guard !tokens.isEmpty else {
      return SearchSnippet(text: oneLine(text, limit: 120), highlights: [])
    }
    var first = 0
    if let best = bestWindowStart(tokens: tokens, matched: matched) { first = best }
    let last = min(tokens.count, first + width) - 1
    let utf8 = Array(text.utf8)
    let start = first == 0 ? 0 : tokens[first].range.lowerBound
    let end = last == tokens.count - 1 ? utf8.count : tokens[last].range.upperBound
    var bytes: [UInt8] = []
    var highlightBytes: [Range<Int>] = []
    if start > 0 { bytes.append(contentsOf: "…".utf8) }
    var previousWasBlank = false
    var position = start
    var tokenIndex = first
    while position < end {
      if tokenIndex <= last, position == tokens[tokenIndex].range.lowerBound {
        let range = tokens[tokenIndex].range
        if matched.contains(tokenIndex) {
          highlightBytes.append(bytes.count..<(bytes.count + range.count))
        }
        bytes.append(contentsOf: utf8[range.clamped(to: 0..<utf8.count)])
        position = range.upperBound
        tokenIndex += 1
        previousWasBlank = false
        continue
      }
      let byte = utf8[position]
      if byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x20 {
        if !previousWasBlank { bytes.append(0x20) }
        previousWasBlank = true
      } else {
        bytes.append(byte)
        previousWasBlank = false
      }
      position += 1
    }
    while bytes.last == 0x20 { bytes.removeLast() }
    if end < utf8.count { bytes.append(contentsOf: "…".utf8) }
    return snippet(bytes: bytes, highlights: highlightBytes)
  }

  /// Ranges of the matched tokens of a name.
  static func highlights(in name: String, tokens: [FoldedToken], matched: Set<Int>)
    -> [Range<String.Index>]
  {
    matched.sorted().compactMap { index in
      guard index < tokens.count else { return nil }
      return range(of: tokens[index].range, in: name)
    }
  }

  private static func bestWindowStart(tokens: [FoldedToken], matched: Set<Int>) -> Int? {
    let sorted = matched.sorted()
    guard !sorted.isEmpty else { return nil }
    var best = sorted[0]
    var bestCount = 0
    var low = 0
    for (high, position) in sorted.enumerated() {
      while position - sorted[low] >= width - 4 { low += 1 }
      if high - low + 1 > bestCount {
        bestCount = high - low + 1
        best = sorted[low]
      }
    }
    // A little context before the first match.
    return max(0, min(best - 3, tokens.count - width))
  }

  private static func oneLine(_ text: String, limit: Int) -> String {
    var result = ""
    var previousWasBlank = false
    for character in text {
      if result.utf8.count >= limit {
        result += "…"
        break
      }
      if character.isNewline || character == "\t" || character == " " {
        if !previousWasBlank && !result.isEmpty { result.append(" ") }
        previousWasBlank = true
      } else {
        result.append(character)
        previousWasBlank = false
      }
    }
    while result.hasSuffix(" ") { result.removeLast() }
    return result
  }

  private static func snippet(bytes: [UInt8], highlights: [Range<Int>]) -> SearchSnippet {
    let text = String(decoding: bytes, as: UTF8.self)
    let ranges = highlights.compactMap { range(of: $0, in: text) }
    return SearchSnippet(text: text, highlights: ranges)
  }

  private static func range(of bytes: Range<Int>, in text: String) -> Range<String.Index>? {
    let utf8 = text.utf8
    guard bytes.upperBound <= utf8.count else { return nil }
    let lower = utf8.index(utf8.startIndex, offsetBy: bytes.lowerBound)
    let upper = utf8.index(utf8.startIndex, offsetBy: bytes.upperBound)
    guard let low = lower.samePosition(in: text.unicodeScalars),
      let high = upper.samePosition(in: text.unicodeScalars)
    else { return nil }
    return low..<high
  }
}
