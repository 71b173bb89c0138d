/// A link written in a document's content, in Obsidian's grammar:
///
/// - `[[Name]]`, `[[Category/Name]]`, and `[[/Category/Name]]` (from the top of the vault,
///   which is the same place) name a document;
/// - `#Heading` or `#^block` after the name names a part of it: `[[Name#Heading]]`,
///   `[[Name#^block]]`; `[[#Heading]]` alone names a part of the linking document itself;
/// - `|shown text` after any of them is the text to show; in a table the bar may be written
///   `\|`;
/// - `![[…]]` embeds the document, and is a link to it like any other.
///
/// Links are derived from contents, never stored beside them: the index keeps them (as it
/// keeps the full text) to answer backlinks. How a name resolves is the context's business
/// (``Context/resolve(_:from:)``). Names compare as everywhere, ignoring case. A `[[…]]`
/// whose target is not a valid name or path (empty, more than one `/`, a control character)
/// is no link, and neither is one spanning lines, nor one inside code: a code span or a
/// fenced code block (``MarkdownCode``).
public struct DocumentLink: Hashable, Sendable {
  /// The category named, when the link names one.
  public var category: Name?
  /// The document named; `nil` when the link names a part of the linking document itself
  /// (`[[#Heading]]`).
  public var name: Name?
  /// The part of the document named, as written from its `#`: `#Heading` or `#^block`.
  public var subpath: String?
  /// The text to show after `|`, when given.
  public var shownText: String?
  /// Whether it is an embed, `![[…]]`.
  public var isEmbed: Bool
  /// The target as written, before any `|`: `Category/Name#Heading`, `Name`, `#Heading`.
  public var target: String
  /// The line the link is on, from 1.
  public var line: Int
  /// The byte range of the whole `[[…]]` in the content.
  var range: Range<Int>
  /// The byte range of the path (`Category/Name` or `Name`, after any leading `/`, before
  /// any `#`) in the content: what a rename rewrites. Empty for `[[#Heading]]`.
  var pathRange: Range<Int>

  /// The path named, `Category/Name` or `Name`; `nil` for the linking document itself.
  public var path: String? {
    guard let name else { return nil }
    return category.map { $0.text + "/" + name.text } ?? name.text
  }

  /// The links in `content`, in order.
  public static func links(in content: String) -> [DocumentLink] {
    var content = content
    return content.withUTF8 { links(inUTF8: UnsafeRawBufferPointer($0)) }
  }

  /// The links in the UTF-8 text `bytes`, in order: a scan for `[[` that costs little in a
  /// text holding none; where one is found, the text's code is found first.
  static func links(inUTF8 bytes: UnsafeRawBufferPointer) -> [DocumentLink] {
    let count = bytes.count
    let open = UInt8(ascii: "["), newline = UInt8(ascii: "\n")
    var position = 0
    while position + 1 < count, !(bytes[position] == open && bytes[position + 1] == open) {
      position += 1
    }
    guard position + 1 < count else { return [] }
    let code = MarkdownCode.ranges(in: bytes)
    var nextCode = 0
    var found: [DocumentLink] = []
    var line = 1
    var lineCountedTo = 0
    while position + 1 < count {
      while nextCode < code.count, code[nextCode].upperBound <= position { nextCode += 1 }
      if nextCode < code.count, code[nextCode].contains(position) {
        position = code[nextCode].upperBound
        continue
      }
      guard bytes[position] == open, bytes[position + 1] == open else {
        position += 1
        continue
      }
      // The innermost `[[`: `[[[Name]]` links Name.
      var start = position
      while start + 2 < count, bytes[start + 2] == open { start += 1 }
      let brackets = Brackets(bytes, from: start)
      guard brackets.closed else {
        position = max(brackets.end, start + 2)
        continue
      }
      // Code that starts inside the brackets takes them: `[[a `b]]` c` is no link.
      if nextCode < code.count, code[nextCode].lowerBound < brackets.end + 2 {
        position = start + 2
        continue
      }
      for index in lineCountedTo..<start where bytes[index] == newline { line += 1 }
      lineCountedTo = start
      if let link = link(bytes, brackets, line: line) { found.append(link) }
      position = brackets.end + 2
    }
    return found
  }

