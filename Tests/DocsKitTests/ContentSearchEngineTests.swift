import DocsTestSupport
import Testing

@testable import DocsKit

/// The content search engine finds exactly the lines a naive search finds: decode the whole
/// content, split it into lines, test each line. Random awkward contents, needles cut from
/// them in every case, the three ways a content reaches the engine (in memory; as docsh
/// writes it in the store; with escapes another tool writes) and the three modes.
@Suite struct ContentSearchEngineTests {
  static let pieces: [String] = [
    "garden", "Garden", "GARDEN", "the ", " ", "  ", "\n", "\n", "\r\n", "\r", "\t", "\"",
    "\\", "\\n", "\\\\n", "\\u0041", "/", "é", "e\u{301}", "É", "Café", "résumé", "RÉSUMÉ",
    "Ελλάδα", "ΕΛΛΆΔΑ", "σς", "Σ", "ı", "İ", "i", "I", "ſ", "s", "S", "\u{212A}", "k", "K", "ß",
    "ẞ", "µ", "μ", "Ⱥ", "ⱥ", "東京", "札幌", "😀", "👍🏽", "\u{1}", "\u{1B}", "\u{7F}", "\u{0}",
    ";", "\u{37E}", "`", "quokka", "QUOKKA", "a", "b", "x2", "Þórshöfn", "ÞÓRSHÖFN",
  ]

  static func randomContent(using random: inout SeededGenerator) -> String {
    (0..<Int.random(in: 0...40, using: &random)).map { _ in
      pieces.randomElement(using: &random) ?? ""
    }.joined()
  }

  /// A needle cut from `content` (a run of its scalars), its case changed at random now and
  /// then; or one of the pieces.
  static func randomNeedle(from content: String, using random: inout SeededGenerator) -> String {
    let scalars = Array(content.unicodeScalars)
    var needle: String
    if scalars.isEmpty || Int.random(in: 0..<4, using: &random) == 0 {
      needle = pieces.randomElement(using: &random) ?? "a"
    } else {
      let start = Int.random(in: 0..<scalars.count, using: &random)
      let end = min(scalars.count, start + Int.random(in: 1...8, using: &random))
      needle = String(String.UnicodeScalarView(scalars[start..<end]))
    }
    switch Int.random(in: 0..<4, using: &random) {
    case 0: needle = needle.uppercased()
    case 1: needle = needle.lowercased()
    default: break
    }
    return needle
  }

  /// The lines of `content` as the semantics define them.
  static func referenceLines(of content: String) -> [String] {
    var lines: [String] = []
    var current: [UInt8] = []
    for byte in content.utf8 {
      if byte == 0x0A {
        if current.last == 0x0D { current.removeLast() }
        lines.append(String(decoding: current, as: UTF8.self))
        current = []
      } else {
        current.append(byte)
      }
    }
    // The empty piece after a final newline (or an empty content) is no line, as grep reads
    // a file.
    if !current.isEmpty { lines.append(String(decoding: current, as: UTF8.self)) }
    return lines
  }

  static func referenceMatches(
    of pattern: ContentPattern, in content: String
  ) throws -> [(Int, String)] {
    var folder = CaseFolder()
    let test: (String) -> Bool
    switch pattern.syntax {
    case .text where pattern.matchesWholeWords:
      let regex = try RegularExpression(
        RegularExpression.quoting(pattern.source), ignoringCase: pattern.ignoresCase,
        wholeWords: true)
      test = regex.matches
    case .text:
      let ignoringCase = pattern.ignoresCase
      let wanted = Array((ignoringCase ? folder.folded(pattern.source) : pattern.source).utf8)
      test = { line in
        var copy = CaseFolder()
        let haystack = Array((ignoringCase ? copy.folded(line) : line).utf8)
        return wanted.isEmpty || haystack.firstRange(of: wanted) != nil
      }
    case .regularExpression:
      // The same engine, line by line: what is checked is which lines reach it.
      let regex = try RegularExpression(
        pattern.source, ignoringCase: pattern.ignoresCase, wholeWords: pattern.matchesWholeWords)
      test = regex.matches
    }
    let inverted = pattern.selectsNonMatchingLines
    return referenceLines(of: content).enumerated().compactMap { index, line in
      test(line) != inverted ? (index + 1, line) : nil
    }
  }

