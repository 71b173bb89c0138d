/// One line of a unified diff.
public struct DiffLine: Hashable, Sendable {
  /// Whether the line is in both texts, only the old one or only the new one.
  public enum Kind: Hashable, Sendable {
    case context, removed, added
  }

  /// What the line is.
  public var kind: Kind
  /// The line's text, without its newline.
  public var text: String
  /// Whether a newline ends it; `false` only for a last line without one (`diff -u` then
  /// prints `\ No newline at end of file` after it).
  public var hasNewline: Bool
}

/// A hunk of a unified diff: a run of changes with the lines of context around them.
public struct DiffHunk: Hashable, Sendable {
  /// The first line of the hunk in the old text, from 1 (for an empty range, the line
  /// before it, as `diff -u` counts).
  public var oldStart: Int
  /// How many lines of the old text the hunk covers.
  public var oldCount: Int
  /// The first line of the hunk in the new text, from 1 (as `oldStart`).
  public var newStart: Int
  /// How many lines of the new text the hunk covers.
  public var newCount: Int
  /// The lines, in order: context, removed and added.
  public var lines: [DiffLine]

  /// The hunk's header as `diff -u` writes it: `@@ -1,4 +1,5 @@`.
  public var header: String {
    func range(_ start: Int, _ count: Int) -> String {
      count == 1 ? "\(start)" : "\(start),\(count)"
    }
    return "@@ -\(range(oldStart, oldCount)) +\(range(newStart, newCount)) @@"
  }
}

/// A line diff of two texts (Myers' algorithm, linear space): the fewest lines removed and
/// added, grouped into hunks with context as `diff -u` does.
public enum TextDiff {
  /// The hunks that turn `old` into `new`, each with up to `context` lines of context; none
  /// when the texts are equal.
  public static func hunks(from old: String, to new: String, context: Int = 3) -> [DiffHunk] {
    let oldLines = split(old)
    let newLines = split(new)
    var codes: [LineKey: Int] = [:]
    func code(_ line: DiffLine) -> Int {
      let key = LineKey(text: line.text, hasNewline: line.hasNewline)
      if let known = codes[key] { return known }
      let next = codes.count
      codes[key] = next
      return next
    }
    let script = editScript(from: oldLines.map(code), to: newLines.map(code))
    return group(script, old: oldLines, new: newLines, context: max(0, context))
  }

  /// The shortest edit script from `old` to `new`, sequences of line codes (equal lines,
  /// equal codes): removals before additions within each run of changes.
  static func editScript(from old: [Int], to new: [Int]) -> [Step] {
    var comparison = Comparison(a: old, b: new)
    comparison.compare(0, old.count, 0, new.count)
    return comparison.script()
  }

  /// The lines of `text`, each knowing whether a newline ended it.
  static func split(_ text: String) -> [DiffLine] {
    guard !text.isEmpty else { return [] }
    var pieces = text.split(separator: "\n", omittingEmptySubsequences: false)
    let endsWithNewline = pieces.last?.isEmpty == true
    if endsWithNewline { pieces.removeLast() }
    return pieces.enumerated().map { index, piece in
      DiffLine(
        kind: .context, text: String(piece),
        hasNewline: endsWithNewline || index < pieces.count - 1)
    }
  }

  private struct LineKey: Hashable {
    var text: String
    var hasNewline: Bool
  }

  /// One step of the edit script: a line kept (both indexes), removed or added.
  enum Step: Equatable {
    case keep(Int, Int)
    case remove(Int)
    case add(Int)

    /// The index of the old text's line this step reads; `nil` for an added line.
    var oldIndex: Int? {
      switch self {
      case .keep(let i, _), .remove(let i): i
      case .add: nil
      }
    }

    /// The index of the new text's line this step reads; `nil` for a removed line.
    var newIndex: Int? {
      switch self {
      case .keep(_, let j), .add(let j): j
      case .remove: nil
      }
    }

