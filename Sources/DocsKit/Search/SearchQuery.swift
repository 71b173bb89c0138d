/// A ranked full-text search as the user typed it, parsed: plain words, `"a phrase"`,
/// `prefix*`, `a OR b`, and `-word` / `NOT word` to leave documents out.
///
/// Plain words as typed (a question, say) find documents holding *any* of them, ranked so
/// that documents holding more of them, and rarer ones, come first (``matchesAnyWord``);
/// punctuation between or around them only separates words. Once the query uses `OR`, a
/// `"phrase"` or a `prefix*`, every word and group must match, as in `a "b c" d*`.
/// `-word` and `NOT word` leave documents out in both kinds of query.
///
/// Words are matched as the search index tokenizes text (letters and digits, ignoring case
/// and accents), so `cafe` finds `Café`. The query is kept as typed pieces; it is never
/// passed to SQLite as it stands, so nothing typed can be read as FTS5 syntax.
public struct SearchQuery: Hashable, Sendable, CustomStringConvertible {
  /// One piece to look for: a word or a quoted phrase, optionally a prefix.
  public struct Term: Hashable, Sendable, CustomStringConvertible {
    /// The text as typed (without quotes, `-` or `*`).
    public var text: String
    /// Whether it was quoted: all of its words in this order.
    public var isPhrase: Bool
    /// Whether it ended with `*`: its last word matches any word it begins.
    public var isPrefix: Bool

    public var description: String {
      (isPhrase ? "\"\(text)\"" : text) + (isPrefix ? "*" : "")
    }
  }

  /// Every group must match; a group matches when any one of its terms does (`a OR b`).
  /// For a query of plain words (``matchesAnyWord``) this is one group of every word.
  public var required: [[Term]]
  /// Whether the query is plain words only (besides exclusions): a document matches when it
  /// holds any of them, and the words of a term are words of their own (`e-mail` is `e`,
  /// `mail`).
  public var matchesAnyWord: Bool
  /// Documents holding any of these are left out.
  public var excluded: [Term]

  /// Parses `text` in docsh's search syntax.
  /// - Throws: ``SearchQueryError`` saying what is wrong, in one line.
  public init(_ text: String) throws(SearchQueryError) {
    var parser = Parser(text)
    (required, excluded, matchesAnyWord) = try parser.parse()
  }

  public var description: String {
    if matchesAnyWord {
      return (required.joined().map(\.description) + excluded.map { "-" + $0.description })
        .joined(separator: " ")
    }
    let groups = required.map { group in
      group.count == 1
        ? group[0].description : group.map(\.description).joined(separator: " OR ")
    }
    return (groups + excluded.map { "-" + $0.description }).joined(separator: " ")
  }
}

/// Why a search query was refused; its description is one line for the user.
public enum SearchQueryError: Error, Hashable, Sendable {
  /// Nothing but blanks.
  case empty
  /// A `"` that is not closed.
  case unterminatedQuote
  /// `OR` without a term on both sides.
  case misplacedOr
  /// `NOT` or `-` with no term after it.
  case nothingToExclude(String)
  /// Only exclusions: nothing to find.
  case onlyExclusions
  /// An exclusion inside an `OR`.
  case exclusionInAlternative
  /// A `*` that follows no word.
  case misplacedStar
  /// A term with no letters or digits (punctuation only).
  case nothingSearchable(String)
}

extension SearchQueryError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .empty:
      return "nothing to search for: give one or more words"
    case .unterminatedQuote:
      return "a quote (\") is not closed: write phrases as \"two words\""
    case .misplacedOr:
      return "OR needs a word on each side, as in: plan OR draft"
    case .nothingToExclude(let operator_):
      return
        "\(operator_) needs a word right after it, as in: \(operator_ == "NOT" ? "NOT " : "-")draft"
    case .onlyExclusions:
      return "a search needs at least one word to find, not only words to leave out"
    case .exclusionInAlternative:
      return "a word cannot be left out inside OR: put -word beside the alternatives"
    case .misplacedStar:
      return "* goes right after the start of a word, as in: plan*"
    case .nothingSearchable(let text):
      return "\"\(text)\" has no letters or digits to search for"
    }
  }
}

// MARK: - Parsing

private struct Parser {
  enum Token: Equatable {
    case term(SearchQuery.Term, negated: Bool)
    case or
    case not
    /// Punctuation an operator would refuse (a lone `-`, a misplaced `*`): an error in a
    /// query with operators, only a separator among plain words (`text` is what is left).
    case stray(String, SearchQueryError)
  }

  let scalars: [Unicode.Scalar]
  var position = 0

  init(_ text: String) {
    scalars = Array(text.unicodeScalars)
  }

