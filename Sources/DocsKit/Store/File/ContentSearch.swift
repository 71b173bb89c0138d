#if canImport(Glibc)
  import Glibc
#endif

/// How much a content search reports of each document that matches.
enum ContentSearchMode {
  /// Every matching line, with its number and text.
  case lines
  /// That the document matches: its reading stops at the first matching line.
  case documents
  /// How many of its lines match.
  case counts
}

/// What a content search found in one document.
struct DocumentHits {
  /// How many of its lines match (1 in ``ContentSearchMode/documents`` mode).
  var lineCount = 0
  /// The matching lines, in order; only in ``ContentSearchMode/lines`` mode.
  var lines = LineBuffer()
}

/// The matching engine of content search: how the lines of one content are matched against
/// a pattern. Which documents are searched, and where their bytes come from, is the
/// caller's business; the engine takes a content as the bytes of a JSON string literal (as
/// the store keeps it) or as plain text.
///
/// Nothing is decoded to be searched. The pattern's own spelling is looked for in the bytes
/// (sixteen at a time, first and last byte together); only the lines holding it are found
/// (by a ``LineWalker``, which counts line breaks without reading what lies between) and
/// decoded. Ignoring case, an ASCII needle is compared with ASCII letters either way; any
/// other needle is found through one of its characters (the *anchor*): the lines holding any
/// character that folds like it are folded and searched for the folded needle (see
/// ``CaseFolder``). A regular expression runs only on the lines that hold the plain text
/// every one of its matches contains (see ``RegexLiterals``), or on every line when there
/// is none; so does the expression that checks a plain text's match for whole words. Lines
/// that do *not* match are kept by reading every line. A literal written with escapes docsh
/// never writes (by another tool) has no single spelling per character: it is decoded whole
/// and searched as plain text.
///
/// Semantics, whatever the path: lines are split at `\n`, a `\r` before it is dropped and
/// the piece after a final `\n` is a line; text is compared as UTF-8 bytes, as grep(1)
/// does (no normalization); ignoring case compares folded scalars.
final class ContentSearcher {
  private enum Matcher {
    /// A needle found by its bytes; a line holding it matches, or is handed to `test`.
    case needle(test: ((String) -> Bool)?)
    /// Every line is decoded and handed to `test`.
    case everyLine((String) -> Bool)
    /// No line can match: the needle holds a line break.
    case nothing
  }

  /// How candidates for the needle are found in a content's bytes.
  private enum Finder {
    /// The needle's bytes, exactly.
    case exact
    /// The needle's bytes, ASCII letters either way.
    case asciiLetterCase
    /// Any character that folds like the anchor; the lines found are folded and checked.
    case anchor
  }

  private let matcher: Matcher
  private let ignoresCase: Bool
  private let mode: ContentSearchMode
  /// The needle as spelled inside a JSON literal and in plain text (folded when ignoring
  /// case).
  private let literalNeedle: Bytes
  private let plainNeedle: Bytes
  private let needleIsASCII: Bool
  /// Ignoring case with an ASCII needle: the UTF-8 of the few other characters that fold to
  /// one of its letters (the dotless `ı`, the long `ſ`, the Kelvin sign). A content holding
  /// none is searched comparing ASCII letters either way; one holding any, through an anchor.
  private let foldsToNeedleLetters: [Bytes]
  /// Ignoring case: the UTF-8 of every character that folds like the anchor, those of the
  /// same length two by two (a small and a capital letter), so that one scan finds both.
  private let anchors: [[Bytes]]
  /// Ignoring case: the folded needle's scalars, and which of them is the anchor (its first
  /// place). When none of them is spelled with an escape, a match is checked where an
  /// anchor is found, by folding the needle's length of text around it; otherwise by
  /// folding the whole line.
  private let foldedScalars: [UInt32]
  private let anchorIndex: Int
  private let checksAtAnchor: Bool
  private var folder = CaseFolder()
  /// Room for a folded line, reused from one line to the next.
  private var scratch = UnsafeMutableRawBufferPointer(start: nil, count: 0)

