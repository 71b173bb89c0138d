import Testing

@testable import DocsKit

/// The text a regular expression's every match contains, which the search looks for before
/// running the expression, is found where the syntax is plain and refused where it is not.
@Suite struct RegexLiteralsTests {
  @Test(arguments: [
    ("win(dow|ter) [a-z]+", false, "win", true),
    ("^abc", false, "abc", false),
    ("colou?r", false, "colo", true),
    ("ab*c", false, "a", true),
    ("x+yz", false, "yz", false),
    ("\\.txt$", false, ".txt", true),
    ("[abc]def", false, "def", false),
    ("a{2}bc", false, "bc", false),
    ("Kitchen", false, "itchen", false),
    ("kitchen", true, "itchen", false),
    ("Kitchen", true, "Kitchen", true),
    ("\\d+ apples", false, " apples", false),
    ("café au lait", false, " au lait", false),
    ("a;bc", false, "bc", false),
    ("abc[^x]", false, "abc", true),
    ("abc(^|x)", false, "abc", false),
    ("abc\\Aq", false, "abc", false),
    ("(?:x)abc", false, "", false),
  ])
  func findsTheTextEveryMatchHolds(
    pattern: String, ignoringCase: Bool, text: String, isPrefix: Bool
  ) {
    let found = RegexLiterals.requiredText(in: pattern, ignoringCase: ignoringCase)
    if text.isEmpty {
      #expect(found == nil, "\(pattern)")
    } else {
      #expect(found?.text == text, "\(pattern)")
      #expect(found?.isPrefix == isPrefix, "\(pattern)")
    }
  }

  @Test(arguments: [
    "a|b", "(?i)abc", "\\x41BC", "\\p{L}abc", "a{x}", "\\Qabc\\E", "abc\\1", "[]abc]", "(ab",
  ])
  func givesUpOnSyntaxItDoesNotRead(pattern: String) {
    #expect(RegexLiterals.requiredText(in: pattern, ignoringCase: false) == nil, "\(pattern)")
  }
}
