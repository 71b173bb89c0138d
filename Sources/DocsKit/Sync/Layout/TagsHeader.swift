/// How `export` and `import` carry a document's tags in a plain file: front matter as the
/// sync layout writes it (``DocumentFile``), `tags:` as a YAML block list, only when the
/// document holds tags, as Obsidian's properties, pandoc and Hugo read it.
///
/// ```
/// ---
/// tags:
///   - project/docsh
///   - urgent
/// ---
/// the content, exactly as stored
/// ```
///
/// A content that opens with front matter of its own (keys docsh does not write) shares the
/// one header, its entries after `tags:`. Reading takes the tags of a `tags:` entry — a block
/// or flow list, a scalar, or the space-separated line docsh wrote before — and keeps every
/// other entry as the content's own front matter; a file of a sync clone (docsh's `id:` and
/// `modified:`) gives its content and tags, its id and date not taken. Anything else (no
/// header, YAML docsh does not read, a tag that is not valid) is all content.
public enum TagsHeader {
  /// `content` with a tags header before it, or as it is when `tags` is empty.
  public static func wrapping(_ content: String, tags: [Tag]) -> String {
    guard !tags.isEmpty else { return content }
    var header = "---\ntags:\n"
    for tag in tags { header += "  - " + YAMLHeader.scalar(tag.text) + "\n" }
    let bytes = Array(content.utf8)
    guard let shared = DocumentFile.sharedHeader(of: bytes) else {
      return header + "---\n" + content
    }
    // The content is UTF-8 and both ranges start and end at line ends: valid slices.
    return header + String(decoding: bytes[shared.entries], as: UTF8.self) + "---\n"
      + String(decoding: bytes[shared.body...], as: UTF8.self)
  }

  /// The tags of a file's header and the content without them; no tags and all of `text`
  /// when it has no such header.
  public static func split(_ text: String) -> (tags: [Tag], content: String) {
    switch DocumentFile.parse(Array(text.utf8)) {
    case .plain(let content, let tags) where !tags.isEmpty:
      return (tags, content)
    case .docsh(_, _, let content, let tags):
      return (tags, content)
    default:
      return ([], text)
    }
  }
}
