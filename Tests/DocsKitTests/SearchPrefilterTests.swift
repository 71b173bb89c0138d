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
  }

  @Test(arguments: [
    ("needle", "haystack with needle", 14), ("needle", "needl", nil), ("", "x", 0),
    ("aab", "aaab", 1), ("ab", "a", nil), ("x", String(repeating: "y", count: 40) + "x", 40),
    ("end", String(repeating: "-", count: 33) + "end", 33),
    ("tail!", String(repeating: "tail", count: 9) + "tail!", 36),
    ("é", "cafe\u{301} café", 10),
  ])
  func findsBytesAtTheirFirstOffset(needle: String, haystack: String, expected: Int?) {
    let found = Array(needle.utf8).withUnsafeBytes { needleBytes in
      Array(haystack.utf8).withUnsafeBytes {
        ContentSearcher.firstOffset(of: needleBytes, in: $0, from: 0)
      }
    }
    #expect(found == expected)
  }

  @Test func findsEveryOffsetInBlocksAndTheTail() {
    // Needles across the sixteen-byte blocks and in the bytes after the last whole block.
    let haystack = Array("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ".utf8)
    for start in 0..<haystack.count {
      for length in 1...min(5, haystack.count - start) {
        let needle = Array(haystack[start..<(start + length)])
        let found = needle.withUnsafeBytes { needleBytes in
          haystack.withUnsafeBytes { ContentSearcher.firstOffset(of: needleBytes, in: $0, from: 0) }
        }
        #expect(found == start, "\(start) \(length)")
      }
    }
  }

  @Test(arguments: [
    (#"\u0041"#, false), (#"\\u0041"#, true), (#"\\\u0041"#, false), (#"plain u"#, true),
    (#"\n\\"#, true), (#"\u001b and \u0000"#, true), (#"\u001B"#, false),
    (#"\u000a"#, false), (#"a\/b"#, false), (#"\t\r\b\f\""#, true), (#"\ud83d\ude00"#, false),
  ])
  func tellsTheEscapesDocshWritesFromOthers(body: String, canonical: Bool) {
    let isCanonical = Array(body.utf8).withUnsafeBytes {
      JSONTextLines.spellsEachCharacterOneWay($0)
    }
    #expect(isCanonical == canonical, "\(body)")
    // Far into a longer body too, past the bytes looked at sixteen at a time.
    let padded = String(repeating: "abc\\\\", count: 9) + body + String(repeating: "xyz", count: 7)
    let paddedIsCanonical = Array(padded.utf8).withUnsafeBytes {
      JSONTextLines.spellsEachCharacterOneWay($0)
    }
    #expect(paddedIsCanonical == canonical, "\(padded)")
  }

  @Test func findsEitherOfTwoNeedlesAtTheFirstOffset() {
    // A small and a capital letter of the same length, found in one scan: whichever comes
    // first, in the blocks and in the tail.
    let haystack = Array((String(repeating: "xλy", count: 12) + "Λ end").utf8)
    let small = Array("λ".utf8)
    let capital = Array("Λ".utf8)
    func first(from: Int) -> Int? {
      small.withUnsafeBytes { one in
        capital.withUnsafeBytes { other in
          haystack.withUnsafeBytes {
            ContentSearcher.firstOffset(of: one, or: other, in: $0, from: from)
          }
        }
      }
    }
    #expect(first(from: 0) == 1)
    #expect(first(from: 2) == 5)
    #expect(first(from: 4 * 11 + 2) == 4 * 12)
    #expect(first(from: 4 * 12 + 1) == nil)
  }
}
