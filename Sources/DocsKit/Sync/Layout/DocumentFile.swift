/// How one document is written as a file in a repository clone: a front-matter header with
/// its identity, modification time and tags (a YAML list, as Obsidian's properties, pandoc
/// and Hugo read them), then its content byte for byte.
///
/// ```
/// ---
/// id: 1b4e28ba-2fa1-41d2-883f-0016d3cca427
/// modified: 2026-12-01T23:29:00.123Z
/// tags:
///   - project/docsh
///   - urgent
/// ---
/// the content, exactly as stored
/// ```
///
/// The document's name is the file's name and its category the folder (see
/// ``FileNameEncoding``), so neither is in the header: renaming a document in a clone is a
/// rename in git. The `tags:` entry is there only when the document holds tags. A content
/// that opens with front matter of its own (`aliases:`, `title:` … — keys docsh does not
/// read) shares the one header: its entries follow docsh's, byte for byte, and come back
/// into the content when the file is read; a content whose front matter holds a key docsh
/// writes, or that is no YAML docsh reads (``YAMLHeader``), stays after docsh's header.
/// Its size is the UTF-8 byte count of the content. Pure: bytes in, bytes out, no file
/// system.
public enum DocumentFile {
  /// The keys docsh writes in a header.
  static let docshKeys: Set<String> = ["id", "modified", "tags"]

