// Where a Markdown text holds code, read as CommonMark reads it, so that links inside code
// are left alone: code is literal in Markdown and in Obsidian, and a rename must never
// change a code sample.
//
// Read here:
// - Fenced code blocks: a line of at most three spaces of indentation, then a run of at
//   least three backticks or tildes (a backtick fence's info string holds no backtick); the
//   block ends at a line of at most three spaces, then a run of the same character at least
//   as long, then only spaces or tabs; a fence never closed runs to the end of the text.
// - Code spans: a run of backticks ends at the next run of exactly as many; a run that
//   finds none is literal text. A span stays within its paragraph (a blank line or a fence
//   ends it); a backtick after a backslash opens none.
// Not read: indented code blocks (four spaces), and fences inside block quotes or list
// items. Telling an indented code block from a list item's continuation needs the whole
// block parser; docsh reads such text as text.

enum MarkdownCode {
  /// The byte ranges of `bytes` that are code (whole fenced blocks, their fence lines
  /// included, and code spans with their backticks), sorted and disjoint.
  static func ranges(in bytes: UnsafeRawBufferPointer) -> [Range<Int>] {
    let count = bytes.count
    // Every fence and every span holds a backtick or a tilde: a text with neither holds
    // no code, known by two `memchr`s rather than a walk through its lines.
    guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
      ByteScan.firstOffset(of: UInt8(ascii: "`"), in: base, from: 0, to: count) != nil
        || ByteScan.firstOffset(of: UInt8(ascii: "~"), in: base, from: 0, to: count) != nil
    else { return [] }
    let newline = UInt8(ascii: "\n")
    var ranges: [Range<Int>] = []
    var fence: (character: UInt8, length: Int, start: Int)?
    var paragraphStart: Int?
    var lineStart = 0
    while lineStart < count {
      var lineEnd = lineStart
      while lineEnd < count, bytes[lineEnd] != newline { lineEnd += 1 }
      defer { lineStart = lineEnd + 1 }
      if let open = fence {
        if let close = fenceRun(bytes, lineStart..<lineEnd), close.character == open.character,
          close.length >= open.length, isBlank(bytes, close.end..<lineEnd)
        {
          ranges.append(open.start..<lineEnd)
          fence = nil
        }
        continue
      }
      if let open = fenceRun(bytes, lineStart..<lineEnd),
        open.character == UInt8(ascii: "~")
          || !contains(bytes, UInt8(ascii: "`"), open.end..<lineEnd)
      {
        if let start = paragraphStart { spans(bytes, start..<lineStart, into: &ranges) }
        paragraphStart = nil
        fence = (open.character, open.length, lineStart)
        continue
      }
      if isBlank(bytes, lineStart..<lineEnd) {
        if let start = paragraphStart { spans(bytes, start..<lineStart, into: &ranges) }
        paragraphStart = nil
      } else if paragraphStart == nil {
        paragraphStart = lineStart
      }
    }
    if let open = fence {
      ranges.append(open.start..<count)
    } else if let start = paragraphStart {
      spans(bytes, start..<count, into: &ranges)
    }
    return ranges
  }

  /// The run of three or more backticks or tildes that starts `range` after at most three
  /// spaces, with the position after it.
  private static func fenceRun(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>)
    -> (character: UInt8, length: Int, end: Int)?
  {
    var position = range.lowerBound
    while position < range.upperBound, position - range.lowerBound < 3,
      bytes[position] == UInt8(ascii: " ")
    {
      position += 1
    }
    guard position < range.upperBound else { return nil }
    let character = bytes[position]
    guard character == UInt8(ascii: "`") || character == UInt8(ascii: "~") else { return nil }
    var end = position
    while end < range.upperBound, bytes[end] == character { end += 1 }
    guard end - position >= 3 else { return nil }
    return (character, end - position, end)
  }

  /// Whether `range` holds only spaces, tabs and a carriage return.
  private static func isBlank(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Bool {
    for index in range {
      let byte = bytes[index]
      guard byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
      else { return false }
    }
    return true
  }

  private static func contains(
    _ bytes: UnsafeRawBufferPointer, _ byte: UInt8, _ range: Range<Int>
  ) -> Bool {
    for index in range where bytes[index] == byte { return true }
    return false
  }

  /// Appends the code spans of the paragraph `range`.
  private static func spans(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, into ranges: inout [Range<Int>]
  ) {
    let tick = UInt8(ascii: "`")
    var position = range.lowerBound
    while position < range.upperBound {
      let byte = bytes[position]
      if byte == UInt8(ascii: "\\") {
        position += 2
        continue
      }
      guard byte == tick else {
        position += 1
        continue
      }
      var openEnd = position
      while openEnd < range.upperBound, bytes[openEnd] == tick { openEnd += 1 }
      let length = openEnd - position
      var search = openEnd
      var closedAt: Int?
      while search < range.upperBound {
        guard bytes[search] == tick else {
          search += 1
          continue
        }
        var runEnd = search
        while runEnd < range.upperBound, bytes[runEnd] == tick { runEnd += 1 }
        if runEnd - search == length {
          closedAt = runEnd
          break
        }
        search = runEnd
      }
      if let closedAt {
        ranges.append(position..<closedAt)
        position = closedAt
      } else {
        position = openEnd
      }
    }
  }
}
