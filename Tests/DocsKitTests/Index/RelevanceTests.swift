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
    // Each word as typed, its stem as a token, and tokens marked with it as their stem
    // (U+0001); "e" is too short for a stem.
    #expect(compiled.required == [[0, 1, 2, 3, 4, 5]])
    #expect(
      FullTextQuery(compiled).expression
        == "(\"e\" OR \"mail\" OR \"\u{1}mail\" OR \"heating\" OR \"heat\" OR \"\u{1}heat\")")
    #expect(compiled.ranking.groups == [0, 1, 1, 2, 2, 2])
    #expect(
      FullTextQuery(compiled).counting == [
        .terms(["e"]), .terms(["mail", "\u{1}mail"]), .terms(["heat", "\u{1}heat"]),
      ])
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
      let none = try #require(try context.document(named: "none", in: category.id))
      try context.setContent("aerodynamic heating of the swept wing at speed", of: none.id)
      let changed = try context.search(query, limit: 2)
      #expect(Set(changed.map(\.document.name.text)) == ["all", "none"])
      #expect(
        try context.search(SearchQuery("heating -wing"), limit: 0).map(\.document.name.text)
          == ["two"])
    }
  }

  /// A name holding the word weighs more than a content holding it (BM25F, the name's
  /// frequency weighted more); a name is no tier of its own.
  @Test func aNameHoldingTheWordWeighsMoreThanAContent() throws {
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
      let hits = try open().search(SearchQuery("garden"), limit: 0)
      #expect(hits.map(\.document.name.text) == ["Garden", "notes"])
    }
  }

  /// `a OR b` is the query `a b`: the same phrases, one group of alternatives, the same plan.
  @Test func alternativesOfPlainWordsAreThePlainWords() throws {
    let tokenizer = try IndexTokenizer(library: SystemSQLite())
    let plain = try CompiledQuery(SearchQuery("heating wing heating"), tokenizer: tokenizer)
    let alternatives = try CompiledQuery(
      SearchQuery("heating OR wing OR heating"), tokenizer: tokenizer)
    #expect(alternatives.phrases == plain.phrases)
    #expect(alternatives.required == plain.required)
    #expect(alternatives.ranking == plain.ranking)
    // "heating" twice: its group counts twice.
    #expect(plain.ranking.queryCounts == [2, 1])
    // A phrase keeps to itself, as typed; the plain word beside it still has its forms.
    let mixed = try CompiledQuery(SearchQuery("\"swept wing\" OR heating"), tokenizer: tokenizer)
    #expect(mixed.phrases.map(\.tokens) == [["swept", "wing"], ["heating"], ["heat"], ["heat"]])
    // The forms as typed weigh 1 (a typed word's stem counts the rest), other forms less.
    let other = RankingPlan.otherFormWeight
    #expect(mixed.ranking.weights == [1, 1 - other, other, other])
  }
}

/// `plans` finds plan, planning and planned (English Porter stems), the word as typed first.
@Suite struct StemmingTests {
  @Test func theTokenizerKeepsEachWordAndItsStem() throws {
    let tokenizer = try IndexTokenizer(library: SystemSQLite())
    let tokens = tokenizer.tokens(of: "Plans planning plan the café")
    #expect(tokens.map(\.text) == ["plans", "planning", "plan", "the", "cafe"])
    #expect(tokens.map(\.stem) == ["plan", "plan", nil, nil, nil])
  }

  @Test func aWordFindsItsOtherFormsAndTheFormAsTypedRanksFirst() throws {
    let harness = try Harness()
    let setup = try harness.openContext()
    let category = try setup.createCategory(named: "C")
    for (name, content) in [
      ("typed", "plans for the year"), ("base", "a plan for the year"),
      ("ing", "planning for the year"), ("ed", "planned for the year"),
      ("other", "planets for the year"),
    ] {
      try setup.createDocument(named: name, in: category.id, content: content)
    }
    for filler in 0..<10 {
      try setup.createDocument(named: "filler \(filler)", in: category.id, content: "nothing")
    }
    try setup.save()
    for open in [
      { try harness.openIndexed(now: Harness.lateClock).0 }, { try harness.openContext() },
    ] {
      _ = try open()
      let context = try open()
      let plans = try context.search(SearchQuery("plans"), limit: 0).map(\.document.name.text)
      #expect(plans.first == "typed")
      #expect(Set(plans) == ["typed", "base", "ing", "ed"])
      let plan = try context.search(SearchQuery("plan"), limit: 0).map(\.document.name.text)
      #expect(plan.first == "base")
      #expect(Set(plan) == ["typed", "base", "ing", "ed"])
      // Beside a phrase, a plain word still finds its other forms, the one typed first.
      let withPhrase = try context.search(SearchQuery("\"for the\" plans"), limit: 0)
        .map(\.document.name.text)
      #expect(withPhrase.first == "typed")
      #expect(Set(withPhrase) == ["typed", "base", "ing", "ed"])
      #expect(
        try context.search(SearchQuery("\"for the\" plans*"), limit: 0).map(\.document.name.text)
          == ["typed"])
      let hit = try #require(try context.search(SearchQuery("planned"), limit: 0).first)
      #expect(hit.snippet.highlights.map { String(hit.snippet.text[$0]) } == ["planned"])
    }
  }
}

