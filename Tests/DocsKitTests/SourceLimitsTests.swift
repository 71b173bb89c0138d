import Foundation
import Testing

/// Keeps the sources readable: no Swift file under `Sources/` over 600 lines, no function,
/// initializer, deinitializer or subscript over 80 (from the line of its keyword to the line
/// of its closing brace, as the issue that set the limits counted them).
@Suite struct SourceLimitsTests {
  static let maximumFileLines = 600
  static let maximumFunctionLines = 80
  static let sources = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources")

  @Test func noSourceFileOrFunctionIsTooLong() throws {
    let files = try Self.swiftFiles()
    #expect(files.count > 50, "found only \(files.count) Swift files under \(Self.sources.path)")
    var problems: [String] = []
    for file in files {
      let text = try String(contentsOf: file, encoding: .utf8)
      let path = file.path.replacingOccurrences(of: Self.sources.path + "/", with: "Sources/")
      let lines = SourceLimits.lineCount(of: text)
      if lines > Self.maximumFileLines {
        problems.append("\(path): \(lines) lines (at most \(Self.maximumFileLines))")
      }
      for function in SourceLimits.functions(in: text)
      where function.lineCount > Self.maximumFunctionLines {
        problems.append(
          "\(path):\(function.line): \(function.name) has \(function.lineCount) lines "
            + "(at most \(Self.maximumFunctionLines))")
      }
    }
    #expect(problems.isEmpty, Comment(rawValue: "\n" + problems.joined(separator: "\n")))
  }

