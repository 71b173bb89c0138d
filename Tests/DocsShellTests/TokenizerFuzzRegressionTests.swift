import Foundation
import Testing

@testable import DocsShell

/// Replays every input in `FuzzRegressions/tokenizer` through the tokenizer and completion,
/// as `fuzz/TokenizerFuzzer.swift` does: no input may crash or hang.
@Suite struct TokenizerFuzzRegressionTests {
  static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("FuzzRegressions/tokenizer")

  static let inputs: [String] =
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()

  @Test func theRegressionFolderHasInputs() {
    #expect(TokenizerFuzzRegressionTests.inputs.count >= 3)
  }

  @Test(arguments: inputs)
  func inputIsHandled(name: String) throws {
    let bytes = try Data(
      contentsOf: TokenizerFuzzRegressionTests.folder.appendingPathComponent(name))
    let line = String(decoding: bytes, as: UTF8.self)
    if let commands = try? Tokenizer.commands(in: line) {
      // What tokenizes re-escapes into words that tokenize back to themselves.
      for command in commands where !command.words.isEmpty {
        let again = try Tokenizer.commands(
          in: command.words.map(Tokenizer.escapeWord).joined(separator: " "))
        #expect(again.first?.words == command.words)
      }
    }
    _ = Tokenizer.unescapePartialWord(line)
    _ = CompletionContext(lineBeforeCursor: line, wordBeingCompleted: String(line.suffix(8)))
  }
}