/// Accents fold in every script, the same for the index and for a query.
@Suite struct AccentFoldingTests {
  @Test(arguments: [
    ("ελλάδα", "ελλαδα"), ("ϊ", "ι"), ("ΐ", "ι"), ("ώρα", "ωρα"), ("é", "e"), ("å", "a"),
    ("й", "и"), ("ё", "е"), ("ς", "σ"), ("e\u{301}", "e"), ("α\u{301}", "α"),
    ("ø", "ø"), ("ł", "ł"), ("日本語", "日本語"), ("がっこう", "がっこう"), ("ガ", "ガ"),
    ("한국어", "한국어"), ("plain", "plain"),
  ])
  func lettersFoldToTheirBase(text: String, folded: String) {
    #expect(TextFolding.fold(text) == folded)
  }

  @Test func theIndexTokenizerFoldsEveryScript() throws {
    let tokenizer = try IndexTokenizer(library: SystemSQLite())
    let tokens = tokenizer.tokens(of: "Ελλάδα ΪΣΩ Café Йогурт 日本語 がっこう").map(\.text)
    #expect(tokens == ["ελλαδα", "ισω", "cafe", "иогурт", "日本語", "がっこう"])
  }

  @Test func aGreekWordWithoutItsAccentFindsIt() throws {
    let harness = try Harness()
    let setup = try harness.openContext()
    let category = try setup.createCategory(named: "C")
    try setup.createDocument(named: "Ταξίδι", in: category.id, content: "στην Ελλάδα, Πάτρα")
    try setup.createDocument(named: "Other", in: category.id, content: "Kraków 東京")
    try setup.save()
    for open in [
      { try harness.openIndexed(now: Harness.lateClock).0 }, { try harness.openContext() },
    ] {
      _ = try open()
      let context = try open()
      for query in ["ελλαδα", "ΕΛΛΑΔΑ", "Ελλάδα", "ταξιδι", "πατρα"] {
        #expect(
          try context.search(SearchQuery(query)).map(\.document.name.text) == ["Ταξίδι"],
          "\(query)")
      }
      #expect(try context.search(SearchQuery("krakow")).map(\.document.name.text) == ["Other"])
      #expect(try context.search(SearchQuery("東京")).map(\.document.name.text) == ["Other"])
      let hit = try #require(try context.search(SearchQuery("ελλαδα")).first)
      #expect(hit.snippet.highlights.map { String(hit.snippet.text[$0]) } == ["Ελλάδα"])
    }
  }

  /// An index whose full text an older docsh made (unicode61 alone, schema 1) is not
  /// trusted: it is rebuilt, and finds what the new tokenizer finds.
  @Test func anIndexOfTheOldTokenizerIsRebuilt() throws {
    let harness = try Harness()
    let setup = try harness.openContext()
    let category = try setup.createCategory(named: "C")
    try setup.createDocument(named: "Trip", in: category.id, content: "Ταξίδι στην Ελλάδα")
    try setup.save()
    // The session that builds the full text ends before the old schema is put in place: an
    // index another session has open is never replaced under it (it would go on alone).
    let indexPath: String
    do {
      let (builder, store) = try harness.openIndexed(now: Harness.lateClock)
      _ = try builder.search(SearchQuery("ταξιδι"))
      indexPath = try #require(store.indexPath)
    }
    try sqlite(
      indexPath,
      """
      DROP TABLE full_text_vocabulary; DROP TABLE full_text;
      CREATE VIRTUAL TABLE full_text USING fts5(
        name, content, content='', tokenize='unicode61 remove_diacritics 2');
      CREATE VIRTUAL TABLE full_text_vocabulary USING fts5vocab(full_text, row);
      INSERT INTO full_text(rowid, name, content) SELECT id, name, 'Ταξίδι στην Ελλάδα'
        FROM documents;
      PRAGMA user_version = 1;
      """)
    let (context, _) = try harness.openIndexed(now: Harness.lateClock)
    #expect(try context.search(SearchQuery("ελλαδα")).map(\.document.name.text) == ["Trip"])
    let database = try SQLiteDatabase(path: indexPath, create: false, library: SystemSQLite())
    #expect(try database.integer("PRAGMA user_version") == StoreIndex.schemaVersion)
    #expect(StoreIndex.schema.contains("tokenize='docsh remove_diacritics 2'"))
  }
}
