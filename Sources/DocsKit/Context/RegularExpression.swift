import CRE2

/// A regular expression matched in time linear in the length of the line, whatever the
/// pattern: RE2 runs automata and never backtracks, so that `(a|a)*b` or `(a+)+b` cost
/// what `ab` costs. The only file that imports `CRE2`.
///
/// The syntax is RE2's: POSIX extended expressions (as `grep -E`) with Perl's classes and
/// flags (`\d`, `\s`, `\w`, `\b`, `(?i)`, lazy quantifiers); no back-references and no
/// look-around, which no automaton can run. `\w`, `\b`, `\d`, `\s` and classes such as
/// `[[:alpha:]]` are ASCII; `\pL` or `\p{Greek}` name Unicode's. Ignoring case folds as
/// Unicode's simple case folding, and `ı` with `i` as ``CaseFolder`` does.
final class RegularExpression {
  private let compiled: OpaquePointer
  private let ignoresCase: Bool

  /// `source` compiled; with `wholeWords`, it matches only where neither end of a match is
  /// next to a word character (a letter or digit of any script, or `_`: ``WordCharacters``),
  /// as `grep -w`.
  /// - Throws: ``ContextError/invalidPattern(_:reason:)`` when `source` does not compile,
  ///   with RE2's reason on one line.
  init(_ source: String, ignoringCase: Bool, wholeWords: Bool = false) throws(ContextError) {
    ignoresCase = ignoringCase
    var pattern = ignoringCase ? RegularExpression.dotlessIAsI(source) : source
    if wholeWords {
      // The pattern alone first, so that an error names what the user wrote.
      _ = try RegularExpression(source, ignoringCase: ignoringCase)
      let other = RegularExpression.nonWordCharacter
      pattern =
        "(?:^|\(other))(?:\(RegularExpression.closingQuotes(pattern)))(?:\(other)|$)"
    }
    var utf8 = pattern
    let compiled = utf8.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) {
        cre2_compile($0.baseAddress, $0.count, ignoringCase ? 1 : 0)
      }
    }
    guard let compiled else { throw .invalidPattern(source, reason: "out of memory") }
    if let error = cre2_error(compiled) {
      let reason = String(cString: error)
      cre2_free(compiled)
      throw .invalidPattern(source, reason: reason)
    }
    self.compiled = compiled
  }

  deinit {
    cre2_free(compiled)
  }

  /// Whether the expression matches somewhere in `line`.
  func matches(_ line: String) -> Bool {
    // 0xB1 ends the UTF-8 of `ı` (C4 B1) and of a few other characters.
    var text = ignoresCase && line.utf8.contains(0xB1) ? RegularExpression.dotlessIAsI(line) : line
    return text.withUTF8 { bytes in
      bytes.withMemoryRebound(to: CChar.self) {
        cre2_matches(compiled, $0.baseAddress, $0.count) != 0
      }
    }
  }

  /// A class of every character that is not a word character (see ``WordCharacters``).
  private static let nonWordCharacter =
    "[^\\p{L}\\p{Nl}\\p{Nd}_"
    + WordCharacters.otherAlphabetic.map {
      "\\x{" + String($0.lowerBound, radix: 16) + "}-\\x{" + String($0.upperBound, radix: 16) + "}"
    }.joined() + "]"

  /// A pattern that matches `text` literally.
  static func quoting(_ text: String) -> String {
    var pattern = ""
    for scalar in text.unicodeScalars {
      if !scalar.isASCII || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
        || ("0"..."9").contains(scalar)
      {
        pattern.unicodeScalars.append(scalar)
      } else {
        pattern += "\\x{" + String(scalar.value, radix: 16) + "}"
      }
    }
    return pattern
  }

  /// `text` with each dotless `ı` made an `i`: RE2 folds it with nothing (Unicode's folding
  /// keeps it for Turkish), docsh with `i` and `I`, as GNU grep does.
  private static func dotlessIAsI(_ text: String) -> String {
    guard text.unicodeScalars.contains("\u{131}") else { return text }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      result.append(scalar == "\u{131}" ? "i" : scalar)
    }
    return String(result)
  }

  /// `pattern` with a `\E` after a `\Q` that runs to its end, so that what follows it is
  /// syntax again. Between `\Q` and `\E` only `\E` means anything, as RE2 reads them.
  private static func closingQuotes(_ pattern: String) -> String {
    let scalars = Array(pattern.unicodeScalars)
    var quoting = false
    var index = 0
    while index < scalars.count {
      guard scalars[index] == "\\", index + 1 < scalars.count else {
        index += 1
        continue
      }
      let next = scalars[index + 1]
      if quoting {
        if next == "E" { quoting = false }
        index += next == "E" ? 2 : 1
      } else {
        if next == "Q" { quoting = true }
        index += 2
      }
    }
    return quoting ? pattern + "\\E" : pattern
  }
}