    /// The line this step shows in a hunk, marked as kept, removed or added.
    func line(old: [DiffLine], new: [DiffLine]) -> DiffLine {
      var line: DiffLine
      switch self {
      case .keep(let i, _):
        line = old[i]
        line.kind = .context
      case .remove(let i):
        line = old[i]
        line.kind = .removed
      case .add(let j):
        line = new[j]
        line.kind = .added
      }
      return line
    }
  }

  /// Groups the script into hunks with `context` lines around each run of changes.
  private static func group(
    _ script: [Step], old: [DiffLine], new: [DiffLine], context: Int
  ) -> [DiffHunk] {
    let changed = script.indices.filter {
      if case .keep = script[$0] { return false }
      return true
    }
    guard let first = changed.first else { return [] }
    var ranges: [ClosedRange<Int>] = []
    var start = first
    var end = first
    for index in changed.dropFirst() {
      // Two runs share a hunk when the lines kept between them fit in both contexts.
      if index - end - 1 <= 2 * context {
        end = index
      } else {
        ranges.append(start...end)
        start = index
        end = index
      }
    }
    ranges.append(start...end)

    return ranges.map { range in
      let lower = max(0, range.lowerBound - context)
      let upper = min(script.count - 1, range.upperBound + context)
      var hunk = DiffHunk(oldStart: 0, oldCount: 0, newStart: 0, newCount: 0, lines: [])
      var oldFirst: Int?
      var newFirst: Int?
      // Where the hunk starts in each text, also when it holds none of that text's lines.
      var oldBefore = 0
      var newBefore = 0
      for step in script[..<lower] {
        if step.oldIndex != nil { oldBefore += 1 }
        if step.newIndex != nil { newBefore += 1 }
      }
      for step in script[lower...upper] {
        if let i = step.oldIndex {
          oldFirst = oldFirst ?? i
          hunk.oldCount += 1
        }
        if let j = step.newIndex {
          newFirst = newFirst ?? j
          hunk.newCount += 1
        }
        hunk.lines.append(step.line(old: old, new: new))
      }
      hunk.oldStart = hunk.oldCount == 0 ? oldBefore : (oldFirst ?? oldBefore) + 1
      hunk.newStart = hunk.newCount == 0 ? newBefore : (newFirst ?? newBefore) + 1
      return hunk
    }
  }
}

/// Myers' O(ND) comparison in linear space: the middle snake splits the problem in two
/// until what is left is all removed or all added.
private struct Comparison {
  let a: [Int]
  let b: [Int]
  var removed: [Bool]
  var added: [Bool]

  init(a: [Int], b: [Int]) {
    self.a = a
    self.b = b
    removed = Array(repeating: false, count: a.count)
    added = Array(repeating: false, count: b.count)
  }

  mutating func compare(_ aLow: Int, _ aHigh: Int, _ bLow: Int, _ bHigh: Int) {
    var aLow = aLow
    var bLow = bLow
    var aHigh = aHigh
    var bHigh = bHigh
    while aLow < aHigh, bLow < bHigh, a[aLow] == b[bLow] {
      aLow += 1
      bLow += 1
    }
    while aLow < aHigh, bLow < bHigh, a[aHigh - 1] == b[bHigh - 1] {
      aHigh -= 1
      bHigh -= 1
    }
    if aLow == aHigh {
      for j in bLow..<bHigh { added[j] = true }
      return
    }
    if bLow == bHigh {
      for i in aLow..<aHigh { removed[i] = true }
      return
    }
    guard let (x, y) = middleSnake(aLow, aHigh, bLow, bHigh) else {
      for i in aLow..<aHigh { removed[i] = true }
      for j in bLow..<bHigh { added[j] = true }
      return
    }
    compare(aLow, x, bLow, y)
    compare(x, aHigh, y, bHigh)
  }