  /// The link whose innermost `[[` is at `start` in the UTF-8 text `bytes` (one line of a
  /// content, as the index keeps it), on line `line`; `nil` when no link starts there. Its
  /// ranges are in `bytes`: ``shifted(by:)`` places them in the content.
  static func link(at start: Int, inUTF8 bytes: UnsafeRawBufferPointer, line: Int)
    -> DocumentLink?
  {
    guard start >= 0, start + 1 < bytes.count, bytes[start] == UInt8(ascii: "["),
      bytes[start + 1] == UInt8(ascii: "[")
    else { return nil }
    let brackets = Brackets(bytes, from: start)
    guard brackets.closed else { return nil }
    return link(bytes, brackets, line: line)
  }

  /// The link with its ranges moved `offset` bytes on: from a line to its content.
  func shifted(by offset: Int) -> DocumentLink {
    var link = self
    link.range = (range.lowerBound + offset)..<(range.upperBound + offset)
    link.pathRange = (pathRange.lowerBound + offset)..<(pathRange.upperBound + offset)
    return link
  }

  /// The line holding byte `position` of `bytes`: where it starts, and its text, lines
  /// split as grep splits them (at each newline byte), without a `\r` ending it.
  static func line(around position: Int, inUTF8 bytes: UnsafeRawBufferPointer)
    -> (start: Int, text: String)
  {
    let newline = UInt8(ascii: "\n")
    let position = min(max(position, 0), bytes.count)
    var start = position
    while start > 0, bytes[start - 1] != newline { start -= 1 }
    var end = position
    while end < bytes.count, bytes[end] != newline { end += 1 }
    if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
    return (
      start, String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    )
  }

  /// Where a `[[` is closed: `end` is the first `]` (when `closed`, the first of `]]`), or
  /// where the scan stopped (a newline, another `[`, the end); `bar` the first `|` before it.
  private struct Brackets {
    var start: Int
    var end: Int
    var bar: Int?
    var closed = false

    init(_ bytes: UnsafeRawBufferPointer, from start: Int) {
      self.start = start
      end = start + 2
      while end + 1 < bytes.count {
        let byte = bytes[end]
        if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "[") { break }
        if byte == UInt8(ascii: "|"), bar == nil { bar = end }
        if byte == UInt8(ascii: "]") {
          closed = bytes[end + 1] == UInt8(ascii: "]")
          break
        }
        end += 1
      }
    }
  }

  /// The link the closed `brackets` hold, on line `line`; `nil` when their target is none.
  private static func link(
    _ bytes: UnsafeRawBufferPointer, _ brackets: Brackets, line: Int
  ) -> DocumentLink? {
    let start = brackets.start
    let end = brackets.end
    var targetEnd = brackets.bar ?? end
    if brackets.bar != nil, targetEnd > start + 2, bytes[targetEnd - 1] == UInt8(ascii: "\\") {
      targetEnd -= 1
    }
    guard let parsed = parseTarget(bytes, (start + 2)..<targetEnd) else { return nil }
    let shown = brackets.bar.map { text(bytes, ($0 + 1)..<end) }
    return DocumentLink(
      category: parsed.category, name: parsed.name, subpath: parsed.subpath,
      shownText: shown, isEmbed: start > 0 && bytes[start - 1] == UInt8(ascii: "!"),
      target: text(bytes, (start + 2)..<targetEnd), line: line,
      range: start..<(end + 2), pathRange: parsed.pathRange)
  }

  /// What a link's target holds. A struct, not a tuple: an optional tuple of these types
  /// has its metadata made at run time, about 140 K instructions the first time.
  private struct Target {
    var category: Name?
    var name: Name?
    var subpath: String?
    var pathRange: Range<Int>
  }

  /// The category, name, subpath and path range of the target `range`.
  private static func parseTarget(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>)
    -> Target?
  {
    var pathEnd = range.upperBound
    for index in range where bytes[index] == UInt8(ascii: "#") {
      pathEnd = index
      break
    }
    let subpath =
      pathEnd < range.upperBound
      ? text(bytes, pathEnd..<range.upperBound) : nil
    var pathStart = range.lowerBound
    let absolute = pathStart < pathEnd && bytes[pathStart] == UInt8(ascii: "/")
    if absolute { pathStart += 1 }
    // An ASCII path is split at its `/` bytes (the same characters, at a fraction of the
    // cost of splitting Characters); any other by its Characters (`/` and a mark are one).
    var isASCII = true
    var isBlank = true
    var slashes = 0
    var slash = pathEnd
    for index in pathStart..<pathEnd {
      let byte = bytes[index]
      if byte >= 0x80 { isASCII = false }
      if byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t") { isBlank = false }
      if byte == UInt8(ascii: "/") {
        slashes += 1
        slash = index
      }
    }
    if !isASCII {
      let path = text(bytes, pathStart..<pathEnd)
      isBlank = path.allSatisfy { $0 == " " || $0 == "\t" }
      let parts = path.split(separator: "/", omittingEmptySubsequences: false)
      slashes = parts.count - 1
      if slashes == 1 { slash = pathStart + parts[0].utf8.count }
    }
    if !absolute, isBlank {
      // `[[#Heading]]`: the linking document itself, when a heading or block follows.
      guard let subpath, subpath.count > 1 else { return nil }
      return Target(category: nil, name: nil, subpath: subpath, pathRange: pathStart..<pathStart)
    }
    switch slashes {
    case 0 where !absolute:
      guard let name = name(bytes, pathStart..<pathEnd) else { return nil }
      return Target(category: nil, name: name, subpath: subpath, pathRange: pathStart..<pathEnd)
    case 1:
      guard let category = name(bytes, pathStart..<slash),
        let name = name(bytes, (slash + 1)..<pathEnd)
      else { return nil }
      return Target(
        category: category, name: name, subpath: subpath, pathRange: pathStart..<pathEnd)
    default:
      return nil
    }
  }

  /// The name the bytes `range` of `bytes` spell, when they spell one.
  private static func name(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Name? {
    try? Name(text(bytes, range))
  }

  /// The bytes `range` of `bytes` as text, decoded as one contiguous buffer (a slice of the
  /// buffer takes the generic path, about 1,800 instructions more a call).
  private static func text(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
    String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }

  /// Whether a link can hold `path` (`Category/Name` or `Name`): not when it holds `#`,
  /// `|`, `[` or `]`, which end a link's path or the link.
  static func canName(_ path: String) -> Bool {
    !path.utf8.contains {
      $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "|") || $0 == UInt8(ascii: "[")
        || $0 == UInt8(ascii: "]")
    }
  }
}

