/// How `export` and `import` carry a document's tags in a plain file: a front-matter header
/// holding one `tags:` line before the content, only when the document holds tags, as
/// Obsidian and static-site tools write them.
///
/// ```
/// ---
/// tags: project/docsh urgent
/// ---
/// the content, exactly as stored
/// ```
///
/// A file imported whose header holds only a `tags:` line of valid tags gives those tags and
/// the content after it; any other file (another tool's front matter included) is all
/// content.
public enum TagsHeader {
  /// `content` with a tags header before it, or as it is when `tags` is empty.
  public static func wrapping(_ content: String, tags: [Tag]) -> String {
    guard !tags.isEmpty else { return content }
    return "---\ntags: " + tags.map(\.text).joined(separator: " ") + "\n---\n" + content
  }

  /// The tags of a file's tags header and the content after it; no tags and all of `text`
  /// when it has no such header.
  public static func split(_ text: String) -> (tags: [Tag], content: String) {
    let bytes = Array(text.utf8)
    guard bytes.starts(with: Array("---\n".utf8)) || bytes.starts(with: Array("---\r\n".utf8)),
      let header = FrontMatter(scanning: bytes, from: 0), header.isClosed, header.hasKey("tags"),
      case .success(let values) = header.values(of: ["tags"]), let line = values[0]
    else { return ([], text) }
    var tags: [Tag] = []
    for word in line.value.split(whereSeparator: { " ,\t[]".contains($0) }) {
      guard let tag = try? Tag(String(word)) else { return ([], text) }
      tags.append(tag)
    }
    guard !tags.isEmpty else { return ([], text) }
    return (tags.normalizedTags(), String(decoding: bytes[header.end...], as: UTF8.self))
  }
}
