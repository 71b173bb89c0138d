import DocsTestSupport
import Foundation
import Testing

@testable import DocsKit

/// The three-way merge of texts by lines: what combines, what conflicts, the append rule,
/// and agreement with `git merge-file` wherever that rule does not apply.
@Suite struct LineMergeTests {
  /// One three-way case and the merge it must give (`nil`: a conflict).
  struct Case: CustomTestStringConvertible, Sendable {
    var label: String
    var base: String
    var mine: String
    var theirs: String
    var merged: String?

    var testDescription: String { label }
  }

  static let cases: [Case] = [
    Case(
      label: "different lines edited", base: "a\nb\nc\nd\ne\n", mine: "A\nb\nc\nd\ne\n",
      theirs: "a\nb\nc\nd\nE\n", merged: "A\nb\nc\nd\nE\n"),
    Case(
      label: "same line edited differently", base: "a\nb\nc\n", mine: "a\nX\nc\n",
      theirs: "a\nY\nc\n", merged: nil),
    Case(
      label: "adjacent lines edited (git: a conflict)", base: "a\nb\nc\n", mine: "A\nb\nc\n",
      theirs: "a\nB\nc\n", merged: nil),
    Case(
      label: "a line inserted next to a line edited (git: a conflict)", base: "a\nb\nc\n",
      mine: "A\nb\nc\n", theirs: "a\nx\nb\nc\n", merged: nil),
    Case(
      label: "both append: both kept, mine first", base: "a\n", mine: "a\nmine\n",
      theirs: "a\ntheirs\n", merged: "a\nmine\ntheirs\n"),
    Case(
      label: "both append several lines", base: "log\n", mine: "log\nm1\nm2\n",
      theirs: "log\nt1\nt2\nt3\n", merged: "log\nm1\nm2\nt1\nt2\nt3\n"),
    Case(
      label: "both append to a base without a final newline", base: "a", mine: "a\nb",
      theirs: "a\nc", merged: "a\nb\nc"),
    Case(
      label: "mine's addition lacks a final newline, theirs has one", base: "a\n", mine: "a\nb",
      theirs: "a\nc\n", merged: "a\nb\nc\n"),
    Case(
      label: "one only ends the last line, the other appends", base: "a", mine: "a\n",
      theirs: "a\nc", merged: "a\nc"),
    Case(
      label: "one appends, the other edits an earlier line", base: "a\nb\nc\n",
      mine: "a\nb\nc\nd\n", theirs: "A\nb\nc\n", merged: "A\nb\nc\nd\n"),
    Case(
      label: "one appends, the other edits the last line (git: a conflict)", base: "a\nb\n",
      mine: "a\nb\nc\n", theirs: "a\nB\n", merged: nil),
    Case(
      label: "both append, one also inserted a line inside", base: "a\nb\nc\n",
      mine: "a\nb\nc\nm\n", theirs: "a\nx\nb\nc\nt\n", merged: "a\nx\nb\nc\nm\nt\n"),
    Case(
      label: "both edit earlier lines and append", base: "a\nb\nc\nd\n", mine: "A\nb\nc\nd\nm\n",
      theirs: "a\nb\nC\nd\nt\n", merged: "A\nb\nC\nd\nm\nt\n"),
    Case(
      label: "both append to a last line without a newline, one edits an earlier line",
      base: "a\nb\nc", mine: "A\nb\nc\nm", theirs: "a\nb\nc\nt\n", merged: "A\nb\nc\nm\nt\n"),
    Case(
      label: "both append, one also edits the last line (a conflict)", base: "a\nb\nc\n",
      mine: "a\nb\nC\nm\n", theirs: "a\nb\nc\nt\n", merged: nil),
    Case(
      label: "both append the same line: the same change, taken once", base: "a\nb\nc\n",
      mine: "A\nb\nc\nsame\n", theirs: "a\nb\nc\nsame\n", merged: "A\nb\nc\nsame\n"),
    Case(
      label: "empty base, both add: both kept, mine first", base: "", mine: "x\n",
      theirs: "y\n", merged: "x\ny\n"),
    Case(
      label: "empty base, one side empty", base: "", mine: "", theirs: "y", merged: "y"),
    Case(
      label: "deletions at both ends", base: "a\nb\nc\nd\ne\n", mine: "b\nc\nd\ne\n",
      theirs: "a\nb\nc\nd\n", merged: "b\nc\nd\n"),
    Case(
      label: "a deletion against an edit of that line", base: "a\nb\nc\n", mine: "a\nc\n",
      theirs: "a\nB\nc\n", merged: nil),
    Case(
      label: "a deletion inside the other side's edit", base: "a\nb\nc\nd\ne\n",
      mine: "a\nc\nd\nE\n",
      theirs: "A\na2\nc\nd\ne\n", merged: nil),
    Case(
      label: "the same deletion on both sides, another edit each",
      base: "a\nb\nc\nd\ne\nf\ng\n", mine: "A\nb\nd\ne\nf\ng\n", theirs: "a\nb\nd\ne\nf\nG\n",
      merged: "A\nb\nd\ne\nf\nG\n"),
    Case(
      label: "the same edit on both sides, another edit each", base: "a\nb\nc\nd\ne\nf\ng\n",
      mine: "a\nX\nc\nd\ne\nf\nG\n", theirs: "a\nX\nc\nd\nE\nf\ng\n",
      merged: "a\nX\nc\nd\nE\nf\nG\n"),
    Case(
      label: "the same edit inside a larger edit of the other (git: a conflict)",
      base: "a\nb\nc\nd\ne\n", mine: "a\nX\nc\nd\ne\n", theirs: "A\nX\nc\nd\ne\n", merged: nil),
    Case(
      label: "the final newline removed here, a line edited there", base: "a\nb\nc\n",
      mine: "a\nb\nc", theirs: "A\nb\nc\n", merged: "A\nb\nc"),
    Case(
      label: "the final newline added here, a line edited there", base: "a\nb\nc\nd",
      mine: "A\nb\nc\nd", theirs: "a\nb\nc\nd\n", merged: "A\nb\nc\nd\n"),
    Case(
      label: "CRLF lines stay as they are", base: "a\r\nb\r\nc\r\nd\r\n",
      mine: "A\r\nb\r\nc\r\nd\r\n", theirs: "a\r\nb\r\nc\r\nD\r\n", merged: "A\r\nb\r\nc\r\nD\r\n"),
    Case(
      label: "a CR is part of its line: CRLF against LF on one line conflicts",
      base: "a\nb\nc\n", mine: "a\nb\r\nc\n", theirs: "a\nB\nc\n", merged: nil),
    Case(
      label: "blank lines and non-ASCII text", base: "é\n\nnaïve\n\n日本\n\nend\n",
      mine: "É\n\nnaïve\n\n日本\n\nend\n", theirs: "é\n\nnaïve\n\n日本語\n\nend\n",
      merged: "É\n\nnaïve\n\n日本語\n\nend\n"),
  ]

