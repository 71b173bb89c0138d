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
    let open = UInt8(ascii: "["), close = UInt8(ascii: "]"), newline = UInt8(ascii: "\n")
    let bar = UInt8(ascii: "|")
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
      var end = start + 2
      var barAt: Int?
      var closed = false
      while end + 1 < count {
        let byte = bytes[end]
        if byte == newline || byte == open { break }
        if byte == bar, barAt == nil { barAt = end }
        if byte == close {
          closed = bytes[end + 1] == close
          break
        }
        end += 1
      }
      guard closed else {
        position = max(end, start + 2)
        continue
      }
      // Code that starts inside the brackets takes them: `[[a `b]]` c` is no link.
      if nextCode < code.count, code[nextCode].lowerBound < end + 2 {
        position = start + 2
        continue
      }
      var targetEnd = barAt ?? end
      if barAt != nil, targetEnd > start + 2, bytes[targetEnd - 1] == UInt8(ascii: "\\") {
        targetEnd -= 1
      }
      if let parsed = parseTarget(bytes, (start + 2)..<targetEnd) {
        for index in lineCountedTo..<start where bytes[index] == newline { line += 1 }
        lineCountedTo = start
        let shown = barAt.map { String(decoding: bytes[($0 + 1)..<end], as: UTF8.self) }
        found.append(
          DocumentLink(
            category: parsed.category, name: parsed.name, subpath: parsed.subpath,
            shownText: shown, isEmbed: start > 0 && bytes[start - 1] == UInt8(ascii: "!"),
            target: String(decoding: bytes[(start + 2)..<targetEnd], as: UTF8.self), line: line,
            range: start..<(end + 2), pathRange: parsed.pathRange))
      }
      position = end + 2
    }
    return found
  }

  /// The category, name, subpath and path range of the target `range`.
  private static func parseTarget(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>
  ) -> (category: Name?, name: Name?, subpath: String?, pathRange: Range<Int>)? {
    var pathEnd = range.upperBound
    for index in range where bytes[index] == UInt8(ascii: "#") {
      pathEnd = index
      break
    }
    let subpath =
      pathEnd < range.upperBound
      ? String(decoding: bytes[pathEnd..<range.upperBound], as: UTF8.self) : nil
    var pathStart = range.lowerBound
    let absolute = pathStart < pathEnd && bytes[pathStart] == UInt8(ascii: "/")
    if absolute { pathStart += 1 }
    let path = bytes[pathStart..<pathEnd]
    let text = String(decoding: path, as: UTF8.self)
    // An ASCII path is split by its bytes (the same characters, at a fraction of the cost
    // of splitting Characters); any other by its Characters (`/` and a mark are one).
    let isASCII = path.allSatisfy { $0 < 0x80 }
    let isBlank =
      isASCII
      ? path.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
      : text.allSatisfy { $0 == " " || $0 == "\t" }
    if !absolute, isBlank {
      // `[[#Heading]]`: the linking document itself, when a heading or block follows.
      guard let subpath, subpath.count > 1 else { return nil }
      return (nil, nil, subpath, pathStart..<pathStart)
    }
    let parts =
      isASCII
      ? path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
        Substring(decoding: $0, as: UTF8.self)
      }
      : text.split(separator: "/", omittingEmptySubsequences: false)
    switch parts.count {
    case 1 where !absolute:
      guard let name = try? Name(text) else { return nil }
      return (nil, name, subpath, pathStart..<pathEnd)
    case 2:
      guard let category = try? Name(String(parts[0])), let name = try? Name(String(parts[1]))
      else { return nil }
      return (category, name, subpath, pathStart..<pathEnd)
    default:
      return nil
    }
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