  /// The literal of `content` with escapes docsh never writes: `\u` for some letters, `\/`.
  static func foreignLiteral(of content: String, using random: inout SeededGenerator) -> [UInt8] {
    var text = "\""
    for scalar in content.unicodeScalars {
      switch scalar {
      case "\"": text += "\\\""
      case "\\": text += "\\\\"
      case "/": text += "\\/"
      case "\n": text += Bool.random(using: &random) ? "\\n" : "\\u000A"
      default:
        if scalar.value < 0x20 || Int.random(in: 0..<5, using: &random) == 0 {
          text += ReferenceReaderTests.Writer.unicodeEscape(scalar, upper: true)
        } else {
          text.unicodeScalars.append(scalar)
        }
      }
    }
    return Array((text + "\"").utf8)
  }

  static func engineMatches(
    of pattern: ContentPattern, in content: String, spelled literal: [UInt8]?,
    mode: ContentSearchMode
  ) throws -> DocumentHits? {
    let searcher = try ContentSearcher(pattern: pattern, mode: mode)
    guard let literal else { return try searcher.search(text: content) }
    return try literal.withUnsafeBytes { try searcher.search(literal: $0) }
  }

  static func patterns(for needle: String) -> [ContentPattern] {
    var patterns: [ContentPattern] = [
      .text(needle, ignoringCase: false), .text(needle, ignoringCase: true),
      .text(needle, ignoringCase: false, wholeWords: true),
      .text(needle, ignoringCase: true, wholeWords: true),
      .text(needle, ignoringCase: true, nonMatchingLines: true),
    ]
    // Regular expressions around a literal word, so the prefilter has text to look for.
    let word = String(needle.unicodeScalars.filter { $0.properties.isAlphabetic && $0.isASCII })
    if !word.isEmpty {
      for source in [
        "\(word)", "^.*\(word)", "\(word)[a-z]*", "(\(word)|zz)", "x?\(word)+ ?",
        "\(word)\\b", "\\b\(word)", "\(word)(s|x)?\\s", "\(word).*\(word)",
      ] {
        patterns.append(.regularExpression(source, ignoringCase: false))
        patterns.append(.regularExpression(source, ignoringCase: true))
      }
      patterns.append(.regularExpression("\(word)s?", ignoringCase: true, wholeWords: true))
      patterns.append(.regularExpression("\(word)|x2", ignoringCase: false, wholeWords: true))
      patterns.append(
        .regularExpression("\(word)+", ignoringCase: false, nonMatchingLines: true))
    }
    return patterns
  }