  /// The bytes of the file of a document.
  public static func render(
    id: ObjectID, modified: Timestamp, tags: [Tag] = [], content: String
  ) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(80 + content.utf8.count)
    bytes.append(contentsOf: "---\nid: ".utf8)
    bytes.append(contentsOf: id.description.utf8)
    bytes.append(contentsOf: "\nmodified: ".utf8)
    bytes.append(contentsOf: modified.iso8601.utf8)
    bytes.append(contentsOf: "\n".utf8)
    if !tags.isEmpty {
      bytes.append(contentsOf: "tags:\n".utf8)
      for tag in tags {
        bytes.append(contentsOf: "  - ".utf8)
        bytes.append(contentsOf: YAMLHeader.scalar(tag.text).utf8)
        bytes.append(contentsOf: "\n".utf8)
      }
    }
    let contentBytes = Array(content.utf8)
    if let shared = sharedHeader(of: contentBytes) {
      bytes.append(contentsOf: contentBytes[shared.entries])
      bytes.append(contentsOf: "---\n".utf8)
      bytes.append(contentsOf: contentBytes[shared.body...])
    } else {
      bytes.append(contentsOf: "---\n".utf8)
      bytes.append(contentsOf: contentBytes)
    }
    return bytes
  }

  /// The entries and the start of the body of a content's own front matter, when it can
  /// share docsh's header and come back exactly: `---\n`, one entry or more of keys docsh
  /// does not write, `---\n`.
  static func sharedHeader(of content: [UInt8]) -> (entries: Range<Int>, body: Int)? {
    guard content.starts(with: "---\n".utf8),
      let header = FrontMatter(scanning: content, from: 0), header.isClosed,
      !header.lines.isEmpty, header.end - header.closingLineStart == 4,
      case .success(let yaml) = YAMLHeader.read(header),
      !yaml.entries.contains(where: { docshKeys.contains($0.key) })
    else { return nil }
    return (4..<header.closingLineStart, header.end)
  }

  /// Reads the bytes of a file found in a clone.
  ///
  /// A file whose first line is `---` and whose header holds an `id:` line is docsh's: it
  /// must then hold `id:` and `modified:` once each, and may hold `tags:` and entries of
  /// other keys, which go back into the content as its own front matter. Any other UTF-8
  /// file is plain text, all of it the content — except a header with a `tags:` entry of
  /// valid tags, YAML docsh reads: its tags are the document's, and the other entries stay
  /// the content's front matter. A UTF-8 byte order mark before a docsh header is dropped;
  /// header lines may end in `\r\n`.
  public static func parse(_ bytes: [UInt8]) -> DocumentFileParse {
    guard let whole = String(validating: bytes, as: UTF8.self) else {
      return .invalid(reason: .notUTF8)
    }
    let start = bytes.starts(with: FrontMatter.byteOrderMark) ? FrontMatter.byteOrderMark.count : 0
    guard let header = FrontMatter(scanning: bytes, from: start), header.hasKey("id") else {
      return plain(bytes, whole: whole)
    }
    guard header.isClosed else { return .invalid(reason: .unclosedHeader) }
    let yaml: YAMLHeader
    switch YAMLHeader.read(header) {
    case .success(let read): yaml = read
    case .failure(let problem): return .invalid(reason: problem)
    }
    var found: [String: YAMLHeader.Entry] = [:]
    var kept: [Range<Int>] = []
    for entry in yaml.entries {
      guard docshKeys.contains(entry.key) else {
        kept.append(entry.range)
        continue
      }
      guard found[entry.key] == nil else {
        return .invalid(reason: .duplicateKey(entry.key, line: entry.lines[0].number))
      }
      if entry.key != "tags", entry.lines.count > 1 {
        return .invalid(reason: .malformedLine(line: entry.lines[1].number))
      }
      found[entry.key] = entry
    }
    guard let idEntry = found["id"] else { return .invalid(reason: .missingKey("id")) }
    let idValue = YAMLHeader.scalar(of: idEntry) ?? idEntry.lines[0].value
    guard let id = ObjectID(idValue) else {
      return .invalid(reason: .malformedID(idValue, line: idEntry.lines[0].number))
    }
    guard let modifiedEntry = found["modified"] else {
      return .invalid(reason: .missingKey("modified"))
    }
    let modifiedValue = YAMLHeader.scalar(of: modifiedEntry) ?? modifiedEntry.lines[0].value
    guard let modified = Timestamp(fileHeaderValue: modifiedValue) else {
      return .invalid(
        reason: .malformedTimestamp(modifiedValue, line: modifiedEntry.lines[0].number))
    }
    var tags: [Tag] = []
    if let tagsEntry = found["tags"] {
      switch self.tags(of: tagsEntry) {
      case .success(let read): tags = read
      case .failure(let problem): return .invalid(reason: problem)
      }
    }
    // The whole file is valid UTF-8 and the content starts after a line end: a valid slice.
    var content = String(decoding: bytes[header.end...], as: UTF8.self)
    if !kept.isEmpty {
      var own = Array("---\n".utf8)
      for range in kept { own += bytes[range] }
      own += Array("---\n".utf8)
      content = String(decoding: own, as: UTF8.self) + content
    }
    return .docsh(id: id, modified: modified, content: content, tags: tags.normalizedTags())
  }

  /// A file without docsh's header: all content, or — front matter with a `tags:` entry of
  /// valid tags — its tags, and the rest of the header kept as the content's front matter.
  private static func plain(_ bytes: [UInt8], whole: String) -> DocumentFileParse {
    guard let header = FrontMatter(scanning: bytes, from: 0), header.isClosed,
      case .success(let yaml) = YAMLHeader.read(header),
      let tagsEntry = yaml.entries.first(where: { $0.key == "tags" }),
      yaml.entries.filter({ $0.key == "tags" }).count == 1,
      !yaml.entries.contains(where: { $0.key == "modified" }),
      case .success(let tags) = tags(of: tagsEntry)
    else { return .plain(content: whole) }
    var content: [UInt8] = []
    let others = yaml.entries.filter { $0.key != "tags" }
    if !others.isEmpty {
      content += Array("---\n".utf8)
      for entry in others {
        content += bytes[entry.range]
        if content.last != UInt8(ascii: "\n") { content.append(UInt8(ascii: "\n")) }
      }
      content += Array("---\n".utf8)
    }
    content += bytes[header.end...]
    return .plain(content: String(decoding: content, as: UTF8.self), tags: tags.normalizedTags())
  }

  /// The tags of a `tags:` entry.
  private static func tags(of entry: YAMLHeader.Entry) -> Result<[Tag], FrontMatterProblem> {
    guard let items = YAMLHeader.listItems(of: entry) else {
      return .failure(.malformedLine(line: entry.lines[0].number))
    }
    var tags: [Tag] = []
    for (text, line) in items {
      do {
        tags.append(try Tag(text))
      } catch {
        return .failure(.malformedTags(text, error, line: line))
      }
    }
    return .success(tags)
  }
}

/// What a file in a clone turned out to hold.
public enum DocumentFileParse: Equatable, Sendable {
  /// A document docsh wrote (or one edited since): its identity, time, content and tags.
  case docsh(id: ObjectID, modified: Timestamp, content: String, tags: [Tag] = [])
  /// A file without a docsh header, e.g. one made in the clone: all of it is the content,
  /// or, when its own front matter has a `tags:` entry, the tags and the rest.
  case plain(content: String, tags: [Tag] = [])
  /// A file docsh cannot take as a document.
  case invalid(reason: FrontMatterProblem)
}

extension Timestamp {
  /// Parses a header's `modified:` value: any ISO 8601 form ``init(iso8601:)`` reads, as long
  /// as ``iso8601`` writes the moment back in its fixed shape (years 0000 to 9999).
  init?(fileHeaderValue text: String) {
    guard let parsed = Timestamp(iso8601: text), Timestamp(iso8601: parsed.iso8601) == parsed
    else { return nil }
    self = parsed
  }
}
