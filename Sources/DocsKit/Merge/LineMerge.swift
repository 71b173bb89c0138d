/// A three-way merge of texts by lines, as `git merge-file` merges them (diff3): the line
/// diffs base→mine and base→theirs are walked side by side; a change made on one side only
/// is taken, a change made the same way on both is taken once, and changes that overlap and
/// differ conflict.
///
/// As git, changes *touching* the same place conflict too: an edit of line 2 and an edit of
/// line 3, or a line inserted right after a line the other side edited (git 2.39's
/// `git merge-file` reports both as conflicts); at least one unchanged line must lie between
/// the two sides' changes for them to combine. When both sides' changes around one place
/// end up as the same lines, that is a clean merge (git's "zealous" refinement of
/// conflicts).
///
/// One rule beyond git's default: when both sides added lines after the base's last line
/// (a log or a journal, both appending), both additions are kept, this side's (mine) first,
/// then theirs — git's `union` merge for that case alone. It holds for the additions at the
/// end also when a side changed other lines, as long as neither changed the base's last
/// line: a log merged this way puts this side's line before lines the other saved, so the
/// other's next merge sees its base with a line inserted inside it and its own line added
/// at the end, and that must merge too. A base without a final newline gets one between it
/// and what follows (appending `b` to `a` gives `a\nb`); when mine's addition ends without a
/// newline and theirs follows it, one is put between them. Additions that are the same on
/// both sides are the same change, taken once, as git does.
///
/// Lines are the bytes up to and including each `\n` (the last one may have none), so a
/// `\r` stays part of its line and a merge that changes nothing of a line gives back its
/// bytes exactly. The diff is TextDiff's Myers diff; where several shortest diffs exist
/// (repeated lines) it may pick another one than git's, which can change where a change is
/// said to be and so, rarely, the verdict.
enum LineMerge {
  /// What a three-way merge of texts gives.
  enum Result: Hashable, Sendable {
    /// The merged text.
    case merged(String)
    /// Both sides changed overlapping or touching lines, differently.
    case conflict
  }

  /// Merges `mine` and `theirs`, both made from `base`.
  static func merge(base: String, mine: String, theirs: String) -> Result {
    if mine == theirs || theirs == base { return .merged(mine) }
    if mine == base { return .merged(theirs) }
    let texts = (base: Array(base.utf8), mine: Array(mine.utf8), theirs: Array(theirs.utf8))
    if let union = appendedByBoth(base: texts.base, mine: texts.mine, theirs: texts.theirs) {
      return .merged(String(decoding: union, as: UTF8.self))
    }
    var merge = Merge(base: texts.base, mine: texts.mine, theirs: texts.theirs)
    guard let merged = merge.run() else { return .conflict }
    return .merged(String(decoding: merged, as: UTF8.self))
  }

  /// Both additions, mine first, when `mine` and `theirs` (different, both changed) only
  /// added lines after `base`'s last line; `nil` otherwise. Looked at on the whole texts
  /// before any diff, so that a pure append is one whatever shortest diff stands for it (an
  /// added line equal to a base line may be aligned with that line instead).
  static func appendedByBoth(base: [UInt8], mine: [UInt8], theirs: [UInt8]) -> [UInt8]? {
    let newline = UInt8(ascii: "\n")
    let stem = base.isEmpty || base.last == newline ? base : base + [newline]
    guard mine.starts(with: stem), theirs.starts(with: stem) else { return nil }
    let mineAdded = mine[stem.count...]
    let theirsAdded = theirs[stem.count...]
    // Only the base's last line given its newline: nothing added on that side.
    if mineAdded.isEmpty { return theirs }
    if theirsAdded.isEmpty { return mine }
    var union = mine
    if union.last != newline { union.append(newline) }
    union += theirsAdded
    return union
  }
}

// MARK: - The merge by lines

extension LineMerge {
  /// A line: its bytes up to and including its `\n` (the last line of a text may have none).
  typealias Line = ArraySlice<UInt8>

  /// A run of changed lines of one side: `base` lines replaced by that side's `side` lines.
  /// An insertion has an empty `base` range, a deletion an empty `side` range.
  struct Hunk: Hashable {
    var base: Range<Int>
    var side: Range<Int>
  }

  /// The lines of `text`: each up to and including its `\n`, the last maybe without.
  static func lines(of text: [UInt8]) -> [Line] {
    var lines: [Line] = []
    var start = 0
    for (index, byte) in text.enumerated() where byte == UInt8(ascii: "\n") {
      lines.append(text[start...index])
      start = index + 1
    }
    if start < text.count { lines.append(text[start...]) }
    return lines
  }

  /// The hunks of the shortest diff from `base` to `side`, line codes, in order; two hunks
  /// always have an unchanged line between them.
  static func hunks(from base: [Int], to side: [Int]) -> [Hunk] {
    var hunks: [Hunk] = []
    var baseIndex = 0
    var sideIndex = 0
    var start: (base: Int, side: Int)?
    for step in TextDiff.editScript(from: base, to: side) {
      switch step {
      case .keep:
        if let open = start {
          hunks.append(Hunk(base: open.base..<baseIndex, side: open.side..<sideIndex))
          start = nil
        }
        baseIndex += 1
        sideIndex += 1
      case .remove:
        if start == nil { start = (baseIndex, sideIndex) }
        baseIndex += 1
      case .add:
        if start == nil { start = (baseIndex, sideIndex) }
        sideIndex += 1
      }
    }
    if let open = start {
      hunks.append(Hunk(base: open.base..<baseIndex, side: open.side..<sideIndex))
    }
    return hunks
  }

