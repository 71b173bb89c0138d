import DocsTestSupport
import Testing

@testable import DocsKit

/// The `docsh` tokenizer tokenizes ASCII words itself and hands the rest to unicode61, and
/// keeps the stems it found: its tokens must be those of unicode61 tokenizing everything.
@Suite struct TokenizerTests {
  /// Pieces of text that meet at every kind of boundary: ASCII words and punctuation, accents
  /// precomposed and combining, other scripts, blanks that are not ASCII, emoji, digits.
  static let pieces = [
    "Plan", "planning", "PLANNED", "x1", "2026", "a", "ab", "abc", "don't", "e-mail", " ", "  ",
    "\t", "\n", ".", ",", "\"", "(", "_", "*", "-", "Café", "café", "e\u{301}cole", "naïve",
    "Ελλάδα", "ΪΣΩ", "Йогурт", "日本語", "がっこう", "한국어", "Łódź", "Straße", "\u{A0}",
    "\u{2003}", "🙂", "👩🏾‍💻", "\u{301}", "ﬁne", "Ǆ", "İstanbul", "a\u{301}b", "ό", "ς",
    "relational", "conditional", "generalizations", "oscillators", "cats", "ponies",
  ]

  @Test func itsTokensAreUnicode61sOnMixedText() throws {
    let database = try SQLiteDatabase(path: ":memory:", create: true, library: SystemSQLite())
    let library = SystemSQLite()
    let fast = try library.makeTokenizer(database.connection)
    // `categories` given its default value: the same words, every one through unicode61.
    let reference = try library.makeTokenizer(
      database.connection, arguments: ["remove_diacritics", "2", "categories", "L* N* Co"])
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      let count = Int.random(in: 1...12, using: &generator)
      let text = (0..<count).map { _ in
        TokenizerTests.pieces.randomElement(using: &generator) ?? ""
      }.joined()
      let tokens = try #require(fast.tokens(of: text))
      #expect(tokens == reference.tokens(of: text), "\(text.debugDescription)")
    }
  }

  @Test func aStemFoundAgainIsTheStemmersOwn() throws {
    let database = try SQLiteDatabase(path: ":memory:", create: true, library: SystemSQLite())
    let tokenizer = try SystemSQLite().makeTokenizer(database.connection)
    let text = "relational conditional cats plan relational Conditional CATS plan"
    let tokens = try #require(tokenizer.tokens(of: text))
    #expect(
      tokens.map { $0.stem ?? "-" } == [
        "relat", "condit", "cat", "-", "relat", "condit", "cat", "-",
      ]
    )
    #expect(tokens[5].range == 44..<55)
  }

  /// A store that cannot make its tokenizer says so: a search never silently tokenizes
  /// otherwise than its index does.
  @Test func aTokenizerThatCannotBeMadeIsAnError() throws {
    let harness = try Harness()
    try harness.seed()
    let (context, _) = try harness.openIndexed(
      sqlite: NoTokenizerSQLite(), now: Harness.lateClock)
    let error = #expect(throws: ContextError.self) { try context.search(SearchQuery("content")) }
    #expect(
      error?.description
        == "search: the search tokenizer is not available: fts5: no tokenizer (code 11)")
    let (working, _) = try harness.openIndexed(now: Harness.lateClock)
    #expect(try !working.search(SearchQuery("content")).isEmpty)
  }
}

/// The real SQLite, except that it cannot make the tokenizer.
private final class NoTokenizerSQLite: ForwardingSQLite {
  let real = SystemSQLite()

  func makeTokenizer(_ connection: OpaquePointer) throws(SQLiteError) -> FTSTokenizer {
    throw SQLiteError(operation: "fts5", code: SQLiteError.corrupt, message: "no tokenizer")
  }
}
