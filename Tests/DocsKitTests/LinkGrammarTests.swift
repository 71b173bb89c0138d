import Testing

@testable import DocsKit

/// Obsidian's link grammar as `DocumentLink` reads it, and CommonMark's code (spans and
/// fenced blocks) in which nothing is a link.
@Suite struct LinkGrammarTests {
  /// One link's parts: category, name, subpath, shown text, embed.
  struct Parts: Equatable, CustomStringConvertible {
    var category: String?
    var name: String?
    var subpath: String?
    var shown: String?
    var embed = false
    var description: String {
      "\(category ?? "-")/\(name ?? "-")\(subpath ?? "")|\(shown ?? "-")\(embed ? " embed" : "")"
    }
  }

  static func parts(_ text: String) -> [Parts] {
    DocumentLink.links(in: text).map {
      Parts(
        category: $0.category?.text, name: $0.name?.text, subpath: $0.subpath,
        shown: $0.shownText, embed: $0.isEmbed)
    }
  }

  static let grammar: [(String, [Parts])] = [
    ("[[Plan]]", [Parts(name: "Plan")]),
    ("[[Work/Plan]]", [Parts(category: "Work", name: "Plan")]),
    ("[[/Work/Plan]]", [Parts(category: "Work", name: "Plan")]),
    ("[[Plan#Friday]]", [Parts(name: "Plan", subpath: "#Friday")]),
    ("[[Plan#^abc123]]", [Parts(name: "Plan", subpath: "#^abc123")]),
    ("[[Plan#Friday|the plan]]", [Parts(name: "Plan", subpath: "#Friday", shown: "the plan")]),
    ("[[#Local]]", [Parts(subpath: "#Local")]),
    ("[[#Local|here]]", [Parts(subpath: "#Local", shown: "here")]),
    ("![[Work/Plan#^b]]", [Parts(category: "Work", name: "Plan", subpath: "#^b", embed: true)]),
    ("| [[Plan\\|shown]] |", [Parts(name: "Plan", shown: "shown")]),
    // No links: nothing named, an absolute path without a category, too many parts.
    ("[[]] [[#]] [[|x]] [[/Plan]] [[a/b/c]] [[ ]]", []),
  ]

  @Test(arguments: grammar)
  func readsObsidiansGrammar(_ text: String, _ expected: [Parts]) {
    #expect(Self.parts(text) == expected)
  }

  @Test func aRewriteReplacesOnlyThePathKeepingHeadingShownTextSlashAndBang() {
    let text = "![[Old#H|shown]] [[/Work/Old#^b]] [[Old\\|t]]"
    let links = DocumentLink.links(in: text)
    #expect(links.count == 3)
    #expect(
      Context.rewriting(text, links.map { ($0, "Home/New") })
        == "![[Home/New#H|shown]] [[/Home/New#^b]] [[Home/New\\|t]]")
  }

  static let code: [(String, [String])] = [
    // Code spans, of one backtick or more; a run without its match is literal.
    ("`[[A]]` [[B]]", ["B"]),
    ("``x [[A]] ` y`` [[B]]", ["B"]),
    ("``x [[A]]` [[B]]", ["A", "B"]),
    ("a `span\nover [[A]] lines` [[B]]", ["B"]),
    // A blank line ends a paragraph, and the span that did not close in it.
    ("a `open\n\n[[A]] `", ["A"]),
    ("\\`[[A]]`", ["A"]),
    // Fences: backticks and tildes, longer runs, info strings, indentation up to three.
    ("```\n[[A]]\n```\n[[B]]", ["B"]),
    ("~~~ python\n[[A]]\n~~~\n[[B]]", ["B"]),
    ("````\n```\n[[A]]\n````\n[[B]]", ["B"]),
    ("~~~~\n[[A]]\n~~~\n[[C]]\n~~~~~\n[[B]]", ["B"]),
    ("   ```\n[[A]]\n   ```   \n[[B]]", ["B"]),
    ("```\n[[A]]\n``` not closing\n[[C]]", []),
    // Never closed: code to the end.
    ("[[B]]\n```sh\n[[A]]\n", ["B"]),
    // Four spaces, or a backtick in a backtick fence's info string: no fence.
    ("    ```\n[[A]]", ["A"]),
    ("``` a`b\n[[A]]", ["A"]),
    // A fence ends the paragraph: a span does not reach past it.
    ("`a\n```\n[[A]]\n```\n[[B]] `", ["B"]),
    // Code starting inside a link's brackets takes them.
    ("[[A `x]]` [[B]]", ["B"]),
  ]

  @Test(arguments: code)
  func nothingInCodeIsALink(_ text: String, _ expected: [String]) {
    #expect(DocumentLink.links(in: text).compactMap(\.path) == expected)
  }

  @Test func linesAreCountedPastCode() {
    let links = DocumentLink.links(in: "```\n[[A]]\n```\n`[[B]]`\n[[C]]")
    #expect(links.map(\.line) == [5])
  }

  @Test func aLinkCannotNameWhatEndsItsPath() {
    #expect(DocumentLink.canName("Work/Plan 2"))
    for name in ["C# notes", "a|b", "x[1]", "y]"] { #expect(!DocumentLink.canName(name)) }
  }
}