  /// An engine for `pattern`, reporting as much as `mode` asks.
  /// - Throws: ``ContextError/invalidPattern(_:reason:)`` for a regular expression that does
  ///   not compile.
  init(pattern: ContentPattern, mode: ContentSearchMode) throws(ContextError) {
    self.mode = mode
    ignoresCase = pattern.ignoresCase
    var folder = CaseFolder()
    let test = try ContentSearcher.lineTest(for: pattern, folder: &folder)
    let needle: String
    (matcher, needle) = ContentSearcher.matcher(
      for: test, selectingNonMatching: pattern.selectsNonMatchingLines)
    literalNeedle = Bytes(JSONTextLines.spelling(of: needle))
    plainNeedle = Bytes(PlainTextLines.spelling(of: needle))
    needleIsASCII = needle.utf8.allSatisfy { $0 < 0x80 }
    let others: [(letter: UInt8, spelling: [UInt8])] = [
      (UInt8(ascii: "i"), [0xC4, 0xB1]), (UInt8(ascii: "s"), [0xC5, 0xBF]),
      (UInt8(ascii: "k"), [0xE2, 0x84, 0xAA]),
    ]
    foldsToNeedleLetters = others.filter { needle.utf8.contains($0.letter) }.map {
      Bytes($0.spelling)
    }
    foldedScalars = needle.unicodeScalars.map(\.value)
    let anchor = ignoresCase ? ContentSearcher.anchor(for: needle) : nil
    anchorIndex = anchor?.index ?? 0
    checksAtAnchor = foldedScalars.allSatisfy {
      $0 >= 0x20 && $0 != UInt32(UInt8(ascii: "\"")) && $0 != 0x5C
    }
    anchors = anchor.map { ContentSearcher.spellings(ofFamily: $0.family) } ?? []
    self.folder = folder
  }

  /// Whether one line matches `pattern`, on its own; the text every matching line holds
  /// (folded when ignoring case), if known; and whether a line holding it must still pass
  /// the test.
  private static func lineTest(
    for pattern: ContentPattern, folder: inout CaseFolder
  ) throws(ContextError) -> (
    lineMatches: (String) -> Bool, required: String?, holdingIsMatching: Bool
  ) {
    switch pattern.syntax {
    case .text:
      let text = pattern.ignoresCase ? folder.folded(pattern.source) : pattern.source
      guard !pattern.matchesWholeWords else {
        let regex = try RegularExpression(
          RegularExpression.quoting(pattern.source), ignoringCase: pattern.ignoresCase,
          wholeWords: true)
        return (regex.matches, text, false)
      }
      let lineFolder = SharedFolder()
      let ignoringCase = pattern.ignoresCase
      let wanted = Bytes(Array(text.utf8))
      // The bytes, as the needle is found in a content: a generic search of the UTF-8
      // view, or folding to a `String`, costs ten times more, which -v pays on every line.
      let lineMatches = { (line: String) -> Bool in
        if ignoringCase { return lineFolder.foldedLine(line, holds: wanted.raw) }
        var haystack = line
        return haystack.withUTF8 {
          ContentSearcher.firstOffset(of: wanted.raw, in: UnsafeRawBufferPointer($0), from: 0)
            != nil
        }
      }
      return (lineMatches, text, true)
    case .regularExpression:
      let regex = try RegularExpression(
        pattern.source, ignoringCase: pattern.ignoresCase, wholeWords: pattern.matchesWholeWords)
      let required = RegexLiterals.requiredText(
        in: pattern.source, ignoringCase: pattern.ignoresCase
      ).map { pattern.ignoresCase ? folder.folded($0) : $0 }
      return (regex.matches, required, false)
    }
  }

  /// How lines are matched for `test`, and the needle looked for in the bytes (empty when
  /// every line is read).
  private static func matcher(
    for test: (lineMatches: (String) -> Bool, required: String?, holdingIsMatching: Bool),
    selectingNonMatching: Bool
  ) -> (Matcher, needle: String) {
    let lineMatches = test.lineMatches
    if selectingNonMatching {
      // A line without the needle is one to keep: every line is read.
      return (.everyLine { !lineMatches($0) }, "")
    } else if let required = test.required, required.utf8.contains(0x0A) {
      return (.nothing, required)
    } else if let required = test.required, !required.isEmpty, !required.utf8.contains(0x0D) {
      return (.needle(test: test.holdingIsMatching ? nil : lineMatches), required)
    } else {
      // No needle, an empty one, or a carriage return: the one before a break is no part of
      // its line, which a search of the bytes would not see.
      return (.everyLine(lineMatches), "")
    }
  }

