import Foundation
import Testing

@testable import DocsKit

@Suite struct SearchTests {
  /// Work {Plan, List} and Home {Diary, Empty}, saved and reopened, so every search reads
  /// contents from the file.
  struct Corpus {
    let harness: Harness
    let context: Context
    let work: Category
    let home: Category
    let ids: [String: ObjectID]

    init(_ label: String = #function) throws {
      harness = try Harness(label)
      let setup = try harness.openContext()
      work = try setup.createCategory(named: "Work")
      home = try setup.createCategory(named: "home")
      var ids: [String: ObjectID] = [:]
      let rows: [(Category, String, String)] = [
        (work, "Plan", "Goals\nship the Needle\n\nneedle in a haystack\nend"),
        (work, "List", "eggs\nNEEDLES x2\n"),
        (home, "Diary", "Dear diary,\r\nfound a needle\r\nbye"),
        (home, "Empty", ""),
      ]
      for (category, name, content) in rows {
        ids[name] = try setup.createDocument(named: name, in: category.id, content: content).id
      }
      try setup.save()
      context = try harness.openContext()
      self.ids = ids
    }

    func names(_ matches: [ContentMatch]) -> [String] {
      matches.map { "\($0.document.name):\($0.lineNumber):\($0.line)" }
    }
  }

  @Test func textSearchIsCaseSensitiveByDefault() throws {
    let corpus = try Corpus()
    let matches = try corpus.context.searchContents(for: .text("needle", ignoringCase: false))
    // home before Work; within a category by document name; then by line.
    #expect(corpus.names(matches) == ["Diary:2:found a needle", "Plan:4:needle in a haystack"])
    #expect(try matches.first?.document == corpus.context.document(withID: corpus.ids["Diary"]!))
  }