  @Test func measuresFunctionsPastStringsCommentsAndDefaultClosures() {
    let text = #"""
      /// A doc comment with a brace { and func inside.
      func first(
        handler: () -> Void = { }
      ) {
        let brace = "}"  // a } in a comment
        let interpolated = "\(brace.isEmpty ? "{" : "}")"
        let block = """
          } } }
          """
        /* a block comment { /* nested } */ } */
        _ = (interpolated, block, #"raw "}" \(not)"#)
      }
      protocol P {
        func required() -> Int
        init?(argument: String)
        static var all: [String] { get }
      }
      struct S {
        init() {
          self.init(other: 1)
        }
        deinit {}
      }
      """#
    let functions = SourceLimits.functions(in: text)
    #expect(functions.map(\.name) == ["first", "init", "deinit"])
    #expect(functions.map(\.line) == [2, 19, 22])
    #expect(functions.map(\.lineCount) == [11, 3, 1])
  }

  @Test func countsLinesAsAnEditorShowsThem() {
    #expect(SourceLimits.lineCount(of: "") == 0)
    #expect(SourceLimits.lineCount(of: "a\nb\n") == 2)
    #expect(SourceLimits.lineCount(of: "a\nb") == 2)
  }

  static func swiftFiles() throws -> [URL] {
    guard
      let enumerator = FileManager.default.enumerator(
        at: sources, includingPropertiesForKeys: nil)
    else { return [] }
    return enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
      .sorted { $0.path < $1.path }
  }
}

/// Just enough of Swift's lexical structure to measure files and functions: comments and
/// string literals (with their interpolations) are skipped, braces and parentheses counted.
enum SourceLimits {
  /// A function, initializer, deinitializer or subscript with a body.
  struct Function: Equatable {
    /// `func`'s name, or `init`, `deinit`, `subscript`.
    var name: String
    /// The line of its keyword, from 1.
    var line: Int
    /// From the line of its keyword to the line of its closing brace, both counted.
    var lineCount: Int
  }

  /// The number of lines of `text`; a last line without a newline counts.
  static func lineCount(of text: String) -> Int {
    let newlines = text.utf8.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    return newlines + (text.isEmpty || text.utf8.last == 0x0A ? 0 : 1)
  }

  /// Every function of `text` that has a body, in order of its keyword.
  static func functions(in text: String) -> [Function] {
    var lexer = Lexer(Array(text.utf8))
    let tokens = lexer.lex()
    var functions: [Function] = []
    for (index, token) in tokens.enumerated() {
      guard ["func", "init", "deinit", "subscript"].contains(token.text),
        index == 0 || tokens[index - 1].text != "."
      else { continue }
      guard let open = bodyStart(after: index, in: tokens),
        let close = matchingBrace(of: open, in: tokens)
      else { continue }
      let name =
        token.text == "func" && index + 1 < tokens.count ? tokens[index + 1].text : token.text
      functions.append(
        Function(name: name, line: token.line, lineCount: tokens[close].line - token.line + 1))
    }
    return functions
  }

  /// The words that start another declaration: a function without a body (a protocol's
  /// requirement) is followed by one of them, or by the end of its scope.
  private static let declarationStarts: Set<String> = [
    "func", "init", "deinit", "subscript", "var", "let", "case", "struct", "class", "enum",
    "protocol", "extension", "typealias", "associatedtype", "static", "private", "fileprivate",
    "internal", "public", "open", "mutating", "nonmutating", "override", "#if", "#endif",
  ]

  /// The index of the `{` that opens the body of the declaration whose keyword is at
  /// `keyword`, or `nil` when it has none.
  private static func bodyStart(after keyword: Int, in tokens: [Token]) -> Int? {
    var depth = 0
    var index = keyword + 1
    while index < tokens.count {
      let text = tokens[index].text
      switch text {
      case "(", "[": depth += 1
      case ")", "]": depth -= 1
      case "{" where depth == 0: return index
      case "{":
        // A closure among the parameters (a default value): skipped whole.
        guard let close = matchingBrace(of: index, in: tokens) else { return nil }
        index = close
      case "}" where depth == 0: return nil
      default:
        if depth == 0 && declarationStarts.contains(text) { return nil }
      }
      index += 1
    }
    return nil
  }

  /// The index of the `}` that closes the `{` at `open`.
  private static func matchingBrace(of open: Int, in tokens: [Token]) -> Int? {
    var depth = 0
    for index in open..<tokens.count {
      switch tokens[index].text {
      case "{": depth += 1
      case "}":
        depth -= 1
        if depth == 0 { return index }
      default: break
      }
    }
    return nil
  }

  struct Token {
    var text: String
    var line: Int
  }

  /// Splits source bytes into words and punctuation, dropping comments and literals.
  struct Lexer {
    let bytes: [UInt8]
    var index = 0
    var line = 1
    var tokens: [Token] = []

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func lex() -> [Token] {
      code(untilParenthesisCloses: false)
      return tokens
    }

    private func peek(_ offset: Int = 0) -> UInt8? {
      index + offset < bytes.count ? bytes[index + offset] : nil
    }

    private mutating func advance() {
      if bytes[index] == 0x0A { line += 1 }
      index += 1
    }

    /// Code, up to the end, or (inside an interpolation) to the `)` that closes it.
    private mutating func code(untilParenthesisCloses: Bool) {
      var parentheses = 0
      while let byte = peek() {
        switch byte {
        case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/"):
          while let next = peek(), next != 0x0A { advance() }
        case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
          blockComment()
        case UInt8(ascii: "\""):
          string()
        case UInt8(ascii: "#") where startsRawString():
          string()
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "{"), UInt8(ascii: "}"),
          UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "."), UInt8(ascii: "@"):
          if byte == UInt8(ascii: "(") { parentheses += 1 }
          if byte == UInt8(ascii: ")") {
            if untilParenthesisCloses && parentheses == 0 {
              advance()
              return
            }
            parentheses -= 1
          }
          tokens.append(Token(text: String(UnicodeScalar(byte)), line: line))
          advance()
        case _ where isWordByte(byte) || byte == UInt8(ascii: "#"):
          let start = index
          let startLine = line
          advance()
          while let next = peek(), isWordByte(next) { advance() }
          tokens.append(
            Token(text: String(decoding: bytes[start..<index], as: UTF8.self), line: startLine))
        default:
          advance()
        }
      }
    }

    private func isWordByte(_ byte: UInt8) -> Bool {
      byte == UInt8(ascii: "_") || byte >= 0x80
        || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Whether the `#`s here open a raw string literal.
    private func startsRawString() -> Bool {
      var offset = 0
      while peek(offset) == UInt8(ascii: "#") { offset += 1 }
      return peek(offset) == UInt8(ascii: "\"")
    }

    private mutating func blockComment() {
      var depth = 0
      while let byte = peek() {
        if byte == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "*") {
          depth += 1
          advance()
        } else if byte == UInt8(ascii: "*"), peek(1) == UInt8(ascii: "/") {
          depth -= 1
          advance()
          if depth == 0 {
            advance()
            return
          }
        }
        advance()
      }
    }

    /// A string literal: `"…"`, `"""…"""`, raw with any number of `#`; interpolations
    /// (`\(…)`, `\#(…)` in a raw one) are read as code.
    private mutating func string() {
      var hashes = 0
      while peek() == UInt8(ascii: "#") {
        hashes += 1
        advance()
      }
      let multiline = peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"")
      let quotes = multiline ? 3 : 1
      for _ in 0..<quotes { advance() }
      while let byte = peek() {
        if byte == UInt8(ascii: "\\") && hashesFollow(hashes, from: 1) {
          for _ in 0...hashes { advance() }
          if peek() == UInt8(ascii: "(") {
            advance()
            code(untilParenthesisCloses: true)
          } else if peek() != nil {
            advance()
          }
          continue
        }
        if byte == UInt8(ascii: "\"") && closes(quotes: quotes, hashes: hashes) {
          for _ in 0..<(quotes + hashes) { advance() }
          return
        }
        if byte == 0x0A && !multiline { return }
        advance()
      }
    }

    private func hashesFollow(_ count: Int, from offset: Int) -> Bool {
      (0..<count).allSatisfy { peek(offset + $0) == UInt8(ascii: "#") }
    }

    private func closes(quotes: Int, hashes: Int) -> Bool {
      (0..<quotes).allSatisfy { peek($0) == UInt8(ascii: "\"") }
        && hashesFollow(hashes, from: quotes)
    }
  }
}
