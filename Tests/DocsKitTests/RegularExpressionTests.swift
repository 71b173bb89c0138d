import Testing

@testable import DocsKit

/// Regular expressions run on RE2: in time linear in the line, with docsh's case folding
/// and GNU grep's whole words.
@Suite struct RegularExpressionTests {
  /// Patterns that take a backtracking engine time exponential in the run of `a`s (Swift's
  /// `Regex` took 42 s on 26 of them, GNU grep well under a millisecond). No timing is
  /// asserted: with a backtracking engine this test does not finish.
  @Test(arguments: ["(a|a)*b", "(a+)+b", "(a*)*b", "(a|aa)+$", "^(a?){40}a{40}$"])
  func exponentialPatternsFinishOnLongLines(pattern: String) throws {
    let regex = try RegularExpression(pattern, ignoringCase: false)
    for count in [30, 5_000] {
      let line = String(repeating: "a", count: count) + "X"
      // No `b` after the run of `a`s (nor at the end): every way of matching fails.
      #expect(!regex.matches(line), "\(pattern) on \(count) a's")
    }
    let folded = try RegularExpression(pattern, ignoringCase: true)
    #expect(!folded.matches(String(repeating: "A", count: 5_000) + "X"))
    #expect(try RegularExpression("(a|a)*b", ignoringCase: false).matches("aaaaX b"))
  }

  @Test(arguments: [
    ("k", "\u{212A}", true), ("s", "ſ", true), ("σ", "ς", true), ("i", "ı", true),
    ("ı", "I", true), ("[h-j]x", "ıx", true), ("[^i]", "ı", false), ("i", "İ", false),
    ("ß", "ẞ", true), ("µ", "μ", true), ("é", "e\u{301}", false), ("Ǆ", "ǅ", true),
  ])
  func ignoringCaseFoldsAsPlainTextSearchDoes(pattern: String, line: String, matches: Bool)
    throws
  {
    let regex = try RegularExpression(pattern, ignoringCase: true)
    #expect(regex.matches(line) == matches, "\(pattern) ~ \(line)")
    #expect(try !RegularExpression("i", ignoringCase: false).matches("ı"))
  }

  @Test(arguments: [
    ("a", "a b", true), ("a", "ab", false), ("a", "ba", false), ("a", "b_a", false),
    ("a", "b-a", true), ("a", "éa", false), ("a", "aé", false), ("a", "a\u{301}", true),
    ("a", "a٣", false), ("a", "aⅧ", false), ("a", "a²", true), ("a", "aⒶ", false),
    ("a", "a\u{947}", false), ("a", "a\u{94D}", true), ("a+", "aaa", true),
    ("ab|a", "ab", true), ("ab|a", "abc a", true), ("foo.*", "foo bar!x", true),
    ("b.*", "ab c", false), ("^a", "a b", true), ("b$", "a b", true), ("", "", true),
    ("", "a b", false), ("", "a ", true), ("x*", " x", true), ("(?i)A", "a.", true),
    ("\\Qa.", "a.", true), ("\\Qa.", "a.b", false), ("\\Qa\\\\E", "a\\", true),
    ("\\Qa\\\\E+", "a\\\\ b", true), ("\\Qa.\\E+", "a..", true), ("\\Q\\", "x \\", true),
  ])
  func wholeWordsAreThoseOfGNUGrep(pattern: String, line: String, matches: Bool) throws {
    let regex = try RegularExpression(pattern, ignoringCase: false, wholeWords: true)
    #expect(regex.matches(line) == matches, "\(pattern) in \(line)")
  }

  @Test func theWordCharactersBeyondLettersAreUnicodesOtherAlphabetic() {
    // Every scalar: Alphabetic or a decimal digit, but in none of the categories RE2 is
    // told (L, Nl, Nd), makes up the table.
    var found: [ClosedRange<UInt32>] = []
    var start: UInt32?
    for value in 0...UInt32(0x11_0000) {
      var isOther = false
      if value <= 0x10_FFFF, let scalar = Unicode.Scalar(value) {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter,
          .otherLetter, .letterNumber, .decimalNumber:
          break
        default:
          isOther = scalar.properties.isAlphabetic
        }
      }
      if isOther, start == nil { start = value }
      if !isOther, let first = start {
        found.append(first...(value - 1))
        start = nil
      }
    }
    #expect(found == WordCharacters.otherAlphabetic)
  }

  @Test(arguments: ["a.b", "(x)", "[x]", "a\\b", "\u{0}\t\r", "é+", "$^", "{2}"])
  func aQuotedTextMatchesItselfOnly(text: String) throws {
    let regex = try RegularExpression(RegularExpression.quoting(text), ignoringCase: false)
    #expect(regex.matches("<" + text + ">"))
    #expect(!regex.matches(String(text.dropLast())))
  }

  @Test(arguments: ["(", "[a-", "a{2,1}", "a\\1", "(?<=a)b", "x\\", "a\nb("])
  func anInvalidPatternIsOneLineOfError(pattern: String) throws {
    for wholeWords in [false, true] {
      let error = #expect(throws: ContextError.self) {
        try RegularExpression(pattern, ignoringCase: false, wholeWords: wholeWords)
      }
      guard case .invalidPattern(let source, let reason)? = error else {
        Issue.record("expected invalidPattern, got \(String(describing: error))")
        continue
      }
      #expect(source == pattern)
      #expect(!reason.isEmpty && !reason.contains("\n"), "\(reason)")
    }
  }
}