  /// A point on a shortest edit path between `a[aLow..<aHigh]` and `b[bLow..<bHigh]`,
  /// found by searching from both ends until the paths overlap.
  private func middleSnake(_ aLow: Int, _ aHigh: Int, _ bLow: Int, _ bHigh: Int) -> (Int, Int)? {
    let n = aHigh - aLow
    let m = bHigh - bLow
    let maxD = (n + m + 1) / 2
    let offset = maxD
    let length = 2 * maxD + 2
    var forward = Frontier(reach: [Int](repeating: -1, count: length))
    var backward = Frontier(reach: [Int](repeating: -1, count: length))
    forward.reach[offset + 1] = 0
    backward.reach[offset + 1] = 0
    let delta = n - m
    let odd = delta % 2 != 0
    for d in 0..<maxD {
      let ahead = extend(&forward, by: d, offset: offset, n: n, m: m) { x, y in
        a[aLow + x] == b[bLow + y]
      } meets: { k, x, y in
        let other = offset + delta - k
        guard odd, other >= 0, other < length, backward.reach[other] != -1,
          x >= n - backward.reach[other]
        else { return nil }
        return (aLow + x, bLow + y)
      }
      if let ahead { return ahead }
      let behind = extend(&backward, by: d, offset: offset, n: n, m: m) { x, y in
        a[aHigh - x - 1] == b[bHigh - y - 1]
      } meets: { k, x, _ in
        let other = offset + delta - k
        guard !odd, other >= 0, other < length, forward.reach[other] != -1 else { return nil }
        let x1 = forward.reach[other]
        let y1 = offset + x1 - other
        return x1 >= n - x ? (aLow + x1, bLow + y1) : nil
      }
      if let behind { return behind }
    }
    return nil
  }

  /// The paths searched from one end, by diagonal `k` (`x - y`, counted from that end):
  /// how far along `a` each reaches, and how many diagonals at either side are past an edge.
  private struct Frontier {
    var reach: [Int]
    var kStart = 0
    var kEnd = 0
  }

  /// Extends each path of `frontier` by its `d`th edit, then along the equal lines after it
  /// (`same(x, y)`: line `x` of `a` and `y` of `b`, `n` by `m` lines, counted from the
  /// frontier's end); what `meets` makes of the first path to reach the other end's (its
  /// diagonal and where it reaches), or `nil` when none does.
  @inline(__always)
  private func extend(
    _ frontier: inout Frontier, by d: Int, offset: Int, n: Int, m: Int,
    same: (Int, Int) -> Bool, meets: (_ k: Int, _ x: Int, _ y: Int) -> (Int, Int)?
  ) -> (Int, Int)? {
    var k = -d + frontier.kStart
    while k <= d - frontier.kEnd {
      let index = offset + k
      var x =
        (k == -d || (k != d && frontier.reach[index - 1] < frontier.reach[index + 1]))
        ? frontier.reach[index + 1] : frontier.reach[index - 1] + 1
      var y = x - k
      while x < n, y < m, same(x, y) {
        x += 1
        y += 1
      }
      frontier.reach[index] = x
      if x > n {
        frontier.kEnd += 2
      } else if y > m {
        frontier.kStart += 2
      } else if let found = meets(k, x, y) {
        return found
      }
      k += 2
    }
    return nil
  }

  /// The edit script: removals before additions within each run of changes.
  func script() -> [TextDiff.Step] {
    var steps: [TextDiff.Step] = []
    var i = 0
    var j = 0
    while i < a.count || j < b.count {
      if i < a.count, removed[i] {
        steps.append(.remove(i))
        i += 1
      } else if j < b.count, added[j] {
        steps.append(.add(j))
        j += 1
      } else if i < a.count, j < b.count {
        steps.append(.keep(i, j))
        i += 1
        j += 1
      } else if i < a.count {
        steps.append(.remove(i))
        i += 1
      } else {
        steps.append(.add(j))
        j += 1
      }
    }
    return steps
  }
}