  /// The UTF-8 of the characters of `family`, those of the same length two by two (a small
  /// and a capital letter), so that one scan finds both.
  private static func spellings(ofFamily family: [Unicode.Scalar]) -> [[Bytes]] {
    var anchors: [[Bytes]] = []
    let spellings = family.map { Array(String(Character($0)).utf8) }
    for length in Set(spellings.map(\.count)).sorted() {
      let sameLength = spellings.filter { $0.count == length }
      for start in stride(from: 0, to: sameLength.count, by: 2) {
        anchors.append(sameLength[start..<min(start + 2, sameLength.count)].map(Bytes.init))
      }
    }
    return anchors
  }

  deinit {
    scratch.deallocate()
  }

  /// The needle's best anchor (its place among the needle's scalars) and the characters
  /// that fold like it: one with the fewest of them, then the longest in UTF-8; only letters
  /// and characters beyond ASCII, which a literal spells as they are.
  private static func anchor(for needle: String) -> (index: Int, family: [Unicode.Scalar])? {
    var best: (index: Int, family: [Unicode.Scalar], length: Int)?
    for (index, scalar) in needle.unicodeScalars.enumerated()
    where scalar.properties.isAlphabetic || !scalar.isASCII {
      let family = CaseFolder.scalars(foldingTo: scalar)
      let length = UTF8.width(scalar)
      if let current = best,
        current.family.count < family.count
          || (current.family.count == family.count && current.length >= length)
      {
        continue
      }
      best = (index, family, length)
    }
    return best.map { ($0.index, $0.family) }
  }

  /// The matching lines of the content spelled by `literal`, a JSON string literal with its
  /// quotes; `nil` when none match.
  /// - Throws: ``JSONTextError`` when the literal, or a line to report, is not valid.
  func search(literal: UnsafeRawBufferPointer) throws(JSONTextError) -> DocumentHits? {
    let count = literal.count
    guard count >= 2, literal[0] == UInt8(ascii: "\""), literal[count - 1] == UInt8(ascii: "\"")
    else { throw JSONTextError(offset: 0, reason: "expected a string") }
    let body = UnsafeRawBufferPointer(rebasing: literal[1..<(count - 1)])
    if let hits = try search(body, as: JSONTextLines.self, needle: literalNeedle.raw) {
      return hits
    }
    // Escapes another tool wrote: one decoding, then the plain-text search.
    return try search(text: JSONText.decodeLiteral(literal))
  }

  /// The matching lines of `text`; `nil` when none match.
  /// - Throws: ``JSONTextError`` when a line to report is not valid UTF-8.
  func search(text: String) throws(JSONTextError) -> DocumentHits? {
    var text = text
    let result = text.withUTF8 { bytes in
      Result { () throws(JSONTextError) in
        try search(UnsafeRawBufferPointer(bytes), as: PlainTextLines.self, needle: plainNeedle.raw)
      }
    }
    // Plain text has one spelling for everything: the search never gives up on it.
    return try result.get() ?? nil
  }

  // MARK: - One content

  /// Searches `bytes`, spelled as `Walker` reads them. The outer `nil` means the bytes have
  /// escapes of more than one spelling and must be searched decoded; the inner one, no match.
  private func search<Walker: LineWalker>(
    _ bytes: UnsafeRawBufferPointer, as walker: Walker.Type, needle: UnsafeRawBufferPointer
  ) throws(JSONTextError) -> DocumentHits?? {
    if case .nothing = matcher { return .some(nil) }
    // A character spelled more than one way may hide from a search of the bytes.
    guard Walker.spellsEachCharacterOneWay(bytes) else { return nil }
    switch matcher {
    case .nothing:
      return .some(nil)
    case .everyLine(let test):
      return try searchEveryLine(bytes, as: walker, test: test)
    case .needle(let test):
      let finder: Finder
      if !ignoresCase {
        finder = .exact
      } else if needleIsASCII, !foldsToNeedleLetters.contains(where: { bytes.holds($0.raw) }) {
        finder = .asciiLetterCase
      } else {
        finder = .anchor
      }
      return try searchNeedle(needle, in: bytes, finder: finder, as: walker, test: test)
    }
  }

