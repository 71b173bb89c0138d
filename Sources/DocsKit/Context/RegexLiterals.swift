/// The plain text every match of a regular expression must contain, so that a search can
/// look for those bytes first and run the expression only on the lines that hold them.
///
/// Conservative by design: it reads a small part of the syntax (RE2's, which holds POSIX
/// ERE and Perl's escapes: literal characters, escaped punctuation, quantifiers, and
/// classes, groups, anchors and class escapes stepped over whole) and gives up, returning
/// `nil`, on anything else — an alternation at the top, options such as `(?i)`, `\Q`, `\x`,
/// `\p`. The text it returns is printable ASCII, which has one spelling in a content's
/// bytes. It still leaves out the three ASCII characters that have canonical equivalents
/// (the Kelvin sign is `K`, U+037E is `;`, U+1FEF a backtick), from when Swift's `Regex`,
/// which matches by canonical equivalence, ran the expressions; RE2 matches by scalar, so
/// this only costs a shorter text (and `k` when case is ignored: the fold finds the Kelvin
/// sign).
enum RegexLiterals {
  /// The longest run of literal characters every match of `source` contains, or `nil`.
  static func requiredText(in source: String, ignoringCase: Bool) -> String? {
    let scalars = Array(source.unicodeScalars)
    var index = 0
    var best = ""
    var run = ""
    func endRun() {
      if run.unicodeScalars.count > best.unicodeScalars.count { best = run }
      run = ""
    }
    while index < scalars.count {
      let scalar = scalars[index]
      var literal: Unicode.Scalar?
      switch scalar {
      case "|", ")", "*", "+", "?", "{":
        return nil  // an alternation at the top, or a quantifier with nothing before it
      case "(":
        if index + 1 < scalars.count, scalars[index + 1] == "?" { return nil }
        guard let end = skipGroup(scalars, from: index) else { return nil }
        index = end
        endRun()
      case "[":
        guard let end = skipClass(scalars, from: index) else { return nil }
        index = end
        endRun()
      case ".", "^", "$":
        index += 1
        endRun()
      case "\\":
        guard index + 1 < scalars.count else { return nil }
        let escaped = scalars[index + 1]
        if escaped.isASCII, !escaped.properties.isAlphabetic, !("0"..."9").contains(escaped),
          escaped.value >= 0x21, escaped.value < 0x7F
        {
          literal = escaped
        } else if "dDwWsShHvVRXbBAzZGnrtfae".unicodeScalars.contains(escaped) {
          endRun()
        } else {
          return nil
        }
        index += 2
      default:
        literal = scalar
        index += 1
      }
      guard let quantifier = quantifier(scalars, at: index) else { return nil }
      index = quantifier.end
      guard let literal else { continue }
      if quantifier.minimum == 0 {
        endRun()
        continue
      }
      if isUsable(literal, ignoringCase: ignoringCase) {
        run.unicodeScalars.append(literal)
      } else {
        endRun()
      }
      if quantifier.repeats { endRun() }
    }
    endRun()
    return best.isEmpty ? nil : best
  }

  /// Whether `scalar` can stand in the required text (see the type's summary).
  private static func isUsable(_ scalar: Unicode.Scalar, ignoringCase: Bool) -> Bool {
    guard scalar.isASCII, scalar.value >= 0x20, scalar.value < 0x7F else { return false }
    switch scalar {
    case ";", "`": return false
    case "K": return ignoringCase
    case "k": return !ignoringCase
    default: return true
    }
  }

  /// The quantifier at `index`, if any: its smallest count, whether it allows more than
  /// one, and where it ends; `minimum` 1 and `repeats` false when there is none. `nil` for a
  /// brace that is not a quantifier.
  private static func quantifier(
    _ scalars: [Unicode.Scalar], at index: Int
  ) -> (minimum: Int, repeats: Bool, end: Int)? {
    guard index < scalars.count else { return (1, false, index) }
    var end = index + 1
    let minimum: Int
    let repeats: Bool
    switch scalars[index] {
    case "*": (minimum, repeats) = (0, true)
    case "+": (minimum, repeats) = (1, true)
    case "?": (minimum, repeats) = (0, false)
    case "{":
      var digits = ""
      while end < scalars.count, ("0"..."9").contains(scalars[end]) {
        digits.unicodeScalars.append(scalars[end])
        end += 1
      }
      var hasComma = false
      if end < scalars.count, scalars[end] == "," {
        hasComma = true
        end += 1
        while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
      }
      guard end < scalars.count, scalars[end] == "}", !digits.isEmpty || hasComma else {
        return nil
      }
      end += 1
      let count = Int(digits) ?? 0
      (minimum, repeats) = (count, hasComma || count > 1)
    default:
      return (1, false, index)
    }
    // Lazy and possessive forms match the same lines.
    if end < scalars.count, scalars[end] == "?" || scalars[end] == "+" { end += 1 }
    return (minimum, repeats, end)
  }

  /// Where the group opened at `start` ends (past its `)`); `nil` when it does not.
  private static func skipGroup(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
    skipNested(scalars, from: start, open: 0, opening: "(", closing: ")", skipsClasses: true)
  }

  /// Where the class opened at `start` ends (past its `]`); `nil` when it does not, or when
  /// a `]` right after the `[` makes its end unclear.
  private static func skipClass(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
    var index = start + 1
    if index < scalars.count, scalars[index] == "^" { index += 1 }
    if index < scalars.count, scalars[index] == "]" { return nil }
    return skipNested(
      scalars, from: index, open: 1, opening: "[", closing: "]", skipsClasses: false)
  }

  /// Where the brackets `opening` … `closing` end, `open` of them open at `start`: past the
  /// `closing` that closes the last of them; `nil` when they do not. A `\` escapes the
  /// scalar after it; with `skipsClasses` (in a group), a class is passed over whole.
  private static func skipNested(
    _ scalars: [Unicode.Scalar], from start: Int, open: Int, opening: Unicode.Scalar,
    closing: Unicode.Scalar, skipsClasses: Bool
  ) -> Int? {
    var depth = open
    var index = start
    while index < scalars.count {
      switch scalars[index] {
      case "\\": index += 2
      case "[" where skipsClasses:
        guard let end = skipClass(scalars, from: index) else { return nil }
        index = end
      case opening:
        depth += 1
        index += 1
      case closing:
        depth -= 1
        index += 1
        if depth == 0 { return index }
      default: index += 1
      }
    }
    return nil
  }
}
