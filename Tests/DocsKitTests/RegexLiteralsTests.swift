import Testing

@testable import DocsKit

/// The text a regular expression's every match contains, which the search looks for before
/// running the expression, is found where the syntax is plain and refused where it is not.
@Suite struct RegexLiteralsTests {
  @Test(arguments: [
    ("win(dow|ter) [a-z]+", false, "win"),
    ("^abc", false, "abc"),
    ("colou?r", false, "colo"),
    ("ab*c", false, "a"),
    ("x+yz", false, "yz"),
    ("\\.txt$", false, ".txt"),
    ("[abc]def", false, "def"),
    ("a{2}bc", false, "bc"),
    ("Kitchen", false, "itchen"),
    ("kitchen", true, "itchen"),
    ("Kitchen", true, "Kitchen"),
    ("\\d+ apples", false, " apples"),
    ("café au lait", false, " au lait"),
    ("a;bc", false, "bc"),
    ("abc[^x]", false, "abc"),
    ("abc(^|x)", false, "abc"),
    ("abc\\Aq", false, "abc"),
    ("(?:x)abc", false, ""),
  ])
  func findsTheTextEveryMatchHolds(pattern: String, ignoringCase: Bool, text: String) {
    let found = RegexLiterals.requiredText(in: pattern, ignoringCase: ignoringCase)
    #expect(found == (text.isEmpty ? nil : text), "\(pattern)")
  }

  @Test(arguments: [
    "a|b", "(?i)abc", "\\x41BC", "\\p{L}abc", "a{x}", "\\Qabc\\E", "abc\\1", "[]abc]", "(ab",
  ])
  func givesUpOnSyntaxItDoesNotRead(pattern: String) {
    #expect(RegexLiterals.requiredText(in: pattern, ignoringCase: false) == nil, "\(pattern)")
  }
}
