import DocsTestSupport
import Testing

@testable import DocsKit

/// Words as typed: a question finds the documents holding any of its words, those holding
/// all of them first, then most; the index and the Swift engine agree.
@Suite struct PlainWordsTests {
  @Test func plainWordsAndPunctuationMakeAnAnyWordQuery() throws {
    let question = try SearchQuery("what is the aerodynamic heating of a wing? - (a*b)")
    #expect(question.matchesAnyWord)
    #expect(question.description == "what is the aerodynamic heating of a wing? (a b)")
    #expect(try SearchQuery("plan -draft NOT old").matchesAnyWord)
    #expect(try SearchQuery("plan -draft").excluded.map(\.text) == ["draft"])
    for operators in ["plan OR draft", "\"a plan\" b", "plan* b"] {
      #expect(try !SearchQuery(operators).matchesAnyWord, "\(operators)")
    }
    let tokenizer = try IndexTokenizer(library: SystemSQLite())
    let compiled = try CompiledQuery(
      SearchQuery("e-mail, heating? heating"), tokenizer: tokenizer)
    #expect(compiled.required == [[0, 1, 2]])
    #expect(compiled.matchExpression == "(\"e\" OR \"mail\" OR \"heating\")")
    #expect(throws: SearchQueryError.nothingSearchable("? !!")) {
      try CompiledQuery(SearchQuery("? !!"), tokenizer: tokenizer)
    }
  }

  @Test func aQuestionRanksDocumentsHoldingAllItsWordsFirstThenMost() throws {
    let harness = try Harness()
    let setup = try harness.openContext()
    let category = try setup.createCategory(named: "C")
    // Eight words each, so that only which words they hold tells them apart.
    let rows = [
      ("all", "aerodynamic heating of the swept wing at speed"),
      ("two", "aerodynamic heating of the swept body at speed"),
      ("one", "aerodynamic drag of the swept body at speed"),
      ("none", "laminar drag of the swept body at speed"),
    ]
    for (name, content) in rows {
      try setup.createDocument(named: name, in: category.id, content: content)
    }
    for filler in 0..<12 {
      try setup.createDocument(
        named: "filler \(filler)", in: category.id, content: "nothing here to find at all")
    }
    try setup.save()
    for open in [
      { try harness.openIndexed(now: Harness.lateClock).0 }, { try harness.openContext() },
    ] {
      _ = try open()
      let context = try open()
      let query = try SearchQuery("What is the aerodynamic heating of a wing?")
      let hits = try context.search(query, limit: 0)
      #expect(hits.prefix(3).map(\.document.name.text) == ["all", "two", "one"])
      // "the", "of" and "a" are words too: "none" and the fillers hold some of them.
      #expect(hits.map(\.document.name.text).contains("none"))
      #expect(hits.map(\.score) == hits.map(\.score).sorted(by: >))
      // An unsaved document holding every word is matched as it is now, and ranks first.
      let none = try #require(context.document(named: "none", in: category.id))
      try context.setContent("aerodynamic heating of the swept wing at speed", of: none.id)
      let changed = try context.search(query, limit: 2)
      #expect(Set(changed.map(\.document.name.text)) == ["all", "none"])
      #expect(try context.search(SearchQuery("heating -wing"), limit: 0).map(\.document.name.text)
        == ["two"])
    }
  }

  /// "the" in a name does not put a document first; a searched word that says something does.
  @Test func onlyAnInformativeWordInANameRanksItFirst() throws {
    let harness = try Harness()
    let setup = try harness.openContext()
    let category = try setup.createCategory(named: "C")
    try setup.createDocument(named: "The Hobbit", in: category.id, content: "a story")
    try setup.createDocument(
      named: "notes", in: category.id, content: "how to plan the garden this year")
    try setup.createDocument(named: "Garden", in: category.id, content: "roses")
    try setup.save()
    for open in [
      { try harness.openIndexed(now: Harness.lateClock).0 }, { try harness.openContext() },
    ] {
      _ = try open()
      let hits = try open().search(SearchQuery("how to plan the garden"), limit: 0)
      #expect(hits.map(\.document.name.text) == ["Garden", "notes", "The Hobbit"])
      #expect(hits.map(\.matchesName) == [true, false, false])
    }
  }
}
