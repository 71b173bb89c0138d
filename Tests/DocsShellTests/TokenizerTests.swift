import Testing

@testable import DocsShell

@Suite struct TokenizerTests {
  /// A line and the words of each command it should give.
  struct WordsCase: CustomTestStringConvertible, Sendable {
    let line: String
    let commands: [[String]]
    var testDescription: String { line.debugDescription }
  }

  static let wordsCases: [WordsCase] = [
    WordsCase(line: "", commands: []),
    WordsCase(line: "   \t  ", commands: []),
    WordsCase(line: "ls", commands: [["ls"]]),
    WordsCase(line: "  cd   Work  ", commands: [["cd", "Work"]]),
    WordsCase(line: "a\tb", commands: [["a", "b"]]),
    WordsCase(line: "cd 'Meeting Notes'", commands: [["cd", "Meeting Notes"]]),
    WordsCase(line: #"cd "Meeting Notes""#, commands: [["cd", "Meeting Notes"]]),
    WordsCase(line: #"cd Meeting\ Notes"#, commands: [["cd", "Meeting Notes"]]),
    WordsCase(line: #"a\\b"#, commands: [[#"a\b"#]]),
    WordsCase(line: #"a\bc"#, commands: [["abc"]]),
    WordsCase(line: #"'a\b'"#, commands: [[#"a\b"#]]),
    WordsCase(line: #"'a"b'"#, commands: [[#"a"b"#]]),
    WordsCase(line: #""a'b""#, commands: [["a'b"]]),
    WordsCase(line: #""a\"b""#, commands: [[#"a"b"#]]),
    WordsCase(line: #""a\\b""#, commands: [[#"a\b"#]]),
    WordsCase(line: #""a\$b\`c""#, commands: [["a$b`c"]]),
    WordsCase(line: #""a\nb""#, commands: [[#"a\nb"#]]),
    WordsCase(line: #""a\ b""#, commands: [[#"a\ b"#]]),
    WordsCase(line: "\"a\\\nb\"", commands: [["ab"]]),
    WordsCase(line: "a\\\nb", commands: [["ab"]]),
    WordsCase(line: #"'it'\''s'"#, commands: [["it's"]]),
    WordsCase(line: #"it\'s"#, commands: [["it's"]]),
    WordsCase(line: #"pre"mid"'post'"#, commands: [["premidpost"]]),
    WordsCase(line: #"echo """#, commands: [["echo", ""]]),
    WordsCase(line: "echo '' x", commands: [["echo", "", "x"]]),
    WordsCase(line: "echo \"\"''", commands: [["echo", ""]]),
    WordsCase(line: "# only a comment", commands: []),
    WordsCase(line: "ls # list", commands: [["ls"]]),
    WordsCase(line: "ls a#b", commands: [["ls", "a#b"]]),
    WordsCase(line: "ls '#'", commands: [["ls", "#"]]),
    WordsCase(line: ##"ls \#x"##, commands: [["ls", "#x"]]),
    WordsCase(line: "ls #a; cd b", commands: [["ls"]]),
    WordsCase(line: "ls;cd b", commands: [["ls"], ["cd", "b"]]),
    WordsCase(line: "ls ; cd b ;", commands: [["ls"], ["cd", "b"]]),
    WordsCase(line: ";;  ; ls;;", commands: [["ls"]]),
    WordsCase(line: "ls;#x", commands: [["ls"]]),
    WordsCase(line: "a 'x;y' \"p;q\" r\\;s", commands: [["a", "x;y", "p;q", "r;s"]]),
    WordsCase(line: "ls\ncd b", commands: [["ls"], ["cd", "b"]]),
    WordsCase(line: "ls # c\ncd b", commands: [["ls"], ["cd", "b"]]),
    WordsCase(line: "a<<b", commands: [["a<<b"]]),
    WordsCase(line: "cat '<<E'", commands: [["cat", "<<E"]]),
    WordsCase(line: #"cat \<<E"#, commands: [["cat", "<<E"]]),
    WordsCase(line: "Café 日本 🙂", commands: [["Café", "日本", "🙂"]]),
    WordsCase(line: "\\é", commands: [["é"]]),
    WordsCase(line: "-n --x", commands: [["-n", "--x"]]),
  ]

  @Test(arguments: wordsCases)
  func splitsWords(_ testCase: WordsCase) throws {
    let commands = try Tokenizer.commands(in: testCase.line)
    #expect(commands.map(\.words) == testCase.commands)
    #expect(commands.allSatisfy { $0.hereDocumentDelimiter == nil })
  }

  /// A line with a here-document marker and what it should give.
  struct HereDocumentCase: CustomTestStringConvertible, Sendable {
    let line: String
    let commands: [ParsedCommand]
    var testDescription: String { line.debugDescription }
  }

  static let hereDocumentCases: [HereDocumentCase] = [
    HereDocumentCase(
      line: "put a <<END",
      commands: [ParsedCommand(words: ["put", "a"], hereDocumentDelimiter: "END")]),
    HereDocumentCase(
      line: "put a << END",
      commands: [ParsedCommand(words: ["put", "a"], hereDocumentDelimiter: "END")]),
    HereDocumentCase(
      line: "put a <<'END'",
      commands: [ParsedCommand(words: ["put", "a"], hereDocumentDelimiter: "END")]),
    HereDocumentCase(
      line: #"put a <<"E N D""#,
      commands: [ParsedCommand(words: ["put", "a"], hereDocumentDelimiter: "E N D")]),
    HereDocumentCase(
      line: "put a <<END # text follows",
      commands: [
        ParsedCommand(words: ["put", "a"], hereDocumentDelimiter: "END", comment: "# text follows")
      ]),
    HereDocumentCase(
      line: "put a <<END;",
      commands: [ParsedCommand(words: ["put", "a"], hereDocumentDelimiter: "END")]),
    HereDocumentCase(
      line: "ls; put a <<EOF",
      commands: [
        ParsedCommand(words: ["ls"]),
        ParsedCommand(words: ["put", "a"], hereDocumentDelimiter: "EOF"),
      ]),
    HereDocumentCase(
      line: "put a <<''", commands: [ParsedCommand(words: ["put", "a"], hereDocumentDelimiter: "")]),
    HereDocumentCase(
      line: "<<END", commands: [ParsedCommand(words: [], hereDocumentDelimiter: "END")]),
    HereDocumentCase(
      line: "put a << <<END",
      commands: [ParsedCommand(words: ["put", "a"], hereDocumentDelimiter: "<<END")]),
  ]

  @Test(arguments: hereDocumentCases)
  func findsHereDocuments(_ testCase: HereDocumentCase) throws {
    #expect(try Tokenizer.commands(in: testCase.line) == testCase.commands)
  }

  /// A line the tokenizer must reject, and why.
  struct ErrorCase: CustomTestStringConvertible, Sendable {
    let line: String
    let error: TokenizerError
    var testDescription: String { line.debugDescription }
  }

  static let errorCases: [ErrorCase] = [
    ErrorCase(line: "cd 'Meeting", error: .unterminatedSingleQuote(column: 4)),
    ErrorCase(line: "é 'x", error: .unterminatedSingleQuote(column: 3)),
    ErrorCase(line: #"cd "Meeting"#, error: .unterminatedDoubleQuote(column: 4)),
    ErrorCase(line: #"cd "a\""#, error: .unterminatedDoubleQuote(column: 4)),
    ErrorCase(line: #"cd "a\"#, error: .unterminatedDoubleQuote(column: 4)),
    ErrorCase(line: #"cd a\"#, error: .trailingBackslash),
    ErrorCase(line: #"\"#, error: .trailingBackslash),
    ErrorCase(line: "put a <<END b", error: .hereDocumentNotLast(delimiter: "END")),
    ErrorCase(line: "put a <<END; ls", error: .hereDocumentNotLast(delimiter: "END")),
    ErrorCase(line: "put a <<A <<B", error: .hereDocumentNotLast(delimiter: "A")),
    ErrorCase(line: "put a <<A; put b <<B", error: .hereDocumentNotLast(delimiter: "A")),
    ErrorCase(line: "put a <<", error: .missingHereDocumentDelimiter(column: 7)),
    ErrorCase(line: "put a <<   ", error: .missingHereDocumentDelimiter(column: 7)),
    ErrorCase(line: "put a <<; ls", error: .missingHereDocumentDelimiter(column: 7)),
    ErrorCase(line: "put a << # x", error: .missingHereDocumentDelimiter(column: 7)),
    ErrorCase(line: "ls \u{0}x", error: .nulByte(column: 4)),
    ErrorCase(line: "'\u{0}'", error: .nulByte(column: 2)),
  ]

  @Test(arguments: errorCases)
  func rejectsMalformedLines(_ testCase: ErrorCase) {
    #expect(throws: testCase.error) { try Tokenizer.commands(in: testCase.line) }
  }

  @Test(arguments: [
    (
      TokenizerError.unterminatedSingleQuote(column: 4),
      "unterminated single quote (opened at column 4)"
    ),
    (.unterminatedDoubleQuote(column: 2), "unterminated double quote (opened at column 2)"),
    (.trailingBackslash, "the line ends with a backslash that escapes nothing"),
    (
      .hereDocumentNotLast(delimiter: "END"),
      "the here-document <<END must be the last word of the line"
    ),
    (
      .missingHereDocumentDelimiter(column: 7), "<< at column 7 is not followed by a delimiter word"
    ),
    (.nulByte(column: 3), "the line contains a NUL byte"),
  ])
  func describesErrorsInOneLine(_ error: TokenizerError, _ text: String) {
    #expect(error.description == text)
    #expect(!error.description.contains("\n"))
  }

  // MARK: - Hostile input

  @Test func handlesAMegabyteLine() throws {
    let word = String(repeating: "x", count: 1 << 20)
    let commands = try Tokenizer.commands(in: "put " + word + " 'tail end'")
    #expect(commands.map(\.words) == [["put", word, "tail end"]])
  }

  @Test func handlesManyAlternatingQuotes() throws {
    let line = String(repeating: #""'"'"'"#, count: 10_000)
    let commands = try Tokenizer.commands(in: line)
    #expect(commands.map(\.words) == [[String(repeating: "'\"", count: 10_000)]])
  }

  @Test func handlesManyAdjacentEmptyQuotes() throws {
    let commands = try Tokenizer.commands(in: String(repeating: "''\"\"", count: 10_000) + " ;")
    #expect(commands.map(\.words) == [[""]])
  }

  @Test func reportsAnUnterminatedQuoteAfterManyWords() {
    let line = String(repeating: "a ", count: 50_000) + "'"
    #expect(throws: TokenizerError.unterminatedSingleQuote(column: 100_001)) {
      try Tokenizer.commands(in: line)
    }
  }

  @Test func keepsRepairedInvalidUTF8AsReplacementCharacters() throws {
    let line = String(decoding: [0x61, 0xFF, 0x20, 0xC3], as: UTF8.self)
    #expect(try Tokenizer.commands(in: line).map(\.words) == [["a\u{FFFD}", "\u{FFFD}"]])
  }

  /// Every line of four characters from an alphabet of specials either gets a one-line error
  /// or splits into words that, quoted back with single quotes, split into the same words.
  @Test func shortSpecialSequencesRoundTripOrFailInOneLine() {
    let alphabet: [String] = ["a", " ", "'", "\"", "\\", ";", "#", "<", "\n", "é"]
    func quoted(_ word: String) -> String { "'" + word.replacing("'", with: "'\\''") + "'" }
    var failures: [String] = []
    for first in alphabet {
      for second in alphabet {
        for third in alphabet {
          for fourth in alphabet {
            let line = first + second + third + fourth
            let commands: [ParsedCommand]
            do {
              commands = try Tokenizer.commands(in: line)
            } catch {
              if error.description.isEmpty || error.description.contains("\n") {
                failures.append(
                  "\(line.debugDescription): error \(error.description.debugDescription)")
              }
              continue
            }
            let requoted = commands.map { command in
              (command.words.map(quoted)
                + (command.hereDocumentDelimiter.map { ["<<" + quoted($0)] } ?? []))
                .joined(separator: " ")
            }.joined(separator: "; ")
            // A comment is dropped by requoting; the words and here-documents must survive.
            let withoutComments = commands.map {
              ParsedCommand(words: $0.words, hereDocumentDelimiter: $0.hereDocumentDelimiter)
            }
            if (try? Tokenizer.commands(in: requoted)) != withoutComments {
              failures.append("\(line.debugDescription) -> \(requoted.debugDescription)")
            }
          }
        }
      }
    }
    #expect(failures.isEmpty, "\(failures.prefix(5))")
  }

  // MARK: - Escaping for completion

  @Test(arguments: [
    ("Work", "Work"),
    ("Meeting Notes", #"Meeting\ Notes"#),
    ("a\tb", "a\\\tb"),
    (#"it's "x""#, #"it\'s\ \"x\""#),
    (#"a\b"#, #"a\\b"#),
    ("x;y#z$w&v|u(t)s<r>q*p?o[n]m~l`k", ##"x\;y\#z\$w\&v\|u\(t\)s\<r\>q\*p\?o\[n\]m\~l\`k"##),
    ("-n", "-n"),
    ("Café 日本", #"Café\ 日本"#),
    ("", "''"),
    ("two\nlines", "'two\nlines'"),
    ("it's\n", "'it'\\''s\n'"),
  ])
  func escapesWords(_ word: String, _ escaped: String) throws {
    #expect(Tokenizer.escapeWord(word) == escaped)
    #expect(try Tokenizer.commands(in: "cmd " + escaped).map(\.words) == [["cmd", word]])
  }

  @Test(arguments: [
    ("alpha", "alpha"),
    (#"alpha\ d"#, "alpha d"),
    (#""alpha d"#, "alpha d"),
    ("'alpha d", "alpha d"),
    (#""alpha d""#, "alpha d"),
    (#"'it'\''s"#, "it's"),
    (#"alpha\"#, "alpha"),
    (#""a\"b\"#, #"a"b"#),
    (#""a\nb"#, #"a\nb"#),
    ("'a\\", "a\\"),
    ("", ""),
    ("\"", ""),
  ])
  func unescapesPartialWords(_ typed: String, _ denoted: String) {
    #expect(Tokenizer.unescapePartialWord(typed) == denoted)
  }
}

@Suite struct CompletionContextTests {
  @Test(arguments: [
    ("", [String](), "", false),
    ("c", [], "c", false),
    ("cd ", ["cd"], "", false),
    (#"cd "alpha d"#, ["cd"], "alpha d", false),
    (#"cd alpha\ d"#, ["cd"], "alpha d", false),
    ("mv 'a b' c", ["mv", "a b"], "c", false),
    ("ls; cd Wo", ["cd"], "Wo", false),
    ("ls # cd Wo", ["ls"], "", true),
    ("cd a#b", ["cd"], "a#b", false),
    ("cat \"x;y\" z", ["cat", "x;y"], "z", false),
    // A line continuation vanishes as the tokenizer drops it: the # then opens a comment.
    ("ls \\\n# cd Wo", ["ls"], "", true),
    ("ls a\\\nb", ["ls"], "ab", false),
  ])
  func readsTheLineBeforeTheCursor(
    _ line: String, _ words: [String], _ partial: String, _ inComment: Bool
  ) {
    let context = CompletionContext(lineBeforeCursor: line, wordBeingCompleted: "")
    #expect(context.precedingWords == words)
    #expect(context.partialWord == partial)
    #expect(context.isInComment == inComment)
  }

  /// A line before the cursor, libedit's word, candidates, and the replacements expected.
  struct ReplacementCase: CustomTestStringConvertible, Sendable {
    let line: String
    let editorWord: String
    let candidates: [String]
    let replacements: [String]
    var testDescription: String { line.debugDescription }
  }

  static let replacementCases: [ReplacementCase] = [
    ReplacementCase(
      line: "cd Mee", editorWord: "Mee", candidates: ["Meeting Notes"],
      replacements: [#"Meeting\ Notes"#]),
    ReplacementCase(
      line: "cd ", editorWord: "", candidates: ["A b", "C"], replacements: [#"A\ b"#, "C"]),
    ReplacementCase(
      line: #"cd Meeting\ N"#, editorWord: #"Meeting\ N"#, candidates: ["Meeting Notes"],
      replacements: [#"Meeting\ Notes"#]),
    ReplacementCase(
      line: #"cd "alpha d"#, editorWord: "d", candidates: ["alpha dog"], replacements: [#"dog""#]),
    ReplacementCase(
      line: #"cd "alpha d"#, editorWord: "d", candidates: ["alpha dog", "alpha dig"],
      replacements: ["dog", "dig"]),
    ReplacementCase(
      line: #"cd "alpha d"#, editorWord: "d", candidates: ["alpha dir/"], replacements: ["dir/"]),
    ReplacementCase(
      line: #"cd "al"#, editorWord: "al", candidates: [#"al "$x""#], replacements: [#"al \"\$x\"""#]
    ),
    ReplacementCase(
      line: "cd 'it", editorWord: "it", candidates: ["it's"], replacements: [#"it'\''s'"#]),
    ReplacementCase(line: "cd \"", editorWord: "", candidates: ["a b"], replacements: [#"a b""#]),
    ReplacementCase(
      line: "cd mee", editorWord: "mee", candidates: ["Meeting"], replacements: ["Meeting"]),
    ReplacementCase(
      line: "set x=Hel", editorWord: "Hel", candidates: ["x=Hello World"],
      replacements: [#"Hello\ World"#]),
    ReplacementCase(
      line: "cd ab", editorWord: "zzab", candidates: ["abc d"], replacements: [#"abc\ d"#]),
  ]

  @Test(arguments: replacementCases)
  func replacesLibeditsWord(_ testCase: ReplacementCase) throws {
    let context = CompletionContext(
      lineBeforeCursor: testCase.line, wordBeingCompleted: testCase.editorWord)
    let replacements = context.replacements(for: testCase.candidates)
    #expect(replacements == testCase.replacements)
  }

  @Test func aUniqueReplacementCompletesTheTypedWord() throws {
    let line = #"cd "Meeting N"#
    let context = CompletionContext(lineBeforeCursor: line, wordBeingCompleted: "N")
    let replacement = try #require(context.replacements(for: ["Meeting Notes"]).first)
    let completed = String(line.dropLast(1)) + replacement
    #expect(try Tokenizer.commands(in: completed).map(\.words) == [["cd", "Meeting Notes"]])
  }

  /// The word libedit hands the completer: the text after the last break character that is
  /// not escaped by a backslash (`rl_basic_word_break_characters` less the backslash, which
  /// libedit keeps in the word: `cd alpha\ d<TAB>` hands over `alpha\ d`).
  static func libeditWord(of line: String) -> String {
    let breaks = Set(" \t\n\"'`@$><=;|&{(".unicodeScalars)
    let scalars = Array(line.unicodeScalars)
    var start = 0
    for index in scalars.indices where breaks.contains(scalars[index]) {
      if index > 0 && scalars[index - 1] == "\\" { continue }
      start = index + 1
    }
    return String(String.UnicodeScalarView(scalars[start...]))
  }

  /// Completing any short line of specials with a candidate that extends the word being
  /// typed gives a line whose last word is that candidate, whatever quoting the user began.
  @Test func completionOfShortSpecialSequencesYieldsTheCandidate() {
    // No newline: libedit edits one line at a time.
    let alphabet: [String] = ["a", " ", "'", "\"", "\\", ";", "#", "\t", "é"]
    var failures: [String] = []
    var checked = 0
    for first in alphabet {
      for second in alphabet {
        for third in alphabet {
          for fourth in alphabet {
            let line = first + second + third + fourth
            // libedit looks only at the character before a break: `\\ ` and `\'` fool it
            // into a word that is not the typed one, and no completer can mend that.
            if line.contains("\\\\") || line.contains("\\'") || line.contains("\\\"") { continue }
            let word = Self.libeditWord(of: line)
            let context = CompletionContext(lineBeforeCursor: line, wordBeingCompleted: word)
            guard !context.isInComment,
              (try? Tokenizer.commands(in: line + "'")) != nil
                || (try? Tokenizer.commands(in: line + "\"")) != nil
                || (try? Tokenizer.commands(in: line)) != nil
            else { continue }
            for ending in ["a b", "it's \"q\"", "é;#"] {
              let candidate = context.partialWord + ending
              guard let replacement = context.replacements(for: [candidate]).first else {
                failures.append("\(line.debugDescription): no replacement")
                continue
              }
              let completed =
                String(line.unicodeScalars.dropLast(word.unicodeScalars.count))
                + replacement
              guard let commands = try? Tokenizer.commands(in: completed) else { continue }
              checked += 1
              if commands.last?.words.last != candidate {
                failures.append(
                  "\(line.debugDescription) + \(replacement.debugDescription): \(commands.map(\.words))"
                )
              }
            }
          }
        }
      }
    }
    #expect(checked > 1000)
    #expect(failures.isEmpty, "\(failures.count) failures, e.g. \(failures.prefix(8))")
  }
}