  @Test(arguments: cases)
  func mergesAsGitDoesWithTheAppendRule(_ example: Case) {
    let expected: LineMerge.Result = example.merged.map { .merged($0) } ?? .conflict
    #expect(
      LineMerge.merge(base: example.base, mine: example.mine, theirs: example.theirs) == expected)
  }

  @Test(arguments: cases.filter { $0.merged != nil })
  func aSideUnchangedGivesTheOtherExactly(_ example: Case) {
    #expect(
      LineMerge.merge(base: example.base, mine: example.base, theirs: example.theirs)
        == .merged(example.theirs))
    #expect(
      LineMerge.merge(base: example.base, mine: example.mine, theirs: example.base)
        == .merged(example.mine))
    #expect(
      LineMerge.merge(base: example.base, mine: example.mine, theirs: example.mine)
        == .merged(example.mine))
  }

  @Test func theLinesOfATextKeepTheirNewlines() {
    let lines = LineMerge.lines(of: Array("a\r\n\nb".utf8)).map {
      String(decoding: $0, as: UTF8.self)
    }
    #expect(lines == ["a\r\n", "\n", "b"])
    #expect(LineMerge.lines(of: []).isEmpty)
  }

  // MARK: - Against git merge-file

  /// Seeded random three-way texts, merged by docsh and by `git merge-file -p`: wherever
  /// the append rule does not apply, the verdicts and the merged texts must be the same.
  ///
  /// Every line of a base is different from the others, and a side's new lines are named
  /// after the place they go, never repeating within a side. Then each side's shortest
  /// diff from the base is the only one (the lines it shares with the base are exactly
  /// the kept ones, in order), so Myers' diff here and xdiff's (with its heuristics for
  /// sliding ambiguous hunks) must find the same hunks. With repeated lines the two may
  /// legitimately place a change differently and so disagree about touching changes. The
  /// names are shared between the sides, so both sometimes make the same change.
  @Test(arguments: 0..<12)
  func agreesWithGitMergeFile(block: UInt64) throws {
    let sandbox = try GitSandbox("line-merge")
    var generator = SeededGenerator(seed: 0x11AE_3E26 &+ block)
    var compared = 0
    var appended = 0
    for round in 0..<40 {
      let base = Self.randomBase(&generator)
      let mine = Self.randomSide(of: base, &generator)
      let theirs = Self.randomSide(of: base, &generator)
      let texts = (base: Self.text(base), mine: Self.text(mine), theirs: Self.text(theirs))
      let docsh = LineMerge.merge(base: texts.base, mine: texts.mine, theirs: texts.theirs)
      let label = "block \(block) round \(round): \(texts)"
      if let mineSplit = Self.split(mine, appendingTo: base),
        let theirsSplit = Self.split(theirs, appendingTo: base),
        Self.text(mineSplit.added) != Self.text(theirsSplit.added)
      {
        // The append rule: the rest merges as git merges it, the additions follow, mine's
        // first.
        let rest = try Self.gitMerge(
          texts.base, Self.text(mineSplit.head), Self.text(theirsSplit.head), in: sandbox, round)
        let lastLineEnded = base.last?.newline ?? true
        let additions = Self.union(Self.text(mineSplit.added), Self.text(theirsSplit.added))
        let expected: LineMerge.Result =
          switch rest {
          case .merged(let text): .merged(text + (lastLineEnded ? "" : "\n") + additions)
          case .conflict: .conflict
          }
        #expect(docsh == expected, "\(label) (both append)")
        appended += 1
        continue
      }
      let git = try Self.gitMerge(texts.base, texts.mine, texts.theirs, in: sandbox, round)
      #expect(docsh == git, "\(label)")
      compared += 1
    }
    // The generator makes cases git decides, most of the time, and some of the append rule.
    #expect(compared > 20)
    #expect(appended > 0)
  }

  /// A line and whether a newline ends it.
  struct Line: Hashable {
    var text: String
    var newline = true
  }

  static func text(_ lines: [Line]) -> String {
    lines.map { $0.text + ($0.newline ? "\n" : "") }.joined()
  }

  /// Zero to six different lines; the last one without a newline now and then.
  static func randomBase(_ generator: inout SeededGenerator) -> [Line] {
    var lines = (0..<Int.random(in: 0...6, using: &generator)).map { Line(text: "base \($0)") }
    if !lines.isEmpty, Int.random(in: 0..<4, using: &generator) == 0 {
      lines[lines.count - 1].newline = false
    }
    return lines
  }

  /// `base` edited: lines kept, deleted, replaced and inserted, or (one time in five) only
  /// lines appended; the final newline changed now and then.
  static func randomSide(of base: [Line], _ generator: inout SeededGenerator) -> [Line] {
    func pick(_ count: Int) -> Int { Int.random(in: 0..<count, using: &generator) }
    var side: [Line] = []
    let appendOnly = pick(5) == 0
    for (index, line) in base.enumerated() {
      var line = line
      line.newline = true
      if appendOnly {
        side.append(line)
        continue
      }
      switch pick(10) {
      case 0: break  // deleted
      case 1, 2: side.append(Line(text: "new \(index) \(pick(2))"))
      case 3: side += [Line(text: "before \(index) \(pick(2))"), line]
      default: side.append(line)
      }
    }
    for extra in 0..<(appendOnly ? 1 + pick(2) : pick(4) == 0 ? 1 : 0) {
      side.append(Line(text: "end \(extra) \(pick(2))"))
    }
    if !side.isEmpty {
      // As the base ends, but now and then the other way.
      let baseEnds = base.last?.newline ?? true
      side[side.count - 1].newline = pick(6) == 0 ? !baseEnds : baseEnds
    }
    return side
  }

  /// `side` as the base's lines up to its last (as the base ends it) and the lines it adds
  /// after them, when the side adds lines there (or only ends the base's last line) and
  /// leaves that line alone; `nil` otherwise. A base's last line without a newline is
  /// changed by an append (it gets one), so then the line before it must be kept too: a
  /// change there would touch the appending hunk and make it something else.
  static func split(_ side: [Line], appendingTo base: [Line]) -> (head: [Line], added: [Line])? {
    guard let last = base.last else { return side.isEmpty ? nil : ([], side) }
    guard let index = side.firstIndex(where: { $0.text == last.text }), side[index].newline
    else { return nil }
    let added = Array(side[(index + 1)...])
    if last.newline && added.isEmpty { return nil }
    if !last.newline {
      let keptBefore =
        index == 0 ? base.count == 1 : base.count >= 2 && side[index - 1] == base[base.count - 2]
      guard keptBefore else { return nil }
    }
    var head = Array(side[...index])
    head[index].newline = last.newline
    return (head, added)
  }

  /// Both additions, mine first, a newline between them when mine's lacks one.
  static func union(_ mine: String, _ theirs: String) -> String {
    if mine.isEmpty { return theirs }
    if theirs.isEmpty { return mine }
    return mine + (mine.hasSuffix("\n") ? "" : "\n") + theirs
  }

  /// `git merge-file -p MINE BASE THEIRS`: the merged text, or a conflict (git's exit
  /// status is the number of conflicts).
  static func gitMerge(
    _ base: String, _ mine: String, _ theirs: String, in sandbox: GitSandbox, _ round: Int
  ) throws -> LineMerge.Result {
    let names = ["base", "mine", "theirs"].map { sandbox.folder.path("\($0)-\(round)") }
    for (name, text) in zip(names, [base, mine, theirs]) {
      try Data(text.utf8).write(to: URL(fileURLWithPath: name))
    }
    let output = try sandbox.git(
      ["merge-file", "-p", names[1], names[0], names[2]], in: sandbox.folder.path)
    switch output.status {
    case 0: return .merged(String(decoding: output.output, as: UTF8.self))
    case 1...127: return .conflict
    default: throw SandboxError("git merge-file: \(output.lastErrorLine)")
    }
  }
}