  mutating func parse() throws(SearchQueryError) -> (
    [[SearchQuery.Term]], [SearchQuery.Term], Bool
  ) {
    var tokens: [Token] = []
    while let token = try nextToken() { tokens.append(token) }
    guard !tokens.isEmpty else { throw .empty }
    let hasOperators = tokens.contains { token in
      switch token {
      case .or: return true
      case .term(let term, negated: false): return term.isPhrase || term.isPrefix
      default: return false
      }
    }
    if !hasOperators { return try parsePlainWords(tokens) }
    var required: [[SearchQuery.Term]] = []
    var excluded: [SearchQuery.Term] = []
    var index = 0
    // Groups of alternatives: term (OR term)*; NOT term and -term stand alone.
    while index < tokens.count {
      switch tokens[index] {
      case .or:
        throw .misplacedOr
      case .stray(_, let error):
        throw error
      case .not:
        guard index + 1 < tokens.count, case .term(let term, let negated) = tokens[index + 1],
          !negated
        else { throw .nothingToExclude("NOT") }
        if index + 2 < tokens.count, tokens[index + 2] == .or { throw .exclusionInAlternative }
        excluded.append(term)
        index += 2
      case .term(let term, let negated):
        if negated {
          if index + 1 < tokens.count, tokens[index + 1] == .or { throw .exclusionInAlternative }
          excluded.append(term)
          index += 1
          continue
        }
        var group = [term]
        index += 1
        while index < tokens.count, tokens[index] == .or {
          guard index + 1 < tokens.count else { throw .misplacedOr }
          switch tokens[index + 1] {
          case .term(let next, let negated):
            if negated { throw .exclusionInAlternative }
            group.append(next)
          case .not: throw .exclusionInAlternative
          case .or: throw .misplacedOr
          case .stray(_, let error): throw error
          }
          index += 2
        }
        required.append(group)
      }
    }
    guard !required.isEmpty else { throw .onlyExclusions }
    return (required, excluded, false)
  }

  /// Plain words and exclusions: one group of every word; stray punctuation dropped.
  private func parsePlainWords(_ tokens: [Token]) throws(SearchQueryError) -> (
    [[SearchQuery.Term]], [SearchQuery.Term], Bool
  ) {
    var words: [SearchQuery.Term] = []
    var excluded: [SearchQuery.Term] = []
    var strayError: SearchQueryError?
    var index = 0
    while index < tokens.count {
      switch tokens[index] {
      case .term(let term, let negated):
        if negated { excluded.append(term) } else { words.append(term) }
      case .stray(let text, let error):
        strayError = strayError ?? error
        if !text.isEmpty {
          words.append(SearchQuery.Term(text: text, isPhrase: false, isPrefix: false))
        }
      case .not:
        guard index + 1 < tokens.count, case .term(let term, false) = tokens[index + 1] else {
          throw .nothingToExclude("NOT")
        }
        excluded.append(term)
        index += 1
      case .or:
        throw .misplacedOr
      }
      index += 1
    }
    guard !words.isEmpty else { throw excluded.isEmpty ? strayError ?? .empty : .onlyExclusions }
    return ([words], excluded, true)
  }

  private func isBlank(_ scalar: Unicode.Scalar) -> Bool {
    scalar.properties.isWhitespace || scalar.value < 0x20
  }

  private mutating func nextToken() throws(SearchQueryError) -> Token? {
    while position < scalars.count, isBlank(scalars[position]) { position += 1 }
    guard position < scalars.count else { return nil }
    var negated = false
    if scalars[position] == "-" {
      negated = true
      position += 1
      guard position < scalars.count, !isBlank(scalars[position]) else {
        return .stray("", .nothingToExclude("-"))
      }
    }
    if scalars[position] == "\"" {
      position += 1
      var text = String.UnicodeScalarView()
      while position < scalars.count, scalars[position] != "\"" {
        text.append(scalars[position])
        position += 1
      }
      guard position < scalars.count else { throw .unterminatedQuote }
      position += 1
      var isPrefix = false
      if position < scalars.count, scalars[position] == "*" {
        isPrefix = true
        position += 1
      }
      return .term(
        SearchQuery.Term(text: String(text), isPhrase: true, isPrefix: isPrefix), negated: negated)
    }
    var word = String.UnicodeScalarView()
    while position < scalars.count, !isBlank(scalars[position]), scalars[position] != "\"" {
      word.append(scalars[position])
      position += 1
    }
    var text = String(word)
    if !negated && text == "OR" { return .or }
    if !negated && text == "NOT" { return .not }
    var isPrefix = false
    if text.hasSuffix("*") {
      isPrefix = true
      text.removeLast()
    }
    if text.isEmpty || text.contains("*") {
      let words = String(text.map { $0 == "*" ? " " : $0 })
      return .stray(negated ? "" : words, .misplacedStar)
    }
    return .term(
      SearchQuery.Term(text: text, isPhrase: false, isPrefix: isPrefix), negated: negated)
  }
}
