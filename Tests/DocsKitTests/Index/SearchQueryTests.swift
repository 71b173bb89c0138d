import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

@Suite struct SearchQueryTests {
  @Test(arguments: [
    ("", SearchQueryError.empty), ("   ", .empty), ("\"open", .unterminatedQuote),
    ("OR plan", .misplacedOr), ("plan OR", .misplacedOr), ("a OR OR b", .misplacedOr),
    ("plan NOT", .nothingToExclude("NOT")), ("\"a plan\" -", .nothingToExclude("-")),
    ("-draft", .onlyExclusions), ("NOT draft", .onlyExclusions), ("- *", .nothingToExclude("-")),
    ("a OR -b", .exclusionInAlternative), ("*", .misplacedStar), ("a*b c*", .misplacedStar),
  ])
  func invalidQueriesSayWhatIsWrong(text: String, error: SearchQueryError) {
    #expect(throws: error) { try SearchQuery(text) }
    #expect(!error.description.contains("\n"))
  }

  @Test func parsesWordsPhrasesPrefixesAlternativesAndExclusions() throws {
    let query = try SearchQuery("plan \"two words\" draft* a OR b -old NOT gone")
    #expect(
      query.required.map { $0.map(\.description) } == [
        ["plan"], ["\"two words\""], ["draft*"], ["a", "b"],
      ])
    #expect(query.excluded.map(\.description) == ["old", "gone"])
  }

  @Test func whatIsTypedNeverBecomesFTS5Syntax() throws {
    let tokenizer = try IndexTokenizer(library: SystemSQLite())
    let query = try SearchQuery("name:x \"a\"\"b\" NEAR(c) ^d {content}")
    let compiled = try CompiledQuery(query, tokenizer: tokenizer)
    #expect(
      FullTextQuery(compiled).expression
        == "(\"name x\") AND (\"a\") AND (\"b\") AND (\"near c\") AND (\"d\") AND "
        + "(\"content\" OR \"\u{1}content\")")
    let harness = try Harness()
    let (context, _) = try harness.openIndexed()
    let error = #expect(throws: ContextError.self) { try context.search(SearchQuery("!!!")) }
    #expect(error?.description == "invalid search: \"!!!\" has no letters or digits to search for")
  }

  @Test func theSwiftTokenizerIsFTS5s() throws {
    let tokenizer = try IndexTokenizer(library: SystemSQLite())
    let tokens = tokenizer.tokens(of: "Café NAÏVE e\u{301}cole Łódź don't 日本語").map(\.text)
    #expect(tokens == ["cafe", "naive", "ecole", "łodz", "don", "t", "日本語"])
  }
}

/// On generated stores, `search WORD` with no limit finds exactly the documents whose name or
/// content holds WORD (or its stem) as a token, folded for case and accents (Foundation's
/// folding here).
@Suite struct SearchOracleTests {
  static let vocabulary = [
    "plan", "Plan", "PLAN", "café", "Cafe", "naïve", "naive", "résumé", "Zürich", "Kraków",
    "Dvořák", "São", "garden", "river", "日本語", "東京", "don't", "e-mail", "x1", "2026",
  ]

  /// The English stems of the searched words that differ from them: a word also finds its
  /// stem as a token (a name cut at 30 characters can end in one, "naïv"). No other word of
  /// the vocabulary shares a stem with one of them.
  static let stems = ["naive": "naiv", "resume": "resum"]

  static func tokens(_ text: String) -> Set<String> {
    var result = Set<String>()
    for piece in text.split(whereSeparator: { !($0.isLetter || $0.isNumber) }) {
      result.insert(
        String(piece).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
    }
    return result
  }

  @Test(arguments: [5, 6] as [UInt64])
  func searchFindsExactlyTheDocumentsHoldingTheWord(seed: UInt64) throws {
    var generator = SeededGenerator(seed: seed)
    let harness = try Harness("oracle\(seed)")
    func words() -> String {
      (0..<Int.random(in: 0...8, using: &generator)).map { _ in
        SearchOracleTests.vocabulary.randomElement(using: &generator) ?? ""
      }.joined(separator: [" ", ", ", "\n", ". "].randomElement(using: &generator) ?? " ")
    }
    let setup = try harness.openContext()
    for c in 0..<4 {
      let category = try setup.createCategory(named: "Cat \(c)")
      for d in 0..<30 {
        try setup.createDocument(
          named: "N\(d) "
            + words().prefix(30).trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "\n", with: " "), in: category.id, content: words())
      }
    }
    try setup.save()
    _ = try harness.openIndexed(now: Harness.lateClock)
    let (indexed, _) = try harness.openIndexed(now: Harness.lateClock)
    let plain = try harness.openContext()
    // Some unsaved changes, searched as they are now.
    let first = try #require(indexed.categories().first)
    let changed = try indexed.documents(in: first.id)
    try indexed.setContent("café plan 東京", of: changed[0].id)
    try indexed.deleteDocument(changed[1].id)
    try indexed.createDocument(named: "Brand new", in: first.id, content: "naïve Zürich")
    for word in [
      "plan", "cafe", "naive", "resume", "zurich", "krakow", "dvorak", "sao", "日本語", "東京", "don",
      "email", "x1", "2026", "garden",
    ] {
      for (context, label) in [(indexed, "indexed"), (plain, "plain")] {
        var expected = Set<ObjectID>()
        for category in context.categories() {
          for document in try context.documents(in: category.id) {
            let text = try context.content(of: document.id) + " " + document.name.text
            let tokens = SearchOracleTests.tokens(text)
            if tokens.contains(word) || SearchOracleTests.stems[word].map(tokens.contains) == true {
              expected.insert(document.id)
            }
          }
        }
        let found = Set(try context.search(SearchQuery(word), limit: 0).map(\.document.id))
        #expect(found == expected, "\(label) \(word)")
      }
    }
  }

