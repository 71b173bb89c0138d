import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// The line diff `diff NAME` shows: hunks with context as `diff -u` makes them, the fewest
/// lines changed.
@Suite struct TextDiffTests {
  /// The hunks rendered as `diff -u` writes them (without the file header).
  static func render(_ hunks: [DiffHunk]) -> String {
    var text = ""
    for hunk in hunks {
      text += hunk.header + "\n"
      for line in hunk.lines {
        switch line.kind {
        case .context: text += " "
        case .removed: text += "-"
        case .added: text += "+"
        }
        text += line.text + "\n"
        if !line.hasNewline { text += "\\ No newline at end of file\n" }
      }
    }
    return text
  }

  /// `old` with the hunks applied, checking that every context and removed line is there.
  static func apply(_ hunks: [DiffHunk], to old: String) -> String? {
    let lines = TextDiff.split(old)
    var result: [DiffLine] = []
    var position = 0
    for hunk in hunks {
      let start = hunk.oldCount == 0 ? hunk.oldStart : hunk.oldStart - 1
      guard start >= position, start <= lines.count else { return nil }
      result += lines[position..<start]
      position = start
      for line in hunk.lines {
        switch line.kind {
        case .context, .removed:
          guard position < lines.count, lines[position].text == line.text,
            lines[position].hasNewline == line.hasNewline
          else { return nil }
          if line.kind == .context { result.append(lines[position]) }
          position += 1
        case .added:
          result.append(line)
        }
      }
    }
    result += lines[position...]
    return result.map { $0.text + ($0.hasNewline ? "\n" : "") }.joined()
  }

  @Test func equalTextsHaveNoHunks() {
    #expect(TextDiff.hunks(from: "a\nb\n", to: "a\nb\n").isEmpty)
    #expect(TextDiff.hunks(from: "", to: "").isEmpty)
  }

  @Test func oneChangedLineHasThreeLinesOfContextEachSide() {
    let old = (1...10).map { "line \($0)\n" }.joined()
    let new = old.replacingOccurrences(of: "line 5\n", with: "line five\n")
    #expect(
      Self.render(TextDiff.hunks(from: old, to: new)) == """
        @@ -2,7 +2,7 @@
         line 2
         line 3
         line 4
        -line 5
        +line five
         line 6
         line 7
         line 8

        """)
  }

  @Test func farApartChangesMakeTwoHunksAndNearOnesOne() {
    let old = (1...20).map { "\($0)\n" }.joined()
    var lines = (1...20).map { "\($0)\n" }
    lines[1] = "two\n"
    lines[17] = "eighteen\n"
    let far = TextDiff.hunks(from: old, to: lines.joined())
    #expect(far.map(\.header) == ["@@ -1,5 +1,5 @@", "@@ -15,6 +15,6 @@"])
    lines[17] = "18\n"
    lines[8] = "nine\n"
    let near = TextDiff.hunks(from: old, to: lines.joined())
    #expect(near.map(\.header) == ["@@ -1,12 +1,12 @@"])
  }

  @Test func aLastLineWithoutNewlineIsMarked() {
    let hunks = TextDiff.hunks(from: "a\nb", to: "a\nb\n")
    #expect(
      Self.render(hunks) == """
        @@ -1,2 +1,2 @@
         a
        -b
        \\ No newline at end of file
        +b

        """)
  }

  @Test func anEmptyTextAgainstAFullOne() {
    #expect(TextDiff.hunks(from: "", to: "x\ny\n").map(\.header) == ["@@ -0,0 +1,2 @@"])
    #expect(TextDiff.hunks(from: "x\n", to: "").map(\.header) == ["@@ -1 +0,0 @@"])
  }

  /// `diff --minimal -u` of two texts: how many lines it removes and adds.
  static func gnuCounts(_ old: String, _ new: String, in folder: TemporaryFolder) throws -> (
    Int, Int
  ) {
    let a = folder.path("a")
    let b = folder.path("b")
    try Data(old.utf8).write(to: URL(fileURLWithPath: a))
    try Data(new.utf8).write(to: URL(fileURLWithPath: b))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/diff")
    process.arguments = ["--minimal", "-U", "3", a, b]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let lines = String(decoding: output, as: UTF8.self).split(
      separator: "\n", omittingEmptySubsequences: false)
    let removed = lines.filter { $0.hasPrefix("-") && !$0.hasPrefix("--- ") }.count
    let added = lines.filter { $0.hasPrefix("+") && !$0.hasPrefix("+++ ") }.count
    return (removed, added)
  }

  @Test(arguments: 0..<150)
  func randomTextsDiffMinimallyAndTheHunksRebuildTheNewText(seed: UInt64) throws {
    var generator = SeededGenerator(seed: seed)
    let words = ["a", "b", "c", "d", "", "a b", "é", "日本"]
    func text() -> String {
      let count = Int.random(in: 0...30, using: &generator)
      let body = (0..<count).map { _ in words.randomElement(using: &generator) ?? "" }
        .joined(separator: "\n")
      return count > 0 && Bool.random(using: &generator) ? body + "\n" : body
    }
    let old = text()
    var new = old
    if Bool.random(using: &generator) {
      new = text()
    } else {
      var lines = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      for _ in 0..<Int.random(in: 1...4, using: &generator) where !lines.isEmpty {
        let index = Int.random(in: 0..<lines.count, using: &generator)
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: lines.remove(at: index)
        case 1: lines.insert(words.randomElement(using: &generator) ?? "", at: index)
        default: lines[index] = "changed"
        }
      }
      new = lines.joined(separator: "\n")
    }
    let context = Int.random(in: 0...3, using: &generator)
    let hunks = TextDiff.hunks(from: old, to: new, context: context)
    #expect(Self.apply(hunks, to: old) == new, "seed \(seed)")
    let folder = try TemporaryFolder("diff\(seed)")
    let (removed, added) = try Self.gnuCounts(old, new, in: folder)
    let lines = hunks.flatMap(\.lines)
    #expect(lines.filter { $0.kind == .removed }.count == removed, "seed \(seed)")
    #expect(lines.filter { $0.kind == .added }.count == added, "seed \(seed)")
  }
}