  /// Finds the candidates for `needle` in `bytes`, then the lines that hold it.
  private func searchNeedle<Walker: LineWalker>(
    _ needle: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer, finder: Finder,
    as walker: Walker.Type, test: ((String) -> Bool)?
  ) throws(JSONTextError) -> DocumentHits?? {
    var lines = Walker(bytes)
    var hits = DocumentHits()
    var anchorsAhead = [Int](repeating: -1, count: finder == .anchor ? anchors.count : 0)
    var from = 0
    while let candidate = nextCandidate(
      of: needle, in: bytes, from: from, finder: finder, anchorsAhead: &anchorsAhead)
    {
      guard lines.advance(to: candidate) else {
        from = candidate + 1
        continue
      }
      if finder == .anchor, checksAtAnchor,
        !foldedNeedleFits(around: candidate, in: bytes, lines: lines)
      {
        from = candidate + 1
        continue
      }
      let (end, next) = lines.finishLine()
      let range = lines.lineStart..<end
      var isMatch =
        finder != .anchor || checksAtAnchor
        || foldedLine(range, of: bytes, holds: needle, as: walker)
      var text: String?
      if isMatch, let test {
        let line = try lines.text(of: range)
        isMatch = test(line)
        text = line
      }
      if isMatch {
        hits.lineCount += 1
        if mode == .lines {
          // Without a test the line's bytes are copied as they are, no string made.
          try hits.lines.append(number: lines.lineNumber) { bytes throws(JSONTextError) in
            if let text {
              bytes.append(contentsOf: text.utf8)
            } else {
              try lines.appendText(of: range, to: &bytes)
            }
          }
        }
        if mode == .documents { return .some(hits) }
      }
      guard let next else { break }
      lines.startLine(at: next)
      from = next
    }
    return .some(hits.lineCount > 0 ? hits : nil)
  }

  /// The first offset at or after `from` where a match may start: of the needle itself, or
  /// of an anchor (`anchorsAhead` keeps where each was next found, -1 for not yet).
  private func nextCandidate(
    of needle: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer, from: Int,
    finder: Finder, anchorsAhead: inout [Int]
  ) -> Int? {
    switch finder {
    case .exact:
      return ContentSearcher.firstOffset(of: needle, in: bytes, from: from)
    case .asciiLetterCase:
      return ContentSearcher.firstOffset(of: needle, in: bytes, from: from, ignoringASCIICase: true)
    case .anchor:
      var first = Int.max
      for index in anchors.indices {
        if anchorsAhead[index] != Int.max, anchorsAhead[index] < from {
          let group = anchors[index]
          let found =
            group.count == 2
            ? ContentSearcher.firstOffset(of: group[0].raw, or: group[1].raw, in: bytes, from: from)
            : ContentSearcher.firstOffset(of: group[0].raw, in: bytes, from: from)
          anchorsAhead[index] = found ?? Int.max
        }
        first = min(first, anchorsAhead[index])
      }
      return first == Int.max ? nil : first
    }
  }

  /// Whether the folded needle is there, its anchor at `anchor`, on the walker's line: the
  /// needle's scalars before the anchor are stepped back over, then the text folded scalar
  /// by scalar and compared. None of the needle's scalars is spelled with an escape, nor
  /// does any fold to one, so a match holds no escape and needs no decoding.
  private func foldedNeedleFits<Walker: LineWalker>(
    around anchor: Int, in bytes: UnsafeRawBufferPointer, lines: Walker
  ) -> Bool {
    var start = anchor
    for _ in 0..<anchorIndex {
      guard start > lines.lineStart else { return false }
      start -= 1
      while start > lines.lineStart, bytes[start] & 0xC0 == 0x80 { start -= 1 }
    }
    guard lines.startsCharacter(at: start) else { return false }
    var offset = start
    for wanted in foldedScalars {
      guard offset < bytes.count else { return false }
      let byte = bytes[offset]
      let value: UInt32
      let length: Int
      if byte < 0x80 {
        (value, length) = (UInt32(byte), 1)
      } else if let (decoded, width) = CaseFolder.decodeScalar(bytes, at: offset) {
        (value, length) = (decoded, width)
      } else {
        return false
      }
      guard folder.fold(value) == wanted else { return false }
      offset += length
    }
    return true
  }