  /// One merge of three texts by lines: their lines, their codes (equal lines, equal codes)
  /// and the two sides' hunks against the base.
  private struct Merge {
    let baseLines: [Line]
    let mineLines: [Line]
    let theirsLines: [Line]
    let mineCodes: [Int]
    let theirsCodes: [Int]
    let mineHunks: [Hunk]
    let theirsHunks: [Hunk]
    var output: [UInt8] = []
    /// The first base line not yet written or replaced.
    var position = 0

    init(base: [UInt8], mine: [UInt8], theirs: [UInt8]) {
      baseLines = LineMerge.lines(of: base)
      mineLines = LineMerge.lines(of: mine)
      theirsLines = LineMerge.lines(of: theirs)
      var codes: [Line: Int] = [:]
      func code(_ line: Line) -> Int {
        if let known = codes[line] { return known }
        codes[line] = codes.count
        return codes.count - 1
      }
      let baseCodes = baseLines.map(code)
      mineCodes = mineLines.map(code)
      theirsCodes = theirsLines.map(code)
      mineHunks = LineMerge.hunks(from: baseCodes, to: mineCodes)
      theirsHunks = LineMerge.hunks(from: baseCodes, to: theirsCodes)
    }

    /// The merged bytes, or `nil` at the first conflict.
    mutating func run() -> [UInt8]? {
      var m = 0
      var t = 0
      while m < mineHunks.count || t < theirsHunks.count {
        // A hunk strictly before the other side's next one (an unchanged line between)
        // is that side's alone — git's `i1 + chg1 < i1'` test.
        if t == theirsHunks.count
          || (m < mineHunks.count
            && mineHunks[m].base.upperBound < theirsHunks[t].base.lowerBound)
        {
          take(mineHunks[m].base, mineLines[mineHunks[m].side])
          m += 1
          continue
        }
        if m == mineHunks.count || theirsHunks[t].base.upperBound < mineHunks[m].base.lowerBound {
          take(theirsHunks[t].base, theirsLines[theirsHunks[t].side])
          t += 1
          continue
        }
        // The hunks touch: the region is every hunk of either side that touches it.
        var end = max(mineHunks[m].base.upperBound, theirsHunks[t].base.upperBound)
        var mineLast = m
        var theirsLast = t
        while true {
          if mineLast + 1 < mineHunks.count, mineHunks[mineLast + 1].base.lowerBound <= end {
            mineLast += 1
            end = max(end, mineHunks[mineLast].base.upperBound)
          } else if theirsLast + 1 < theirsHunks.count,
            theirsHunks[theirsLast + 1].base.lowerBound <= end
          {
            theirsLast += 1
            end = max(end, theirsHunks[theirsLast].base.upperBound)
          } else {
            break
          }
        }
        let start = min(mineHunks[m].base.lowerBound, theirsHunks[t].base.lowerBound)
        let mineRange = Self.sideRange(of: mineHunks[m...mineLast], from: start, to: end)
        let theirsRange = Self.sideRange(of: theirsHunks[t...theirsLast], from: start, to: end)
        if mineCodes[mineRange] == theirsCodes[theirsRange] {
          // Both sides' lines for the region the same: the same change, taken once.
          take(start..<end, mineLines[mineRange])
        } else if mineLast == m, theirsLast == t,
          let union = appendedByBoth(mineHunks[m], theirsHunks[t])
        {
          take(start..<end, union[...])
        } else {
          return nil
        }
        m = mineLast + 1
        t = theirsLast + 1
      }
      for line in baseLines[position...] { output += line }
      return output
    }

    /// Both hunks' lines, mine first, when each only adds lines after the base's last one
    /// (a last line without a newline given one); `nil` otherwise.
    private func appendedByBoth(_ mine: Hunk, _ theirs: Hunk) -> [Line]? {
      guard added(by: mine, mineLines) != nil, let theirsAdded = added(by: theirs, theirsLines)
      else { return nil }
      var union = Array(mineLines[mine.side])
      guard !theirsAdded.isEmpty else { return union }
      if let last = union.last, last.last != UInt8(ascii: "\n") {
        union[union.count - 1] = last + [UInt8(ascii: "\n")]
      }
      union += theirsAdded
      return union
    }

    /// The lines `hunk` of a side adds after the base's last line, when that is all it does:
    /// an insertion at the end, or (the base's last line without a newline) that line given
    /// one and lines after it.
    private func added(by hunk: Hunk, _ lines: [Line]) -> ArraySlice<Line>? {
      let count = baseLines.count
      if hunk.base == count..<count { return lines[hunk.side] }
      guard hunk.base == (count - 1)..<count, let last = baseLines.last,
        last.last != UInt8(ascii: "\n"), let first = hunk.side.first,
        lines[first].elementsEqual(last + [UInt8(ascii: "\n")])
      else { return nil }
      return lines[hunk.side.dropFirst()]
    }

    /// Writes the base lines up to `replaced`, then `lines` in place of `replaced`.
    private mutating func take(_ replaced: Range<Int>, _ lines: ArraySlice<Line>) {
      for line in baseLines[position..<replaced.lowerBound] { output += line }
      for line in lines { output += line }
      position = replaced.upperBound
    }

    /// The lines of one side that stand for base lines `start..<end`, given that side's
    /// hunks within them (first and last inclusive); the lines around them are unchanged.
    private static func sideRange(
      of hunks: ArraySlice<Hunk>, from start: Int, to end: Int
    ) -> Range<Int> {
      guard let first = hunks.first, let last = hunks.last else { return start..<end }
      let lower = first.side.lowerBound - (first.base.lowerBound - start)
      let upper = last.side.upperBound + (end - last.base.upperBound)
      return lower..<upper
    }
  }
}
