import Foundation
import Testing

@testable import DocsKit

/// Content search reads faults in one pass and rejects documents by their encoded bytes
/// first; neither may lose a match, whatever escapes another tool wrote.
@Suite struct SearchPrefilterTests {
  @Test func findsTextSpelledWithEscapesByAnotherTool() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "docsh-prefilter-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("store.json").path
    func document(_ id: Int, _ name: String, _ literal: String) -> String {
      """
      {"id":"00000000-0000-4000-8000-00000000000\(id)","name":"\(name)","content":\(literal),"size":1,"modified":"2026-11-29T14:53:00.000Z"}
      """
    }
    let text = """
      {"format":"docsh-store","version":1,"generation":1,"categories":[{"id":"00000000-0000-4000-8000-000000000001","name":"C","documents":[
      \(document(2, "escaped", #""first\n\u0041BC here""#)),
      \(document(3, "plain", #""ABC plain""#)),
      \(document(4, "none", #""nothing to see""#)),
      \(document(5, "split", #""AB\nC""#)),
      \(document(6, "backslash-u", #""a \\u0041BC is not an escape""#))
      ]}]}
      """
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    let context = try Context(store: JSONStore(path: path))
    let matches = try context.searchContents(for: .text("ABC", ignoringCase: false))
    #expect(
      matches.map { "\($0.document.name):\($0.lineNumber):\($0.line)" } == [
        "escaped:2:ABC here", "plain:1:ABC plain",
      ])
    #expect(Context.rawNeedle(for: .text("ABC", ignoringCase: false)) == Array("ABC".utf8))
    #expect(Context.rawNeedle(for: .text("a\"b", ignoringCase: false)) == nil)
    #expect(Context.rawNeedle(for: .text("abc", ignoringCase: true)) == nil)
  }

  @Test(arguments: [
    ("needle", "haystack with needle", true), ("needle", "needl", false), ("", "x", true),
    ("aab", "aaab", true), ("ab", "a", false),
  ])
  func findsBytes(needle: String, haystack: String, expected: Bool) {
    let found = Array(needle.utf8).withUnsafeBytes { needleBytes in
      Array(haystack.utf8).withUnsafeBytes { JSONText.contains(needleBytes, in: $0) }
    }
    #expect(found == expected)
  }

  @Test(arguments: [
    (#""\u0041""#, true), (#""\\u0041""#, false), (#""\\\u0041""#, true), (#""plain u""#, false),
    (#""\n\\""#, false),
  ])
  func tellsEscapesFromEscapedBackslashes(literal: String, expected: Bool) {
    let found = Array(literal.utf8).withUnsafeBytes { JSONText.hasUnicodeEscape($0) }
    #expect(found == expected)
  }
}