  /// Whether the line at `range` of `bytes`, folded, holds `needle` (folded) where a
  /// character starts.
  private func foldedLine<Walker: LineWalker>(
    _ range: Range<Int>, of bytes: UnsafeRawBufferPointer, holds needle: UnsafeRawBufferPointer,
    as walker: Walker.Type
  ) -> Bool {
    let line = UnsafeRawBufferPointer(rebasing: bytes[range])
    let capacity = 2 * line.count + 8
    if scratch.count < capacity {
      scratch.deallocate()
      scratch = .allocate(byteCount: max(capacity, 1 << 12), alignment: 16)
    }
    let folded = UnsafeRawBufferPointer(
      rebasing: scratch[..<folder.fold(line, into: scratch).count])
    var characters = Walker(folded)
    var from = 0
    while let hit = ContentSearcher.firstOffset(of: needle, in: folded, from: from) {
      if characters.advance(to: hit) { return true }
      from = hit + 1
    }
    return false
  }

  /// Decodes every line of `bytes` and keeps those `test` accepts.
  private func searchEveryLine<Walker: LineWalker>(
    _ bytes: UnsafeRawBufferPointer, as walker: Walker.Type, test: (String) -> Bool
  ) throws(JSONTextError) -> DocumentHits?? {
    var lines = Walker(bytes)
    var hits = DocumentHits()
    while true {
      let (end, next) = lines.finishLine()
      // The empty piece after a final line feed (or an empty content) is no line, as grep
      // reads a file: `grep -v` does not print it, `grep -c ''` does not count it.
      if next == nil && end == lines.lineStart { break }
      let text = try lines.text(of: lines.lineStart..<end)
      if test(text) {
        hits.lineCount += 1
        if mode == .lines {
          try hits.lines.append(number: lines.lineNumber) { $0.append(contentsOf: text.utf8) }
        }
        if mode == .documents { return .some(hits) }
      }
      guard let next else { break }
      lines.startLine(at: next)
    }
    return .some(hits.lineCount > 0 ? hits : nil)
  }

  // MARK: - Bytes

  /// The offset of the first occurrence of `needle` in `haystack` at or after `from`;
  /// with `ignoringASCIICase`, ASCII letters match either way (`needle` in lower case).
  ///
  /// Sixteen candidate offsets at a time: those where both the needle's first and last
  /// bytes are in place are compared whole. Fast whatever the needle's bytes (no guess
  /// about which byte is rare), which matters for UTF-8 that shares lead bytes.
  static func firstOffset(
    of needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer, from: Int,
    ignoringASCIICase: Bool = false
  ) -> Int? {
    let length = needle.count
    guard let needleBase = needle.baseAddress, let base = haystack.baseAddress,
      length > 0, from >= 0, haystack.count - from >= length
    else { return length == 0 && from <= haystack.count ? from : nil }
    /// The bit to set in a byte before comparing it with `byte`: 0x20 for a letter when
    /// case is ignored (a capital then equals its small letter, and nothing else does).
    func caseBit(_ byte: UInt8) -> UInt8 {
      ignoringASCIICase && byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? 0x20 : 0
    }
    // Compared in line: a candidate usually differs in its second byte, sooner than a call
    // to memcmp returns.
    func matches(_ offset: Int) -> Bool {
      guard ignoringASCIICase || length <= 32 else {
        return memcmp(base + offset, needleBase, length) == 0
      }
      for index in 0..<length {
        let wanted = needle[index]
        if haystack[offset + index] | caseBit(wanted) != wanted { return false }
      }
      return true
    }
    let last = haystack.count - length  // the last offset a match can start at
    let firstByte = SIMD16<UInt8>(repeating: needle[0])
    let lastByte = SIMD16<UInt8>(repeating: needle[length - 1])
    let firstBit = SIMD16<UInt8>(repeating: caseBit(needle[0]))
    let lastBit = SIMD16<UInt8>(repeating: caseBit(needle[length - 1]))
    return firstMatch(from: from, last: last, matches: matches) { offset in
      let starts = base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self) | firstBit
      let ends =
        base.loadUnaligned(fromByteOffset: offset + length - 1, as: SIMD16<UInt8>.self) | lastBit
      return (starts .== firstByte) .& (ends .== lastByte)
    }
  }

  /// The first offset in `from...last` that `matches`, trying sixteen offsets at a time:
  /// `candidates(offset)` marks those of `offset..<offset + 16` worth comparing whole.
  @inline(__always)
  private static func firstMatch(
    from: Int, last: Int, matches: (Int) -> Bool,
    candidates: (Int) -> SIMDMask<SIMD16<Int8>>
  ) -> Int? {
    var offset = from
    while offset + 15 <= last {
      var lanes = ByteScan.lanes(candidates(offset))
      while let lane = ByteScan.firstLane(lanes) {
        if matches(offset + lane) { return offset + lane }
        lanes = ByteScan.droppingFirstLane(lanes)
      }
      offset += 16
    }
    while offset <= last {
      if matches(offset) { return offset }
      offset += 1
    }
    return nil
  }
}