/// A document as links name it, for finding the links to it without resolving each one (so
/// without reading the categories of the documents that link): `[[Category/Name]]` from
/// anywhere, a bare `[[Name]]` from its own category, or from any category when no other
/// document has its name (then no category holds one of its own), and `[[#Heading]]` from
/// the document itself.
public struct LinkedDocument: Sendable {
  /// The document.
  var id: ObjectID
  /// Its name.
  var name: Name
  /// Its category.
  var categoryID: ObjectID
  /// Its category's name.
  var categoryName: Name
  /// Whether no other document has its name.
  var isUnique: Bool

  /// Whether `link`, in the document `source` of the category `sourceCategory`, names it.
  func isNamed(by link: DocumentLink, from source: ObjectID, in sourceCategory: ObjectID) -> Bool {
    guard let linkName = link.name else { return source == id }
    guard linkName.key == name.key else { return false }
    guard let category = link.category else { return sourceCategory == categoryID || isUnique }
    return category.key == categoryName.key
  }

  /// The links in `content`, of the document `source` of the category `sourceCategory`,
  /// that name it, in order, each with the text of its line.
  func links(in content: String, from source: ObjectID, in sourceCategory: ObjectID)
    -> [(link: DocumentLink, lineText: String)]
  {
    var content = content
    return content.withUTF8 { buffer in
      let bytes = UnsafeRawBufferPointer(buffer)
      return DocumentLink.links(inUTF8: bytes).compactMap { link in
        guard isNamed(by: link, from: source, in: sourceCategory) else { return nil }
        return (link, DocumentLink.line(around: link.range.lowerBound, inUTF8: bytes).text)
      }
    }
  }

  /// Whether the links naming it are found by comparing the bytes of their keys: no other
  /// spelling of its name or its category's is equal to them (``NameKey/isSpelledOneWay``).
  var isFoundByBytes: Bool { name.key.isSpelledOneWay && categoryName.key.isSpelledOneWay }
}