  @Test func moreOccurrencesRankHigherAndANameWeighsMore() throws {
    let harness = try Harness()
    let setup = try harness.openContext()
    let category = try setup.createCategory(named: "C")
    try setup.createDocument(named: "once", in: category.id, content: "garden and other words here")
    try setup.createDocument(
      named: "thrice", in: category.id, content: "garden garden garden words here")
    try setup.createDocument(named: "Garden notes", in: category.id, content: "nothing about it")
    try setup.createDocument(named: "none", in: category.id, content: "nothing")
    try setup.save()
    for open in [
      { try harness.openIndexed(now: Harness.lateClock).0 }, { try harness.openContext() },
    ] {
      _ = try open()
      let hits = try open().search(SearchQuery("garden"))
      // One occurrence in a short name weighs more than one in a content of five words.
      #expect(hits.map(\.document.name.text) == ["thrice", "Garden notes", "once"])
      #expect(hits.map(\.score) == hits.map(\.score).sorted(by: >))
      // Scores are squeezed into 0…1.
      #expect(hits.allSatisfy { $0.score > 0 && $0.score < 1 })
      #expect(hits[1].nameHighlights.map { String(hits[1].document.name.text[$0]) } == ["Garden"])
      #expect(!hits[0].snippet.text.contains("\n"))
    }
  }

  /// With no name matching, the index lets FTS5 pick the best few itself: the same order as
  /// the scan's, a limit honoured, and a document changed in the session ranked by its new text.
  @Test func contentOnlyMatchesComeBestFirstWithinALimit() throws {
    let harness = try Harness()
    let setup = try harness.openContext()
    let category = try setup.createCategory(named: "C")
    let other = try setup.createCategory(named: "D")
    // Eight words each, so that only the number of occurrences tells them apart.
    func text(_ count: Int) -> String {
      (Array(repeating: "garden", count: count) + Array(repeating: "filler", count: 8 - count))
        .joined(separator: " ")
    }
    for (name, count) in [("one", 1), ("four", 4), ("two", 2), ("three", 3)] {
      try setup.createDocument(named: name, in: category.id, content: text(count))
    }
    try setup.createDocument(named: "elsewhere", in: other.id, content: text(5))
    try setup.createDocument(named: "none", in: category.id, content: "nothing")
    try setup.save()
    for open in [
      { try harness.openIndexed(now: Harness.lateClock).0 }, { try harness.openContext() },
    ] {
      _ = try open()
      let context = try open()
      let best = try context.search(SearchQuery("garden"), limit: 2)
      #expect(best.map(\.document.name.text) == ["elsewhere", "four"])
      let all = try context.search(SearchQuery("garden"), limit: 0)
      #expect(all.map(\.document.name.text) == ["elsewhere", "four", "three", "two", "one"])
      let inCategory = try context.search(SearchQuery("garden"), in: category.id, limit: 2)
      #expect(inCategory.map(\.document.name.text) == ["four", "three"])
      let one = try #require(try context.document(named: "one", in: category.id))
      try context.setContent(text(6), of: one.id)
      let changed = try context.search(SearchQuery("garden"), limit: 1)
      #expect(changed.map(\.document.name.text) == ["one"])
    }
  }

  /// Where the index picks the best few itself (rows that cannot reach the lowest kept are
  /// not scored exactly), the order is the full scan's: the typed form weighs inside the
  /// score, so a short document holding other forms many times ranks above a long one
  /// holding the word as typed once.
  @Test func theTypedFormIsASignalNotATierWithinALimit() throws {
    let harness = try Harness()
    let setup = try harness.openContext()
    let category = try setup.createCategory(named: "C")
    let many = Array(repeating: "plans planned", count: 20).joined(separator: " ")
    try setup.createDocument(named: "forms", in: category.id, content: many)
    let other = Array(repeating: "words", count: 40).joined(separator: " ")
    try setup.createDocument(named: "typed", in: category.id, content: "planning " + other)
    for filler in 0..<5 {
      try setup.createDocument(named: "plan \(filler)", in: category.id, content: "a plan")
    }
    try setup.save()
    for open in [
      { try harness.openIndexed(now: Harness.lateClock).0 }, { try harness.openContext() },
    ] {
      _ = try open()
      let context = try open()
      let all = try context.search(SearchQuery("planning"), limit: 0).map(\.document.name.text)
      #expect(all.count == 7)
      #expect(all.first == "forms")
      let typed = try #require(all.firstIndex(of: "typed"))
      #expect(typed > 0)
      for limit in 1...3 {
        #expect(
          try context.search(SearchQuery("planning"), limit: limit).map(\.document.name.text)
            == Array(all.prefix(limit)), "\(limit)")
      }
    }
  }
}
