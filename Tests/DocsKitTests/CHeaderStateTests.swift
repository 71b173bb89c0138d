import Foundation
import Testing

/// Keeps state out of the C headers Swift imports: a `static` variable of a header, or a
/// `static` local of a `static inline` function in one, gets a copy in every object file
/// that uses it, and an optimized build inlines Swift across files, so two callers may reach
/// two copies. The release binary lost its idle timer and its SIGTERM exit that way; state
/// lives in a shim's compiled `.c` file.
@Suite struct CHeaderStateTests {
  static let sources = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources")

  @Test func noHeaderOfAShimHoldsState() throws {
    let headers = try Self.headers()
    #expect(headers.count >= 3, "found only \(headers.count) headers under \(Self.sources.path)")
    var problems: [String] = []
    for header in headers {
      let text = try String(contentsOf: header, encoding: .utf8)
      let path = header.path.replacingOccurrences(of: Self.sources.path + "/", with: "Sources/")
      problems += CHeaderState.statefulLines(in: text).map { "\(path):\($0.line): \($0.text)" }
    }
    #expect(problems.isEmpty, Comment(rawValue: "\n" + problems.joined(separator: "\n")))
  }

  @Test func findsStaticVariablesAndLocalsButNotFunctionsOrConstants() {
    let text = """
      // static int in_a_comment = 0;
      static const int constant = 4;
      static inline int twice(int value) { return 2 * value; }
      static volatile int flag = 0;
      static int counter;
      static inline int *slot(void) {
        static int value;
        return &value;
      }
      /* static int in_a_block = 1; */
      """
    let found = CHeaderState.statefulLines(in: text).map(\.line)
    #expect(found == [4, 5, 7])
  }

  /// Every `.h` file of the C targets under `Sources/`.
  static func headers() throws -> [URL] {
    let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
    return (files?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "h" }
  }
}

/// Finds the lines of a C header that define state.
enum CHeaderState {
  /// The lines (numbered from 1) that declare a `static` variable that is not `const`, or a
  /// `static` local inside a function body; comments are ignored.
  static func statefulLines(in text: String) -> [(line: Int, text: String)] {
    var found: [(line: Int, text: String)] = []
    var depth = 0
    for (index, line) in withoutComments(text).split(
      separator: "\n", omittingEmptySubsequences: false
    ).enumerated() {
      let code = line.trimmingCharacters(in: .whitespaces)
      if code.hasPrefix("static ") {
        let isFunction = code.hasPrefix("static inline ") && depth == 0
        let isConstant = code.hasPrefix("static const ") && depth == 0
        if !isFunction && !isConstant { found.append((index + 1, code)) }
      }
      depth += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
    }
    return found
  }

  /// `text` with its `//` and `/* */` comments blanked out, lines kept.
  private static func withoutComments(_ text: String) -> String {
    var result = ""
    var characters = text.makeIterator()
    var previous: Character?
    var inLine = false
    var inBlock = false
    while let character = characters.next() {
      if inLine {
        if character == "\n" {
          inLine = false
          result.append(character)
        }
      } else if inBlock {
        if character == "\n" { result.append(character) }
        if previous == "*" && character == "/" {
          inBlock = false
          previous = nil
          continue
        }
      } else if previous == "/" && (character == "/" || character == "*") {
        result.removeLast()
        inLine = character == "/"
        inBlock = character == "*"
        previous = nil
        continue
      } else {
        result.append(character)
      }
      previous = character
    }
    return result
  }
}
