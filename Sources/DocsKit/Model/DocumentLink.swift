/// A link written in a document's content: `[[Name]]`, `[[Category/Name]]`, or either
/// with the text to show after a bar, `[[Name|shown text]]`.
///
/// Links are derived from contents, never stored beside them: the index keeps them (as it
/// keeps the full text) to answer backlinks. `[[Name]]` names a document of the linking
/// document's own category; `[[Category/Name]]` one of that category, from anywhere. Names
/// compare as everywhere, ignoring case. A `[[…]]` whose target is not a valid name or path
/// (empty, more than one `/`, a control character) is no link, and neither is one spanning
/// lines.
public struct DocumentLink: Hashable, Sendable {
  /// The category named, when the link names one.
  public var category: Name?
  /// The document named.
  public var name: Name
  /// The text to show after `|`, when given.
  public var shownText: String?
  /// The line the link is on, from 1.
  public var line: Int
  /// The byte range of the whole `[[…]]` in the content.
  var range: Range<Int>
  /// The byte range of the target (before any `|`) in the content.
  var targetRange: Range<Int>

  /// The target as a path: `Category/Name` or `Name`.
  public var target: String {
    category.map { $0.text + "/" + name.text } ?? name.text
  }

  /// The links in `content`, in order.
  public static func links(in content: String) -> [DocumentLink] {
    var content = content
    return content.withUTF8 { links(inUTF8: UnsafeRawBufferPointer($0)) }
  }

  /// The links in the UTF-8 text `bytes`, in order: a scan for `[[` that costs little in a
  /// text holding none.
  static func links(inUTF8 bytes: UnsafeRawBufferPointer) -> [DocumentLink] {
    var found: [DocumentLink] = []
    let count = bytes.count
    let open = UInt8(ascii: "["), close = UInt8(ascii: "]"), newline = UInt8(ascii: "\n")
    let bar = UInt8(ascii: "|")
    var line = 1
    var lineCountedTo = 0
    var position = 0
    while position + 1 < count {
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
      let targetRange = (start + 2)..<(barAt ?? end)
      if let (category, name) = parseTarget(bytes, targetRange) {
        for index in lineCountedTo..<start where bytes[index] == newline { line += 1 }
        lineCountedTo = start
        let shown = barAt.map { String(decoding: bytes[($0 + 1)..<end], as: UTF8.self) }
        found.append(
          DocumentLink(
            category: category, name: name, shownText: shown, line: line,
            range: start..<(end + 2), targetRange: targetRange))
      }
      position = end + 2
    }
    return found
  }

  private static func parseTarget(
    _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>
  ) -> (Name?, Name)? {
    let text = String(decoding: bytes[range], as: UTF8.self)
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    switch parts.count {
    case 1:
      guard let name = try? Name(text) else { return nil }
      return (nil, name)
    case 2:
      guard let category = try? Name(String(parts[0])), let name = try? Name(String(parts[1]))
      else { return nil }
      return (category, name)
    default:
      return nil
    }
  }
}