extension ContentSearcher {
  /// The offset of the first occurrence of `one` or `other` (of the same length) in
  /// `haystack` at or after `from`: as ``firstOffset(of:in:from:ignoringASCIICase:)``, both
  /// looked for in one scan.
  static func firstOffset(
    of one: UnsafeRawBufferPointer, or other: UnsafeRawBufferPointer,
    in haystack: UnsafeRawBufferPointer, from: Int
  ) -> Int? {
    let length = one.count
    guard other.count == length, let oneBase = one.baseAddress, let otherBase = other.baseAddress,
      let base = haystack.baseAddress, length > 0, from >= 0, haystack.count - from >= length
    else {
      let first = firstOffset(of: one, in: haystack, from: from)
      let second = firstOffset(of: other, in: haystack, from: from)
      return [first, second].compactMap { $0 }.min()
    }
    func matches(_ offset: Int) -> Bool {
      memcmp(base + offset, oneBase, length) == 0 || memcmp(base + offset, otherBase, length) == 0
    }
    let last = haystack.count - length
    let oneFirst = SIMD16<UInt8>(repeating: one[0])
    let oneLast = SIMD16<UInt8>(repeating: one[length - 1])
    let otherFirst = SIMD16<UInt8>(repeating: other[0])
    let otherLast = SIMD16<UInt8>(repeating: other[length - 1])
    return firstMatch(from: from, last: last, matches: matches) { offset in
      let starts = base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
      let ends = base.loadUnaligned(fromByteOffset: offset + length - 1, as: SIMD16<UInt8>.self)
      return ((starts .== oneFirst) .& (ends .== oneLast))
        .| ((starts .== otherFirst) .& (ends .== otherLast))
    }
  }
}

extension UnsafeRawBufferPointer {
  /// Whether these bytes hold `needle`.
  fileprivate func holds(_ needle: UnsafeRawBufferPointer) -> Bool {
    ContentSearcher.firstOffset(of: needle, in: self, from: 0) != nil
  }
}

/// Bytes in memory of their own, for the needles a searcher keeps.
private final class Bytes {
  let raw: UnsafeRawBufferPointer

  init(_ bytes: [UInt8]) {
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
    copy.copyBytes(from: bytes)
    raw = UnsafeRawBufferPointer(copy)
  }

  deinit {
    raw.deallocate()
  }
}

/// A folder that closures share, so that what it learns is kept from one line to the next.
private final class SharedFolder {
  var folder = CaseFolder()
  /// Room for a folded line, reused from one line to the next.
  private var scratch = UnsafeMutableRawBufferPointer(start: nil, count: 0)

  deinit {
    scratch.deallocate()
  }

  /// Whether `line`, folded, holds the folded `needle`: folded as bytes into the scratch
  /// room, which costs a fraction of a folded `String`.
  func foldedLine(_ line: String, holds needle: UnsafeRawBufferPointer) -> Bool {
    var line = line
    return line.withUTF8 { bytes in
      let capacity = 2 * bytes.count + 8
      if scratch.count < capacity {
        scratch.deallocate()
        scratch = .allocate(byteCount: max(capacity, 1 << 12), alignment: 16)
      }
      let count = folder.fold(UnsafeRawBufferPointer(bytes), into: scratch).count
      let folded = UnsafeRawBufferPointer(rebasing: scratch[..<count])
      return ContentSearcher.firstOffset(of: needle, in: folded, from: 0) != nil
    }
  }
}