  @Test(arguments: 0..<8)
  func findsWhatANaiveSearchFinds(seed: UInt64) throws {
    var random = SeededGenerator(seed: 0x5EA2C4 + seed)
    for _ in 0..<60 {
      let content = Self.randomContent(using: &random)
      let needle = Self.randomNeedle(from: content, using: &random)
      let spellings: [(String, [UInt8]?)] = [
        ("in memory", nil),
        (
          "as docsh writes it",
          {
            var bytes: [UInt8] = []
            JSONText.appendLiteral(content, to: &bytes)
            return bytes
          }()
        ),
        ("with another tool's escapes", Self.foreignLiteral(of: content, using: &random)),
      ]
      for pattern in Self.patterns(for: needle) {
        let expected = try Self.referenceMatches(of: pattern, in: content)
        for (label, literal) in spellings {
          let where_ = "\(pattern) in \(content.debugDescription) \(label)"
          let lines = try Self.engineMatches(
            of: pattern, in: content, spelled: literal, mode: .lines)
          #expect(
            (lines?.lines.pairs ?? []).map { "\($0.number):\($0.text)" }
              == expected.map { "\($0):\($1)" },
            "\(where_)")
          let counts = try Self.engineMatches(
            of: pattern, in: content, spelled: literal, mode: .counts)
          #expect((counts?.lineCount ?? 0) == expected.count, "\(where_)")
          #expect(counts?.lines.isEmpty ?? true, "\(where_): counts carry no lines")
          let documents = try Self.engineMatches(
            of: pattern, in: content, spelled: literal, mode: .documents)
          #expect((documents != nil) == !expected.isEmpty, "\(where_)")
        }
      }
    }
  }

  @Test(arguments: [
    ("a\\nb", "\\n", [1]), ("a\\\\nb", "\\n", [1]), ("line\nnext\\", "\\", [2]),
    ("tab\there", "t", [1]), ("x\r\ny\r", "y\r", [2]), ("x\r\ny", "x\r", []), ("", "", []),
    ("a\nb\n", "", [1, 2]), ("a\nb", "", [1, 2]), ("a\nb", "a\nb", []), ("\u{1}\n\u{1B}", "0", []),
    ("\u{1}\n\u{1}00", "00", [2]), ("x\\u0001", "u00", [1]), ("\u{1}\nb", "u", []),
    ("\t\r\n\\r\n", "r", [2]), ("\\\n\\n", "n", [2]),
  ])
  func edgesOfLinesAndEscapes(content: String, needle: String, lines: [Int]) throws {
    for literal in [nil, Array("\"\(content.jsonBody)\"".utf8)] {
      let hits = try Self.engineMatches(
        of: .text(needle, ignoringCase: false), in: content, spelled: literal, mode: .lines)
      #expect((hits?.lines.pairs ?? []).map(\.number) == lines, "\(needle.debugDescription)")
    }
  }

  @Test func arbitraryBytesInALiteralAreMatchedOrReportedNeverTrapped() throws {
    // Not what docsh writes: stray backslashes, bad escapes, broken UTF-8, raw control
    // characters. Each search returns or throws; none may trap.
    var random = SeededGenerator(seed: 0xBAD_B17E5)
    let alphabet: [UInt8] =
      Array("\\\"nrtu0aA/é".utf8) + [0x0A, 0x0D, 0x01, 0xC3, 0x80, 0xFF, 0xE2]
    let patterns: [ContentPattern] = [
      .text("n", ignoringCase: false), .text("é", ignoringCase: true),
      .text("a\\", ignoringCase: true),
      .text("u0", ignoringCase: false), .regularExpression("a+", ignoringCase: true),
      .regularExpression("(n|t)", ignoringCase: false),
    ]
    var outcomes = (matched: 0, refused: 0)
    for _ in 0..<1500 {
      let body = (0..<Int.random(in: 0...24, using: &random)).map { _ in
        alphabet.randomElement(using: &random) ?? 0x61
      }
      let literal = [UInt8(ascii: "\"")] + body + [UInt8(ascii: "\"")]
      for pattern in patterns {
        for mode in [ContentSearchMode.lines, .counts, .documents] {
          let searcher = try ContentSearcher(pattern: pattern, mode: mode)
          do {
            if try literal.withUnsafeBytes({ try searcher.search(literal: $0) }) != nil {
              outcomes.matched += 1
            }
          } catch {
            outcomes.refused += 1
          }
        }
      }
    }
    #expect(outcomes.matched > 0 && outcomes.refused > 0)
  }

  @Test func theStraysAreEveryScalarNoMappingOfItsFoldLeadsBackTo() {
    // Checks CaseFolder.strays against the Unicode data this Swift carries: every scalar is
    // among the scalars that fold like it.
    var missing: [String] = []
    for value in 0...0x10_FFFF {
      guard let scalar = Unicode.Scalar(value), scalar.properties.changesWhenCaseMapped else {
        continue
      }
      let folded = CaseFolder.fold(scalar)
      if !CaseFolder.scalars(foldingTo: folded).contains(scalar) {
        missing.append(String(value, radix: 16))
      }
    }
    #expect(missing.isEmpty, "not reached from their fold: \(missing)")
  }

  @Test(arguments: [
    ("K", "\u{212A}", true), ("k", "K", true), ("s", "ſ", true), ("σ", "ς", true),
    ("Σ", "ς", true), ("i", "ı", true), ("I", "ı", true), ("i", "İ", false), ("ß", "ẞ", true),
    ("ss", "ß", false), ("µ", "μ", true), ("é", "e\u{301}", false), ("Ⱥ", "ⱥ", true),
    ("ǅ", "ǆ", true), ("Ǆ", "ǅ", true),
  ])
  func foldingPutsTogetherWhatCaseAloneTellsApart(needle: String, text: String, matches: Bool)
    throws
  {
    let hits = try Self.engineMatches(
      of: .text(needle, ignoringCase: true), in: "x \(text) y", spelled: nil, mode: .counts)
    #expect((hits != nil) == matches)
  }
}

extension String {
  /// The body of this text's literal as docsh writes it.
  fileprivate var jsonBody: String {
    var bytes: [UInt8] = []
    JSONText.appendBody(self, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }
}