  @Test func textSearchCanIgnoreCase() throws {
    let corpus = try Corpus()
    let matches = try corpus.context.searchContents(for: .text("NeEdLe", ignoringCase: true))
    #expect(
      corpus.names(matches) == [
        "Diary:2:found a needle", "List:2:NEEDLES x2", "Plan:2:ship the Needle",
        "Plan:4:needle in a haystack",
      ])
  }

  @Test func searchCanBeLimitedToOneCategory() throws {
    let corpus = try Corpus()
    let matches = try corpus.context.searchContents(
      for: .text("needle", ignoringCase: true), in: corpus.work.id)
    #expect(
      corpus.names(matches) == [
        "List:2:NEEDLES x2", "Plan:2:ship the Needle", "Plan:4:needle in a haystack",
      ])
    #expect(matches.allSatisfy { $0.document.categoryID == corpus.work.id })
  }

  @Test func regularExpressionsMatchPerLine() throws {
    let corpus = try Corpus()
    let anchored = try corpus.context.searchContents(
      for: .regularExpression("^e[a-z]+$", ignoringCase: false))
    #expect(corpus.names(anchored) == ["List:1:eggs", "Plan:5:end"])
    let blank = try corpus.context.searchContents(
      for: .regularExpression("^$", ignoringCase: false), in: corpus.work.id)
    // An empty line in the middle; List's final newline ends its last line, as grep reads a
    // file, and starts no empty one.
    #expect(corpus.names(blank) == ["Plan:3:"])
    let folded = try corpus.context.searchContents(
      for: .regularExpression("needles? (in|x2)", ignoringCase: true))
    #expect(corpus.names(folded) == ["List:2:NEEDLES x2", "Plan:4:needle in a haystack"])
  }

  @Test(arguments: [false, true])
  func anInvalidPatternIsRefusedBeforeTheStoreIsRead(wholeWords: Bool) throws {
    let corpus = try Corpus()
    // The file emptied under the context: any read of a content fails.
    try Data().write(to: URL(fileURLWithPath: corpus.harness.storePath))
    let valid = #expect(throws: ContextError.self) {
      try corpus.context.searchContents(
        for: .regularExpression("needle", ignoringCase: false, wholeWords: wholeWords))
    }
    guard case .store? = valid else {
      Issue.record("a valid pattern should have read the store: \(String(describing: valid))")
      return
    }
    let invalid = #expect(throws: ContextError.self) {
      try corpus.context.countMatchingLines(
        for: .regularExpression("(needle", ignoringCase: true, wholeWords: wholeWords))
    }
    guard case .invalidPattern? = invalid else {
      Issue.record("expected invalidPattern, got \(String(describing: invalid))")
      return
    }
  }

  @Test func linesEndingInCarriageReturnNewlineAreCountedAsLines() throws {
    let corpus = try Corpus()
    let matches = try corpus.context.searchContents(for: .text("bye", ignoringCase: false))
    #expect(corpus.names(matches) == ["Diary:3:bye"])
    let first = try corpus.context.searchContents(
      for: .regularExpression("^Dear", ignoringCase: false))
    #expect(first.map(\.line) == ["Dear diary,"])
  }

  @Test(arguments: ["(", "[a-", "a{2,1}", "(?<name"])
  func anInvalidRegularExpressionIsReportedAsSuch(pattern: String) throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    try context.createDocument(named: "a", in: work.id, content: "(")
    let error = #expect(throws: ContextError.self) {
      try context.searchContents(for: .regularExpression(pattern, ignoringCase: false))
    }
    guard case .invalidPattern(let source, let reason)? = error else {
      Issue.record("expected invalidPattern, got \(String(describing: error))")
      return
    }
    #expect(source == pattern)
    #expect(!reason.isEmpty)
    #expect(error?.description.hasPrefix("invalid regular expression \"\(pattern)\": ") == true)
  }

  @Test func literalTextIsNotARegularExpression() throws {
    let (context, _, _) = try makeMemoryContext()
    let work = try context.createCategory(named: "Work")
    try context.createDocument(named: "a", in: work.id, content: "cost (a+b)*\nab")
    let matches = try context.searchContents(for: .text("(a+b)*", ignoringCase: false))
    #expect(matches.map(\.lineNumber) == [1])
  }

  @Test func searchSeesUnsavedChangesAndNotDeletedDocuments() throws {
    let corpus = try Corpus()
    let context = corpus.context
    try context.setContent("no match here", of: try #require(corpus.ids["Plan"]))
    try context.deleteDocument(try #require(corpus.ids["Diary"]))
    try context.createDocument(named: "New", in: corpus.home.id, content: "x\nneedle")
    let matches = try context.searchContents(for: .text("needle", ignoringCase: false))
    #expect(corpus.names(matches) == ["New:2:needle"])
  }

  @Test func searchAfterASaveReadsTheNewFile() throws {
    let corpus = try Corpus()
    let context = corpus.context
    try context.renameCategory(corpus.home.id, to: "Zhome")
    try context.save()
    let matches = try context.searchContents(for: .text("needle", ignoringCase: false))
    #expect(corpus.names(matches) == ["Plan:4:needle in a haystack", "Diary:2:found a needle"])
  }

  @Test func documentsWithMatchingContentAreListedOnceInOrder() throws {
    let corpus = try Corpus()
    let documents = try corpus.context.documents(
      withContentMatching: .text("needle", ignoringCase: true))
    // Plan holds two matching lines but is listed once; home before Work, then by name.
    #expect(documents.map(\.name.text) == ["Diary", "List", "Plan"])
    let inWork = try corpus.context.documents(
      withContentMatching: .regularExpression("^e", ignoringCase: false), in: corpus.work.id)
    #expect(inWork.map(\.name.text) == ["List", "Plan"])
  }

  @Test func matchingLinesAreCountedPerDocument() throws {
    let corpus = try Corpus()
    let counts = try corpus.context.countMatchingLines(
      for: .text("needle", ignoringCase: true))
    #expect(
      counts.map { "\($0.document.name):\($0.lineCount)" } == ["Diary:1", "List:1", "Plan:2"])
    let none = try corpus.context.countMatchingLines(for: .text("absent", ignoringCase: false))
    #expect(none.isEmpty)
  }

  @Test func countingAndListingDecodeNoLine() throws {
    // A line that cannot be decoded (an escape JSON does not know) fails a search that
    // prints it, but not one that only counts lines or names documents.
    let harness = try Harness()
    let setup = try harness.openContext()
    let work = try setup.createCategory(named: "Work")
    try setup.createDocument(named: "Plan", in: work.id, content: "needle one\nplain\nneedle BAD")
    try setup.save()
    var text = try String(contentsOfFile: harness.storePath, encoding: .utf8)
    text = text.replacingOccurrences(of: "needle BAD", with: "needle \\x")
    try text.write(toFile: harness.storePath, atomically: false, encoding: .utf8)
    let context = try harness.openContext()
    let pattern = ContentPattern.text("needle", ignoringCase: false)
    #expect(throws: ContextError.self) { try context.searchContents(for: pattern) }
    #expect(try context.countMatchingLines(for: pattern).map(\.lineCount) == [2])
    #expect(try context.documents(withContentMatching: pattern).map(\.name.text) == ["Plan"])
  }
}
